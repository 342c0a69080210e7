#pragma once
/// A set of job indices kept as a two-level bitmap: the JobTable's pending and running sets. A
/// round mechanism starts and stops hundreds of thousands of jobs per run (Gavel's MSR trace under
/// fifo: ~368k), and a std::set paid a tree rebalancing (~1,200 instructions) for each; here
/// insert and erase are O(1) bit operations, size() is O(1), and iteration is ascending (job index
/// = arrival order, as the std::set gave) in O(members + capacity / 4096): the summary level has
/// one bit per 64-job word, so empty stretches of a large trace are skipped 4,096 jobs at a time.
/// It offers the read interface the policies used on the std::set (begin/end, size, empty,
/// count/contains, back); its iterator yields indices by value and keeps the rest of its current
/// 64-index word, so the set must not change while an iterator is in use (every caller only
/// reads it, or copies it first).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>

#include "hetsim/workload/job.hpp"

namespace hetsim {

class JobIndexSet {
 public:
  JobIndexSet() = default;
  /// Room for indices [0, capacity) without reallocating (larger ones grow the set).
  explicit JobIndexSet(std::size_t capacity) { reserve_indices(capacity); }

  class const_iterator {
   public:
    // Indices are produced, not stored: legacy algorithms see an input iterator (one pass), the
    // C++20 concepts a bidirectional one, as std::views::iota's iterator does.
    using iterator_concept = std::bidirectional_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    using value_type = JobIndex;
    using difference_type = std::ptrdiff_t;
    using reference = JobIndex;
    using pointer = void;

    const_iterator() = default;
    JobIndex operator*() const { return static_cast<JobIndex>(pos_); }
    const_iterator& operator++() {
      if (rest_ != 0) {  // the next member is in the same 64-index word
        pos_ = (pos_ & ~std::size_t{63}) + static_cast<std::size_t>(std::countr_zero(rest_));
        rest_ &= rest_ - 1;
      } else {
        set_->to_next_word(*this);
      }
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++*this;
      return old;
    }
    const_iterator& operator--() {
      pos_ = set_->prev_before(pos_);
      rest_ = set_->members_above(pos_);
      return *this;
    }
    const_iterator operator--(int) {
      const_iterator old = *this;
      --*this;
      return old;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.pos_ == b.pos_; }

   private:
    friend class JobIndexSet;
    const_iterator(const JobIndexSet* set, std::size_t pos) : set_(set), pos_(pos), rest_(set->members_above(pos)) {}
    const JobIndexSet* set_ = nullptr;
    std::size_t pos_ = kEnd;
    std::uint64_t rest_ = 0;  // the members of pos_'s word above pos_ (a sparse set's walk is word to word)
  };
  using iterator = const_iterator;

