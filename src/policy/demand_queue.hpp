#pragma once
// Waiting jobs of a greedy-fill policy (private to src/policy/), kept ordered between passes and
// grouped by GPU demand, so that a pass costs what it hands out, not the backlog (issue 11): a
// pass walks the jobs in key order but only among the demands that still fit somewhere, merging
// one ordered set per GPU count. A job whose demand exceeds every type's unpromised GPUs is never
// visited; the greedy fill would have skipped it anyway, and free capacity only shrinks during a
// pass. srtf keys by remaining time, tiresias by queue position.
#include <cstddef>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "hetsim/workload/job_state.hpp"

namespace hetsim::policy_detail {

template <class Key>
class DemandQueue {
 public:
  using Entry = std::pair<Key, JobIndex>;

  void insert(int gpus, const Entry& e) { size_ += by_gpus_[gpus].insert(e).second ? 1 : 0; }
  void erase(int gpus, const Entry& e) {
    auto it = by_gpus_.find(gpus);
    if (it == by_gpus_.end()) return;
    size_ -= it->second.erase(e);
    if (it->second.empty()) by_gpus_.erase(it);
  }
  std::size_t size() const { return size_; }

  /// Walks the entries in key order, among demands of at most `limit` GPUs; the limit may only
  /// shrink between calls. Entries must not be inserted or erased while a cursor is in use.
  class Cursor {
   public:
    explicit Cursor(const DemandQueue& q) {
      for (const auto& [gpus, set] : q.by_gpus_) heads_.push_back({gpus, set.begin(), set.end()});
    }
    /// The smallest entry left with a demand <= limit and its demand, or nullptr.
    const Entry* peek(int limit, int* gpus = nullptr) {
      best_ = kNone;
      for (std::size_t k = 0; k < heads_.size() && heads_[k].gpus <= limit; ++k) {
        if (heads_[k].it == heads_[k].end) continue;
        if (best_ == kNone || *heads_[k].it < *heads_[best_].it) best_ = k;
      }
      if (best_ == kNone) return nullptr;
      if (gpus) *gpus = heads_[best_].gpus;
      return &*heads_[best_].it;
    }
    /// Moves past the entry the last peek() returned.
    void pop() { ++heads_[best_].it; }

   private:
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    struct Head {
      int gpus;
      typename std::set<Entry>::const_iterator it, end;
    };
    std::vector<Head> heads_;  // ascending demand
    std::size_t best_ = kNone;
  };

 private:
  std::map<int, std::set<Entry>> by_gpus_;
  std::size_t size_ = 0;
};

}  // namespace hetsim::policy_detail
