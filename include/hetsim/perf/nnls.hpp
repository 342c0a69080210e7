#pragma once
/// Non-negative least squares, min ||A x - b|| subject to x >= 0, by Lawson & Hanson's active-set
/// method ("Solving Least Squares Problems", 1974, ch. 23). Used by the physical form's alternating
/// fit (physical_form.cpp).
#include <Eigen/Dense>

namespace hetsim {

/// The normal equations of an NNLS problem, G = A^T A and A^T b, with an optional structure:
/// the columns from `dense_cols` on are mutually orthogonal in A (each row of A has at most one
/// of them non-zero; the physical form's per-configuration communication columns), so their block
/// of G is diagonal and only the first `dense_cols` columns couple.
struct NnlsGram {
  Eigen::Index dense_cols = 0;  ///< columns [0, dense_cols) couple freely
  Eigen::MatrixXd dense;        ///< G over the first dense_cols columns (dense_cols x dense_cols)
  Eigen::MatrixXd cross;        ///< G[sparse, dense]: (n - dense_cols) x dense_cols
  Eigen::VectorXd diag;         ///< diagonal of G over the orthogonal columns
  Eigen::VectorXd atb;          ///< A^T b (n)
  double tol = 0.0;             ///< a column enters when its gradient A^T (b - A x) exceeds this
  Eigen::Index cols() const { return atb.size(); }
  /// G x for the structured G.
  Eigen::VectorXd times(const Eigen::VectorXd& x) const;
};

/// The Gram form of (A, b) with every column dense (dense_cols = A.cols()), and the tolerance
/// nnls_reference() uses: 1e-12 x max(1, max |A|) x max(1, rows).
NnlsGram nnls_gram_of(const Eigen::MatrixXd& A, const Eigen::VectorXd& b);

/// Lawson-Hanson on the normal equations: each active-set step solves G restricted to the passive
/// columns (a Schur complement on the dense block when the orthogonal block is diagonal), never
/// the tall A. `start` (optional, >= 0, of size n) warm-starts from its support, which changes the
/// path, not the minimiser when A has full column rank. Iterations are capped as in
/// nnls_reference() (3n + 3 outer, 3n + 3 inner steps).
Eigen::VectorXd nnls_gram(const NnlsGram& gram, const Eigen::VectorXd& start = Eigen::VectorXd());

/// nnls_gram(nnls_gram_of(A, b)).
Eigen::VectorXd nnls(const Eigen::MatrixXd& A, const Eigen::VectorXd& b);

/// The textbook form: every active-set step solves the passive columns of A by column-pivoting QR
/// of the tall matrix (what the physical form used before; O(rows x passive^2) per step). Kept as
/// the reference the Gram form is tested against.
Eigen::VectorXd nnls_reference(const Eigen::MatrixXd& A, const Eigen::VectorXd& b);

}  // namespace hetsim