  const_iterator begin() const { return {this, empty() ? kEnd : next_from(lo_ << 12)}; }
  const_iterator end() const { return {this, kEnd}; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool contains(JobIndex j) const {
    const auto k = static_cast<std::size_t>(j);
    return j >= 0 && (k >> 6) < bits_.size() && ((bits_[k >> 6] >> (k & 63)) & 1U) != 0;
  }
  std::size_t count(JobIndex j) const { return contains(j) ? 1 : 0; }
  /// The largest index in the set; the set must not be empty.
  JobIndex back() const { return static_cast<JobIndex>(prev_before(kEnd)); }

  /// Adds j (>= 0); false when it was there already.
  bool insert(JobIndex j) {
    const auto k = static_cast<std::size_t>(j);
    if ((k >> 6) >= bits_.size()) reserve_indices(k + 1);
    std::uint64_t& word = bits_[k >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (k & 63);
    if ((word & bit) != 0) return false;
    word |= bit;
    const std::size_t s = k >> 12;
    summary_[s] |= std::uint64_t{1} << ((k >> 6) & 63);
    if (lo_ == hi_) {
      lo_ = s;
      hi_ = s + 1;
    } else {
      lo_ = std::min(lo_, s);
      hi_ = std::max(hi_, s + 1);
    }
    ++size_;
    return true;
  }
  /// Removes j; the number removed (0 or 1), as std::set::erase.
  std::size_t erase(JobIndex j) {
    if (!contains(j)) return 0;
    const auto k = static_cast<std::size_t>(j);
    std::uint64_t& word = bits_[k >> 6];
    word &= ~(std::uint64_t{1} << (k & 63));
    const std::size_t s = k >> 12;
    if (word == 0 && (summary_[s] &= ~(std::uint64_t{1} << ((k >> 6) & 63))) == 0) {
      // Shrink the span of non-empty summary words from the end that emptied.
      while (lo_ < hi_ && summary_[lo_] == 0) ++lo_;
      while (lo_ < hi_ && summary_[hi_ - 1] == 0) --hi_;
      if (lo_ == hi_) lo_ = hi_ = 0;
    }
    --size_;
    return 1;
  }
  void clear() {
    std::fill(bits_.begin(), bits_.end(), 0);
    std::fill(summary_.begin(), summary_.end(), 0);
    size_ = lo_ = hi_ = 0;
  }

 private:
  static constexpr std::size_t kEnd = std::numeric_limits<std::size_t>::max();

  void reserve_indices(std::size_t capacity) {
    const std::size_t words = (capacity + 63) / 64;
    if (words > bits_.size()) bits_.resize(words, 0);
    const std::size_t summary_words = (bits_.size() + 63) / 64;
    if (summary_words > summary_.size()) summary_.resize(summary_words, 0);
  }
  // Members of pos's word above pos (none for kEnd).
  std::uint64_t members_above(std::size_t pos) const {
    if (pos == kEnd) return 0;
    return bits_[pos >> 6] & ((~std::uint64_t{0} << (pos & 63)) << 1);
  }
  // Moves `it` from the last member of its word to the first member of a later word (or end()).
  void to_next_word(const_iterator& it) const {
    const std::size_t w = (it.pos_ >> 6) + 1;
    std::size_t s = w >> 6;
    const std::size_t summary_words = hi_;  // none beyond
    std::uint64_t words = s < summary_words ? summary_[s] & (~std::uint64_t{0} << (w & 63)) : 0;
    while (words == 0) {
      if (++s >= summary_words) {
        it.pos_ = kEnd;
        it.rest_ = 0;
        return;
      }
      words = summary_[s];
    }
    const std::size_t next = (s << 6) + static_cast<std::size_t>(std::countr_zero(words));
    const std::uint64_t members = bits_[next];  // not 0: its summary bit is set
    it.pos_ = (next << 6) + static_cast<std::size_t>(std::countr_zero(members));
    it.rest_ = members & (members - 1);
  }
  // First member >= i, else kEnd.
  std::size_t next_from(std::size_t i) const {
    std::size_t w = i >> 6;
    if (i == kEnd || w >= bits_.size()) return kEnd;
    if (const std::uint64_t word = bits_[w] & (~std::uint64_t{0} << (i & 63)); word != 0)
      return (w << 6) + static_cast<std::size_t>(std::countr_zero(word));
    // The next non-empty word, found through the summary (64 words per summary word).
    for (std::size_t sw = w + 1; (sw >> 6) < hi_; sw = ((sw >> 6) + 1) << 6) {
      if (const std::uint64_t s = summary_[sw >> 6] & (~std::uint64_t{0} << (sw & 63)); s != 0) {
        w = ((sw >> 6) << 6) + static_cast<std::size_t>(std::countr_zero(s));
        return (w << 6) + static_cast<std::size_t>(std::countr_zero(bits_[w]));
      }
    }
    return kEnd;
  }
  // Last member < i (i = kEnd: the last member), else kEnd (decrementing begin() is undefined).
  std::size_t prev_before(std::size_t i) const {
    if (i > bits_.size() * 64) i = bits_.size() * 64;
    if (i == 0) return kEnd;
    std::size_t w = (i - 1) >> 6;
    const unsigned keep = static_cast<unsigned>((i - 1) & 63) + 1;  // bits 0 .. keep-1 of word w
    const std::uint64_t mask = keep == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << keep) - 1;
    if (const std::uint64_t word = bits_[w] & mask; word != 0)
      return (w << 6) + 63 - static_cast<std::size_t>(std::countl_zero(word));
    while (w > 0) {
      const std::size_t sw = w - 1;  // the previous word's summary bit and below
      const unsigned below = static_cast<unsigned>(sw & 63) + 1;
      const std::uint64_t smask = below == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << below) - 1;
      if (const std::uint64_t s = summary_[sw >> 6] & smask; s != 0) {
        w = ((sw >> 6) << 6) + 63 - static_cast<std::size_t>(std::countl_zero(s));
        return (w << 6) + 63 - static_cast<std::size_t>(std::countl_zero(bits_[w]));
      }
      w = (sw >> 6) << 6;  // nothing at or below sw in its summary word: go below that word
    }
    return kEnd;
  }

  std::vector<std::uint64_t> bits_;     // bit k & 63 of word k >> 6: index k is a member
  std::vector<std::uint64_t> summary_;  // bit w & 63 of word w >> 6: bits_[w] != 0
  std::size_t size_ = 0;
  // Summary words [lo_, hi_) hold every member (lo_ = hi_ = 0 when empty): a small set of recent
  // jobs in a large run (srsf's ten running jobs among 30,000) is walked without scanning the
  // empty summary words around it (issue 19).
  std::size_t lo_ = 0, hi_ = 0;
};

}  // namespace hetsim
