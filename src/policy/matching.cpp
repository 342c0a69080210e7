// Hungarian algorithm with row/column potentials (Kuhn 1955; Munkres 1957), in the
// shortest-augmenting-path form (Jonker & Volgenant 1987): O(n^2 m) for n rows <= m columns.
#include "hetsim/policy/matching.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace hetsim {
namespace {

// Rows <= columns; every cost finite; a(i, j) is the cost of row i, column j (0-based). Returns
// the column of each row. A template so that the dense and the by-class callers share one loop.
template <typename Cost>
std::vector<int> hungarian(const Cost& a, std::size_t n, std::size_t m) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0.0), v(m + 1, 0.0), minv(m + 1);
  std::vector<std::size_t> p(m + 1, 0), way(m + 1, 0);  // p[j] = row (1-based) on column j
  std::vector<char> used(m + 1, 0);
  std::vector<std::size_t> used_list;  // the columns visited in this row's search
  for (std::size_t i = 1; i <= n; ++i) {
    p[0] = i;
    std::size_t j0 = 0;
    std::fill(minv.begin(), minv.end(), kInf);
    // One pass over the columns per step: the textbook second pass (minv[j] -= delta on unvisited
    // columns) is done at the start of the next step's scan, the same subtraction in the same
    // order for every column still read; potentials change on the visited columns only.
    double last_delta = 0.0;
    do {
      used[j0] = 1;
      used_list.push_back(j0);
      const std::size_t i0 = p[j0];
      double delta = kInf;
      std::size_t j1 = 0;
      for (std::size_t j = 1; j <= m; ++j) {
        if (used[j]) continue;
        minv[j] -= last_delta;
        const double cur = a(i0 - 1, j - 1) - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (std::size_t j : used_list) {
        u[p[j]] += delta;
        v[j] -= delta;
      }
      last_delta = delta;
      j0 = j1;
    } while (p[j0] != 0);
    for (std::size_t j : used_list) used[j] = 0;
    used_list.clear();
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

// The stand-in weight of a missing edge: more than any matching of real edges can cost, so the
// optimum uses as few as possible. Summed in row-major order over every column, as the dense
// matrix lists them, so the by-class form gets the very same double.
template <typename Cost>
double missing_edge_cost(const Cost& cost, std::size_t rows, std::size_t cols) {
  double big = 1.0;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      if (std::isfinite(cost(r, c))) big += 2.0 * std::abs(cost(r, c));
  return big;
}

// By-class matching, rows <= kept columns: keeps the first `rows` columns of each class, in
// column order. Why the result cannot change: a column never matched keeps v = 0, so unmatched
// columns of one class have equal reduced costs at every step, and the scan (first strict
// minimum) always picks the lowest-indexed of them; with at most rows - 1 columns matched before
// a row's search, one of a class's first `rows` columns is still free. The dropped columns are
// never picked, never visited, and never set a step's minimum alone, so every potential and every
// choice stays as in the dense form. Returns the column of each row.
std::vector<int> match_first_copies(const std::vector<std::vector<double>>& fin, const std::vector<int>& column_class,
                                    const std::vector<std::size_t>& kept) {
  const std::size_t n = fin.size(), m = kept.size();
  std::vector<double> a(n * m);  // row-major, so the search reads a row contiguously
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) a[i * m + j] = fin[i][static_cast<std::size_t>(column_class[kept[j]])];
  const auto col = hungarian([&](std::size_t i, std::size_t j) { return a[i * m + j]; }, n, m);
  std::vector<int> out(fin.size(), -1);
  for (std::size_t r = 0; r < fin.size(); ++r)
    if (col[r] >= 0) out[r] = static_cast<int>(kept[static_cast<std::size_t>(col[r])]);
  return out;
}

// By-class matching, more rows than columns: the dense form solves the transpose (its rows are
// our columns, its columns our rows). There a column (our row r) that `cols` earlier ones match
// or beat in every class can be dropped, by the argument above: a free column's reduced cost is
// its cost minus the same row potentials as any other free column's (v = 0), so a free dominator
// is never above it and comes first in the scan; at most cols - 1 columns are matched before a
// search, so one of `cols` dominators is always free. Dominators are counted among the rows kept
// so far, scanned by ascending cost sum (a dominator's sum is never larger: rounding is monotone).
std::vector<int> match_undominated_rows(const std::vector<std::vector<double>>& fin,
                                        const std::vector<int>& column_class, const std::vector<std::size_t>& classes_used) {
  const std::size_t rows = fin.size(), cols = column_class.size();
  std::vector<std::pair<double, std::size_t>> by_sum;  // kept rows as (cost sum, row), ascending
  for (std::size_t r = 0; r < rows; ++r) {
    double sum = 0.0;
    for (std::size_t k : classes_used) sum += fin[r][k];
    std::size_t dominators = 0;
    for (auto e = by_sum.begin(); e != by_sum.end() && e->first <= sum && dominators < cols; ++e) {
      bool dominates = true;
      for (std::size_t k : classes_used) dominates = dominates && fin[e->second][k] <= fin[r][k];
      dominators += dominates ? 1 : 0;
    }
    if (dominators < cols) by_sum.insert(std::upper_bound(by_sum.begin(), by_sum.end(), std::make_pair(sum, r)), {sum, r});
  }
  std::vector<std::size_t> kept(by_sum.size());
  for (std::size_t e = 0; e < by_sum.size(); ++e) kept[e] = by_sum[e].second;
  std::sort(kept.begin(), kept.end());
  const std::size_t m = kept.size();
  std::vector<double> a(cols * m);  // the transpose, row-major
  for (std::size_t i = 0; i < cols; ++i)
    for (std::size_t j = 0; j < m; ++j) a[i * m + j] = fin[kept[j]][static_cast<std::size_t>(column_class[i])];
  const auto row_of_col = hungarian([&](std::size_t i, std::size_t j) { return a[i * m + j]; }, cols, m);
  std::vector<int> out(rows, -1);
  for (std::size_t c = 0; c < cols; ++c)
    if (row_of_col[c] >= 0) out[kept[static_cast<std::size_t>(row_of_col[c])]] = static_cast<int>(c);
  return out;
}

}  // namespace

