// Lawson & Hanson's active-set NNLS ("Solving Least Squares Problems", 1974, ch. 23), on the normal
// equations. The physical form's GPU step has one column per multi-GPU configuration (152 on Sia's
// table) and thousands of rows; refactoring that tall matrix at every active-set step cost minutes
// (issue 15). On the Gram matrix each step is a solve over the passive columns, and the
// configuration columns, orthogonal in A, make that a Schur complement on a 2 x 2 block.
#include "hetsim/perf/nnls.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hetsim {

Eigen::VectorXd NnlsGram::times(const Eigen::VectorXd& x) const {
  const Eigen::Index d = dense_cols, s = cols() - dense_cols;
  Eigen::VectorXd y(cols());
  y.head(d) = dense * x.head(d);
  if (s > 0) {
    y.head(d) += cross.transpose() * x.tail(s);
    y.tail(s) = cross * x.head(d) + diag.cwiseProduct(x.tail(s));
  }
  return y;
}

NnlsGram nnls_gram_of(const Eigen::MatrixXd& A, const Eigen::VectorXd& b) {
  NnlsGram g;
  g.dense_cols = A.cols();
  g.dense = A.transpose() * A;
  g.cross = Eigen::MatrixXd(0, A.cols());
  g.diag = Eigen::VectorXd(0);
  g.atb = A.transpose() * b;
  g.tol = 1e-12 * std::max(1.0, A.size() > 0 ? A.cwiseAbs().maxCoeff() : 0.0) *
          std::max<double>(1.0, static_cast<double>(A.rows()));
  return g;
}

namespace {

// Solves G[P, P] z_P = atb[P] for the passive columns `cols` (ascending): the orthogonal ones are
// eliminated onto the dense ones (Schur complement), whose small system is solved by
// column-pivoting QR (a least-squares answer if it is singular). Returns z over all n columns.
Eigen::VectorXd solve_passive(const NnlsGram& g, const std::vector<Eigen::Index>& cols) {
  std::vector<Eigen::Index> pd, ps;
  for (Eigen::Index c : cols) {
    if (c < g.dense_cols)
      pd.push_back(c);
    else
      ps.push_back(c - g.dense_cols);  // row of cross / entry of diag
  }
  const auto nd = static_cast<Eigen::Index>(pd.size());
  Eigen::MatrixXd S(nd, nd);
  Eigen::VectorXd r(nd);
  for (Eigen::Index p = 0; p < nd; ++p) {
    r(p) = g.atb(pd[static_cast<std::size_t>(p)]);
    for (Eigen::Index q = 0; q < nd; ++q) S(p, q) = g.dense(pd[static_cast<std::size_t>(p)], pd[static_cast<std::size_t>(q)]);
  }
  for (Eigen::Index s : ps) {
    const double dii = g.diag(s), rs = g.atb(g.dense_cols + s);
    for (Eigen::Index p = 0; p < nd; ++p) {
      const double cp = g.cross(s, pd[static_cast<std::size_t>(p)]);
      r(p) -= cp * rs / dii;
      for (Eigen::Index q = 0; q < nd; ++q) S(p, q) -= cp * g.cross(s, pd[static_cast<std::size_t>(q)]) / dii;
    }
  }
  Eigen::VectorXd z = Eigen::VectorXd::Zero(g.cols());
  Eigen::VectorXd zd = nd > 0 ? Eigen::VectorXd(S.colPivHouseholderQr().solve(r)) : Eigen::VectorXd(0);
  for (Eigen::Index p = 0; p < nd; ++p) z(pd[static_cast<std::size_t>(p)]) = zd(p);
  for (Eigen::Index s : ps) {
    double v = g.atb(g.dense_cols + s);
    for (Eigen::Index p = 0; p < nd; ++p) v -= g.cross(s, pd[static_cast<std::size_t>(p)]) * zd(p);
    z(g.dense_cols + s) = v / g.diag(s);
  }
  return z;
}

// The diagonal of G (a column with a zero diagonal is zero in A and never enters).
double gram_diag(const NnlsGram& g, Eigen::Index c) { return c < g.dense_cols ? g.dense(c, c) : g.diag(c - g.dense_cols); }

// Lawson-Hanson's inner step, shared by both solvers: x takes the unconstrained solution z of the
// passive set when every passive entry of z is positive (returns true); otherwise x moves toward z
// as far as feasibility allows and the entries that reach zero leave the passive set.
bool step_toward(const Eigen::VectorXd& z, const std::vector<Eigen::Index>& cols, Eigen::VectorXd& x,
                 std::vector<char>& passive) {
  double alpha = 1.0;
  bool feasible = true;
  for (Eigen::Index c : cols)
    if (z(c) <= 0.0) {
      feasible = false;
      alpha = std::min(alpha, x(c) / (x(c) - z(c)));
    }
  if (feasible) {
    x = z;
    return true;
  }
  x += alpha * (z - x);
  for (Eigen::Index c : cols)
    if (x(c) <= 1e-300) {
      x(c) = 0.0;
      passive[static_cast<std::size_t>(c)] = 0;
    }
  return false;
}

}  // namespace

