#pragma once
// Private helpers of afs (src/policy/afs.cpp): the two indexes over one GPU type's queue that let a
// round's tournament cost the GPUs handed out and the jobs that changed, not the whole queue
// (issue 19 item 3). Positions are queue slots in job index order.
#include <cstddef>
#include <vector>

namespace hetsim::policy_detail {

/// The last minimum (least value, the later position on ties) over any range of positions, each
/// holding a value or nothing: a segment tree over positions 0 .. capacity - 1. The rule is a
/// total order on (value, position), so the tree's combining order does not matter and a range's
/// answer is the one of a scan that keeps the later position on ties. Values must not be NaN.
class LastMinTree {
 public:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  /// Room for `capacity` positions, all holding nothing.
  void reset(std::size_t capacity) {
    size_ = 1;
    while (size_ < capacity) size_ *= 2;
    node_.assign(2 * size_, Entry{});
  }
  std::size_t capacity() const { return size_; }
  /// Position p holds `value` (without updating the tree above it: call build() after a series).
  void put(std::size_t p, double value) { node_[size_ + p] = Entry{value, p}; }
  /// Position p holds nothing (likewise).
  void drop(std::size_t p) { node_[size_ + p] = Entry{}; }
  /// Recomputes every inner node after put/drop calls: O(capacity).
  void build() {
    for (std::size_t i = size_ - 1; i >= 1; --i) node_[i] = pick(node_[2 * i], node_[2 * i + 1]);
  }
  /// put or drop, then the path to the root: O(log capacity).
  void set(std::size_t p, bool present, double value) {
    std::size_t i = size_ + p;
    node_[i] = present ? Entry{value, p} : Entry{};
    for (i /= 2; i >= 1; i /= 2) {
      const Entry e = pick(node_[2 * i], node_[2 * i + 1]);
      if (e.pos == node_[i].pos && e.value == node_[i].value) break;  // nothing above changes either
      node_[i] = e;
    }
  }
  /// The last minimum's position over [lo, hi), kNone when no position there holds a value.
  std::size_t query(std::size_t lo, std::size_t hi) const {
    Entry best{};
    for (lo += size_, hi += size_; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) best = pick(best, node_[lo++]);
      if (hi & 1) best = pick(best, node_[--hi]);
    }
    return best.pos;
  }

 private:
  struct Entry {
    double value = 0.0;
    std::size_t pos = kNone;
  };
  static const Entry& pick(const Entry& a, const Entry& b) {
    if (a.pos == kNone) return b;
    if (b.pos == kNone) return a;
    if (a.value != b.value) return a.value < b.value ? a : b;
    return a.pos > b.pos ? a : b;
  }
  std::size_t size_ = 1;
  std::vector<Entry> node_ = std::vector<Entry>(2);
};

/// Which positions are set, with the k-th set position found in O(log capacity): a Fenwick tree of
/// 0/1 flags.
class PositionSet {
 public:
  /// Room for `capacity` positions, none set.
  void reset(std::size_t capacity) {
    size_ = 1;
    while (size_ < capacity) size_ *= 2;
    tree_.assign(size_ + 1, 0);
    flag_.assign(size_, 0);
    count_ = 0;
  }
  std::size_t capacity() const { return size_; }
  std::size_t count() const { return count_; }
  bool has(std::size_t p) const { return flag_[p] != 0; }
  /// Sets or clears position p.
  void set(std::size_t p, bool on) {
    if ((flag_[p] != 0) == on) return;
    flag_[p] = on ? 1 : 0;
    const int delta = on ? 1 : -1;
    count_ = on ? count_ + 1 : count_ - 1;
    for (std::size_t i = p + 1; i <= size_; i += i & (~i + 1)) tree_[i] += delta;
  }
  /// The position of the k-th set position (k = 0 .. count() - 1), in position order.
  std::size_t select(std::size_t k) const {
    std::size_t at = 0;  // tree index whose prefix holds at most k set positions
    for (std::size_t step = size_; step > 0; step /= 2) {
      const std::size_t next = at + step;
      if (next <= size_ && static_cast<std::size_t>(tree_[next]) <= k) {
        at = next;
        k -= static_cast<std::size_t>(tree_[next]);
      }
    }
    return at;  // 0-based position = 1-based index at + 1, minus one
  }

 private:
  std::size_t size_ = 1;
  std::size_t count_ = 0;
  std::vector<int> tree_ = std::vector<int>(2, 0);
  std::vector<char> flag_ = std::vector<char>(1, 0);
};

}  // namespace hetsim::policy_detail
