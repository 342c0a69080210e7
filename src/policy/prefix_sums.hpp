#pragma once
// Prefix sums over a growing array of counts (a Fenwick tree, Fenwick 1994), private to
// src/policy/: tiresias asks "how many GPUs of a type do the running jobs ahead of this queue
// position hold" in O(log n) instead of walking the queue. Counts are GPUs, so they fit an int;
// positions grow with the run (one per enqueue), so the tree holds 4 bytes per position.
#include <cstddef>
#include <vector>

namespace hetsim::policy_detail {

class PrefixSums {
 public:
  /// Adds `delta` at position `i` (the array grows as needed).
  void add(std::size_t i, int delta) {
    while (i >= tree_.size()) grow();
    for (std::size_t k = i + 1; k <= tree_.size(); k += k & (~k + 1)) tree_[k - 1] += delta;
  }
  /// Sum of positions [0, end).
  long long prefix(std::size_t end) const {
    if (end > tree_.size()) end = tree_.size();
    long long sum = 0;
    for (std::size_t k = end; k > 0; k -= k & (~k + 1)) sum += tree_[k - 1];
    return sum;
  }

 private:
  // Doubles the size (a power of two) in O(n): the old entries keep their ranges, the new node
  // at 2n covers everything (the old total), and every other new node covers only new, empty
  // positions.
  void grow() {
    const std::size_t n = tree_.size();
    if (n == 0) {
      tree_.assign(64, 0);
      return;
    }
    const auto total = static_cast<int>(prefix(n));
    tree_.resize(2 * n, 0);
    tree_[2 * n - 1] = total;
  }
  std::vector<int> tree_;  // tree_[k-1] = sum over positions (k - lowbit(k), k], 1-based
};

}  // namespace hetsim::policy_detail