Eigen::VectorXd nnls_gram(const NnlsGram& g, const Eigen::VectorXd& start) {
  const Eigen::Index n = g.cols();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<char> passive(static_cast<std::size_t>(n), 0);
  if (start.size() == n)
    for (Eigen::Index c = 0; c < n; ++c)
      if (start(c) > 0.0 && gram_diag(g, c) > 0.0) x(c) = start(c), passive[static_cast<std::size_t>(c)] = 1;
  // A warm start runs the inner loop first (its support may not be optimal); then as the textbook.
  bool inner_first = x.any();
  for (int outer = 0; outer < 3 * n + 3; ++outer) {
    if (!inner_first) {
      const Eigen::VectorXd w = g.atb - g.times(x);
      Eigen::Index t = -1;
      for (Eigen::Index c = 0; c < n; ++c)
        if (!passive[static_cast<std::size_t>(c)] && w(c) > g.tol && (t < 0 || w(c) > w(t))) t = c;
      if (t < 0) break;
      passive[static_cast<std::size_t>(t)] = 1;
    }
    inner_first = false;
    for (int inner = 0; inner < 3 * n + 3; ++inner) {
      std::vector<Eigen::Index> cols;
      for (Eigen::Index c = 0; c < n; ++c)
        if (passive[static_cast<std::size_t>(c)]) cols.push_back(c);
      const Eigen::VectorXd z = solve_passive(g, cols);
      if (step_toward(z, cols, x, passive)) break;
    }
  }
  return x;
}

Eigen::VectorXd nnls(const Eigen::MatrixXd& A, const Eigen::VectorXd& b) { return nnls_gram(nnls_gram_of(A, b)); }

Eigen::VectorXd nnls_reference(const Eigen::MatrixXd& A, const Eigen::VectorXd& rhs) {
  const Eigen::Index n = A.cols();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<char> passive(static_cast<std::size_t>(n), 0);
  const double tol = 1e-12 * std::max(1.0, A.cwiseAbs().maxCoeff()) * std::max<double>(1.0, static_cast<double>(A.rows()));
  for (int outer = 0; outer < 3 * n + 3; ++outer) {
    const Eigen::VectorXd w = A.transpose() * (rhs - A * x);
    Eigen::Index t = -1;
    for (Eigen::Index c = 0; c < n; ++c)
      if (!passive[static_cast<std::size_t>(c)] && w(c) > tol && (t < 0 || w(c) > w(t))) t = c;
    if (t < 0) break;
    passive[static_cast<std::size_t>(t)] = 1;
    for (int inner = 0; inner < 3 * n + 3; ++inner) {
      std::vector<Eigen::Index> cols;
      for (Eigen::Index c = 0; c < n; ++c)
        if (passive[static_cast<std::size_t>(c)]) cols.push_back(c);
      Eigen::MatrixXd Ap(A.rows(), static_cast<Eigen::Index>(cols.size()));
      for (std::size_t c = 0; c < cols.size(); ++c) Ap.col(static_cast<Eigen::Index>(c)) = A.col(cols[c]);
      const Eigen::VectorXd zp = Ap.colPivHouseholderQr().solve(rhs);
      Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
      for (std::size_t c = 0; c < cols.size(); ++c) z(cols[c]) = zp(static_cast<Eigen::Index>(c));
      if (step_toward(z, cols, x, passive)) break;
    }
  }
  return x;
}

}  // namespace hetsim
