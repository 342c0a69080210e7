// Hungarian algorithm with row/column potentials (Kuhn 1955; Munkres 1957), in the
// shortest-augmenting-path form (Jonker & Volgenant 1987): O(n^2 m) for n rows <= m columns.
#include "hetsim/policy/matching.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace hetsim {
namespace {

// Rows <= columns; every cost finite. Returns the column of each row.
std::vector<int> hungarian(const std::vector<std::vector<double>>& a, std::size_t n, std::size_t m) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0.0), v(m + 1, 0.0);
  std::vector<std::size_t> p(m + 1, 0), way(m + 1, 0);  // p[j] = row (1-based) on column j
  for (std::size_t i = 1; i <= n; ++i) {
    p[0] = i;
    std::size_t j0 = 0;
    std::vector<double> minv(m + 1, kInf);
    std::vector<char> used(m + 1, 0);
    do {
      used[j0] = 1;
      const std::size_t i0 = p[j0];
      double delta = kInf;
      std::size_t j1 = 0;
      for (std::size_t j = 1; j <= m; ++j) {
        if (used[j]) continue;
        const double cur = a[i0 - 1][j - 1] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (std::size_t j = 0; j <= m; ++j) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {
      const std::size_t j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> col(n, -1);
  for (std::size_t j = 1; j <= m; ++j)
    if (p[j] != 0) col[p[j] - 1] = static_cast<int>(j - 1);
  return col;
}

}  // namespace

std::vector<int> min_weight_full_matching(const std::vector<std::vector<double>>& cost) {
  const std::size_t rows = cost.size();
  if (rows == 0) return {};
  const std::size_t cols = cost[0].size();
  for (const auto& r : cost)
    if (r.size() != cols) throw std::invalid_argument("min_weight_full_matching: rows of different lengths");
  if (cols == 0) return std::vector<int>(rows, -1);
  // A missing edge costs more than any matching of real edges can, so the optimum uses as few as
  // possible; such pairs are reported unmatched.
  double big = 1.0;
  for (const auto& r : cost)
    for (double c : r)
      if (std::isfinite(c)) big += 2.0 * std::abs(c);
  auto finite = [&](double c) { return std::isfinite(c) ? c : big; };
  std::vector<int> out(rows, -1);
  if (rows <= cols) {
    std::vector<std::vector<double>> a(rows, std::vector<double>(cols));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) a[r][c] = finite(cost[r][c]);
    out = hungarian(a, rows, cols);
  } else {
    std::vector<std::vector<double>> a(cols, std::vector<double>(rows));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) a[c][r] = finite(cost[r][c]);
    const auto row_of_col = hungarian(a, cols, rows);
    for (std::size_t c = 0; c < cols; ++c)
      if (row_of_col[c] >= 0) out[static_cast<std::size_t>(row_of_col[c])] = static_cast<int>(c);
  }
  for (std::size_t r = 0; r < rows; ++r)
    if (out[r] >= 0 && !std::isfinite(cost[r][static_cast<std::size_t>(out[r])])) out[r] = -1;
  return out;
}

}  // namespace hetsim
