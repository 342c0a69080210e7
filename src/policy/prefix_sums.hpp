#pragma once
// Prefix sums over a growing array of counts (a Fenwick tree, Fenwick 1994), private to
// src/policy/: tiresias asks "how many GPUs of a type do the running jobs ahead of this queue
// position hold" in O(log n) instead of walking the queue.
#include <cstddef>
#include <vector>

namespace hetsim::policy_detail {

class PrefixSums {
 public:
  /// Adds `delta` at position `i` (the array grows as needed).
  void add(std::size_t i, long long delta) {
    if (i >= values_.size()) grow(i + 1);
    values_[i] += delta;
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
  // Doubles the size and rebuilds the tree from the values in O(n).
  void grow(std::size_t size) {
    std::size_t n = tree_.empty() ? 64 : tree_.size();
    while (n < size) n *= 2;
    values_.resize(n, 0);
    tree_.assign(values_.begin(), values_.end());
    for (std::size_t k = 1; k <= n; ++k) {
      const std::size_t parent = k + (k & (~k + 1));
      if (parent <= n) tree_[parent - 1] += tree_[k - 1];
    }
  }
  std::vector<long long> values_;
  std::vector<long long> tree_;  // tree_[k-1] = sum of values_ over (k - lowbit(k), k]
};

}  // namespace hetsim::policy_detail