std::vector<int> min_weight_full_matching(const std::vector<std::vector<double>>& cost) {
  const std::size_t rows = cost.size();
  if (rows == 0) return {};
  const std::size_t cols = cost[0].size();
  for (const auto& r : cost)
    if (r.size() != cols) throw std::invalid_argument("min_weight_full_matching: rows of different lengths");
  if (cols == 0) return std::vector<int>(rows, -1);
  const auto at = [&](std::size_t r, std::size_t c) { return cost[r][c]; };
  const double big = missing_edge_cost(at, rows, cols);
  auto finite = [&](double c) { return std::isfinite(c) ? c : big; };
  std::vector<int> out(rows, -1);
  if (rows <= cols) {
    std::vector<std::vector<double>> a(rows, std::vector<double>(cols));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) a[r][c] = finite(cost[r][c]);
    out = hungarian([&](std::size_t i, std::size_t j) { return a[i][j]; }, rows, cols);
  } else {
    std::vector<std::vector<double>> a(cols, std::vector<double>(rows));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) a[c][r] = finite(cost[r][c]);
    const auto row_of_col = hungarian([&](std::size_t i, std::size_t j) { return a[i][j]; }, cols, rows);
    for (std::size_t c = 0; c < cols; ++c)
      if (row_of_col[c] >= 0) out[static_cast<std::size_t>(row_of_col[c])] = static_cast<int>(c);
  }
  for (std::size_t r = 0; r < rows; ++r)
    if (out[r] >= 0 && !std::isfinite(cost[r][static_cast<std::size_t>(out[r])])) out[r] = -1;
  return out;
}

std::vector<int> min_weight_full_matching_by_class(const std::vector<std::vector<double>>& class_cost,
                                                   const std::vector<int>& column_class) {
  const std::size_t rows = class_cost.size(), cols = column_class.size();
  if (rows == 0) return {};
  const std::size_t classes = class_cost[0].size();
  for (const auto& r : class_cost)
    if (r.size() != classes) throw std::invalid_argument("min_weight_full_matching_by_class: rows of different lengths");
  for (int k : column_class)
    if (k < 0 || static_cast<std::size_t>(k) >= classes)
      throw std::invalid_argument("min_weight_full_matching_by_class: column class out of range");
  if (cols == 0) return std::vector<int>(rows, -1);
  std::vector<std::size_t> kept, copies(classes, 0), classes_used;
  for (std::size_t c = 0; c < cols; ++c)
    if (copies[static_cast<std::size_t>(column_class[c])]++ < rows) kept.push_back(c);
  for (std::size_t k = 0; k < classes; ++k)
    if (copies[k] > 0) classes_used.push_back(k);
  // The missing-edge weight as the dense form computes it; only needed when an edge is missing.
  bool missing = false;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t k : classes_used) missing = missing || !std::isfinite(class_cost[r][k]);
  const auto at = [&](std::size_t r, std::size_t c) { return class_cost[r][static_cast<std::size_t>(column_class[c])]; };
  const double big = missing ? missing_edge_cost(at, rows, cols) : 0.0;
  std::vector<std::vector<double>> fin(rows, std::vector<double>(classes));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t k = 0; k < classes; ++k) fin[r][k] = std::isfinite(class_cost[r][k]) ? class_cost[r][k] : big;
  // When columns were dropped some class has >= rows of them, so rows <= kept columns: the dense
  // form's choice between the two shapes is the same.
  std::vector<int> out = rows <= kept.size() ? match_first_copies(fin, column_class, kept)
                                             : match_undominated_rows(fin, column_class, classes_used);
  for (std::size_t r = 0; r < rows; ++r)
    if (out[r] >= 0 && !std::isfinite(at(r, static_cast<std::size_t>(out[r])))) out[r] = -1;
  return out;
}

}  // namespace hetsim
