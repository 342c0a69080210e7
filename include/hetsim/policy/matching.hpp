#pragma once
/// Minimum-weight full bipartite matching (the assignment problem), solved by the Hungarian
/// algorithm with potentials (Kuhn 1955, Munkres 1957; the O(n^2 m) shortest-augmenting-path form
/// of Jonker & Volgenant 1987). Heet matches GPU-type slots to jobs with it, where its prototype
/// calls networkx.bipartite.minimum_weight_full_matching.
#include <vector>

namespace hetsim {

/// `cost[r][c]` = weight of edge (row r, column c); +infinity or NaN = no edge. All rows must have
/// the same length. Matches min(rows, cols) pairs ("full" on the smaller side) with the least total
/// weight, preferring as few missing edges as possible; returns for each row its column, or -1 when
/// the row is unmatched or could only be matched through a missing edge. Any finite weight is
/// allowed (negative too). Deterministic. Throws std::invalid_argument on ragged rows.
std::vector<int> min_weight_full_matching(const std::vector<std::vector<double>>& cost);

/// The same matching when columns come in classes of identical columns (heet: the slots of one GPU
/// type): `class_cost[r][k]` = weight of row r on any column of class k, `column_class[c]` = class
/// of column c. Returns exactly what min_weight_full_matching returns on the expanded matrix
/// cost[r][c] = class_cost[r][column_class[c]], ties included, but the search visits at most `rows`
/// columns per class (why that changes nothing: matching.cpp). Throws std::invalid_argument on
/// ragged rows or a class out of range.
std::vector<int> min_weight_full_matching_by_class(const std::vector<std::vector<double>>& class_cost,
                                                   const std::vector<int>& column_class);

}  // namespace hetsim
