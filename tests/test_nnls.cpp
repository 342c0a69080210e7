// Lawson-Hanson NNLS on the normal equations (nnls.hpp) against the tall-QR reference (issue 15).
#include <catch2/catch.hpp>
#include <random>

#include "hetsim/perf/nnls.hpp"

using namespace hetsim;

namespace {

bool nnls_near(const Eigen::VectorXd& x, const Eigen::VectorXd& y, double tol) {
  return x.size() == y.size() && (x - y).cwiseAbs().maxCoeff() <= tol;
}

}  // namespace

TEST_CASE("nnls: Gram and reference give the hand-computed solution when a bound is active") {
  // Unconstrained x = (2, -1); with x2 = 0 the best x1 minimises (x1-2)^2 + 1 + (x1-1)^2: 1.5.
  Eigen::MatrixXd A(3, 2);
  A << 1, 0, 0, 1, 1, 1;
  Eigen::VectorXd b(3);
  b << 2, -1, 1;
  Eigen::VectorXd want(2);
  want << 1.5, 0.0;
  CHECK(nnls_near(nnls_reference(A, b), want, 1e-12));
  CHECK(nnls_near(nnls(A, b), want, 1e-12));
}

TEST_CASE("nnls: the structured Gram form (orthogonal columns) equals the reference") {
  // Columns d0 d1 couple; s0 (rows with d0) and s1 (rows with d1) are orthogonal. By hand: x0 = 1
  // from row 1, s0 = 3 fits row 3 exactly; s1 free would be -3, so s1 = 0 and d1 = (2 - 1) / 2.
  Eigen::MatrixXd A(4, 4);
  A << 1, 0, 0, 0,  //
      0, 1, 0, 0,   //
      1, 0, 1, 0,   //
      0, 1, 0, 1;
  Eigen::VectorXd b(4);
  b << 1, 2, 4, -1;
  Eigen::VectorXd want(4);
  want << 1.0, 0.5, 3.0, 0.0;
  CHECK(nnls_near(nnls_reference(A, b), want, 1e-12));
  CHECK(nnls_near(nnls(A, b), want, 1e-12));
  NnlsGram g;
  g.dense_cols = 2;
  g.dense = Eigen::MatrixXd(2, 2);
  g.dense << 2, 0, 0, 2;
  g.cross = Eigen::MatrixXd(2, 2);
  g.cross << 1, 0, 0, 1;  // s0 . d0 (row 3), s1 . d1 (row 4)
  g.diag = Eigen::VectorXd::Ones(2);
  g.atb = A.transpose() * b;
  CHECK(g.atb == (Eigen::VectorXd(4) << 5, 1, 4, -1).finished());
  g.tol = 1e-12;
  CHECK(nnls_near(nnls_gram(g), want, 1e-12));
  CHECK(nnls_near(g.times(want), A.transpose() * (A * want), 1e-12));
  // A warm start from a wrong support (every column positive) reaches the same minimiser.
  CHECK(nnls_near(nnls_gram(g, Eigen::VectorXd::Ones(4)), want, 1e-12));
}

TEST_CASE("nnls: Gram form matches the reference on seeded random problems") {
  std::mt19937_64 rng(7);
  auto u = [&]() { return static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5; };
  int with_bound = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::MatrixXd A(12, 5);
    Eigen::VectorXd b(12);
    for (Eigen::Index r = 0; r < 12; ++r) {
      b(r) = u();
      for (Eigen::Index c = 0; c < 5; ++c) A(r, c) = u();
    }
    const Eigen::VectorXd ref = nnls_reference(A, b), gram = nnls(A, b);
    CHECK(nnls_near(ref, gram, 1e-10));
    CHECK(ref.minCoeff() >= 0.0);
    with_bound += (ref.array() == 0.0).any();
  }
  CHECK(with_bound > 0);  // the comparison covered active bounds
}
