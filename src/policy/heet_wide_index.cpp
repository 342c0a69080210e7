// The heet policy's waiting jobs kept in claim order (heet_wide.hpp, issue 19: per-round work
// proportional to what changed). A waiting job's remaining work does not change, so its claim
// (wide: its weight spanning hosts; narrow: its weight on a slot of the round's size) does not
// either: the ordered lists change only for the jobs in ctx.changed() (every arrival, start, stop
// and end), and a round walks the running jobs and reads the waiting ones in order only as far as
// the admission of wide jobs and the matching go. Only on a cluster with one GPU type (the ITP
// clusters, where rounds carry thousands of waiting jobs): there a narrow job's claim and its
// matching weight in heet_plan are the same number, so one order serves both. Decisions are the
// unindexed path's (heet_wide.cpp), which the tests and the byte-identical runs check.
#include <algorithm>
#include <cmath>
#include <limits>

#include "heet_wide.hpp"
#include "hetsim/policy/heet_plan.hpp"

namespace hetsim {

HeetWidePlacer::Entry HeetWidePlacer::entry_of(const PolicyView& ctx, JobIndex j, const TableOf& table, int s) {
  const double remaining = ctx.remaining_work(j);
  const int requested = ctx.job(j).spec->requested_gpus;
  if (classify(ctx, j, table, remaining, largest_)) return {memo(j).wide_best, j, requested, true};
  return {claim_at(ctx, j, table, remaining, s), j, requested, false};
}

HeetWidePlacer::Level& HeetWidePlacer::level(const PolicyView& ctx, const TableOf& table, int s) {
  for (Level& l : levels_)
    if (l.slot == s) return l;
  Level l;  // first round at this slot size: every waiting job's claim, sorted once
  l.slot = s;
  l.key_of.assign(waiting_.size(), 0.0);
  for (JobIndex j : ctx.pending()) {
    const Entry e = entry_of(ctx, j, table, s);
    l.sorted.insert(e);
    l.key_of[static_cast<std::size_t>(j)] = e.key;
  }
  levels_.push_back(std::move(l));
  return levels_.back();
}

void HeetWidePlacer::add_waiting(const PolicyView& ctx, const TableOf& table, JobIndex j) {
  const auto k = static_cast<std::size_t>(j);
  if (waiting_.size() <= k) {
    waiting_.resize(k + 1, 0);
    waiting_wide_.resize(k + 1, 0);
    waiting_tie_.resize(k + 1, 0);
  }
  if (waiting_[k]) return;
  waiting_[k] = 1;
  ++waiting_count_;
  for (Level& l : levels_) {
    const Entry e = entry_of(ctx, j, table, l.slot);
    l.sorted.insert(e);
    if (l.key_of.size() <= k) l.key_of.resize(k + 1, 0.0);
    l.key_of[k] = e.key;
  }
  // Classified at its remaining work (entry_of did when a list exists; idempotent by the memo).
  waiting_wide_[k] = classify(ctx, j, table, ctx.remaining_work(j), largest_) ? 1 : 0;
  waiting_tie_[k] = memo(j).near_tie ? 1 : 0;
  wide_waiting_ += waiting_wide_[k];
  ties_waiting_ += waiting_tie_[k];
}

void HeetWidePlacer::remove_waiting(JobIndex j) {
  const auto k = static_cast<std::size_t>(j);
  if (k >= waiting_.size() || !waiting_[k]) return;
  waiting_[k] = 0;
  --waiting_count_;
  wide_waiting_ -= waiting_wide_[k];
  ties_waiting_ -= waiting_tie_[k];
  waiting_wide_[k] = waiting_tie_[k] = 0;
  for (Level& l : levels_) {
    const Entry probe{l.key_of[k], j, 0, false};
    const auto it = l.sorted.find(probe);
    if (it == l.sorted.end()) {
      synced_ = false;  // cannot happen; if it did, sync rebuilds every list this pass
      return;
    }
    l.sorted.erase(it);
  }
}

void HeetWidePlacer::sync(const PolicyView& ctx, const TableOf& table) {
  if (ctx.cluster().gpu_types().size() != 1) {
    synced_ = false;
    return;
  }
  largest_ = largest_host(ctx.cluster());
  if (synced_) {
    for (JobIndex j : ctx.changed()) remove_waiting(j);
    for (JobIndex j : ctx.changed())
      if (ctx.job(j).status == JobStatus::Pending) add_waiting(ctx, table, j);
  }
  // First pass, or a view whose changes do not account for the waiting set: rebuild.
  if (!synced_ || waiting_count_ != ctx.pending().size()) {
    waiting_.assign(waiting_.size(), 0);
    waiting_wide_.assign(waiting_wide_.size(), 0);
    waiting_tie_.assign(waiting_tie_.size(), 0);
    waiting_count_ = wide_waiting_ = ties_waiting_ = 0;
    levels_.clear();
    for (JobIndex j : ctx.pending()) add_waiting(ctx, table, j);
    synced_ = true;
  }
}

// admit_by_weight (heet_wide.cpp) with the same claims in the same order: the running jobs'
// claims are computed and sorted, the waiting ones merged in from the ordered list; the walk stops
// where the unindexed one does. For the steadiness check (admission_steady) every running claim
// counts, and the waiting narrow claims before each admitted job are those the walk passed.
std::vector<std::pair<double, JobIndex>> HeetWidePlacer::admit_indexed(const PolicyView& ctx,
                                                                       const std::vector<JobIndex>& active,
                                                                       const TableOf& table, std::vector<char>& held,
                                                                       int capacity, bool& stable) {
  running_narrow_.clear();
  std::vector<std::pair<double, JobIndex>> wide_running;
  for (JobIndex j : ctx.running()) {
    const JobRuntime& rt = ctx.job(j);
    const double remaining = ctx.remaining_work(j);
    const bool is_wide = classify(ctx, j, table, remaining, largest_);
    if (memo(j).near_tie) stable = false;
    if (!is_wide) {
      running_narrow_.push_back({j, remaining});
      continue;
    }
    wide_running.push_back({memo(j).wide_best, j});
    for (GpuId g : rt.gpus) held[static_cast<std::size_t>(g)] = 1;
  }
  if (ties_waiting_ > 0) stable = false;
  const std::size_t wide_count = wide_running.size() + wide_waiting_;
  narrow_count_ = active.size() - wide_count;
  if (wide_count == 0) return {};
  const int s = heet_slot_size(capacity, active.size(), largest_);
  const Level& l = level(ctx, table, s);
  std::vector<HeetWideClaim> fresh;
  long running_gpus = 0;
  for (const auto& [weight, j] : wide_running) fresh.push_back({weight, j, ctx.job(j).spec->requested_gpus, true, true});
  for (const auto& [j, remaining] : running_narrow_) fresh.push_back({claim_at(ctx, j, table, remaining, s), j, s, false, true});
  for (const HeetWideClaim& c : fresh) running_gpus += c.gpus;
  std::sort(fresh.begin(), fresh.end());
  const std::size_t read = std::min(active.size(), static_cast<std::size_t>(capacity) + wide_count);
  std::vector<std::pair<double, JobIndex>> admitted;
  std::vector<long> waiting_before;  // waiting narrow GPUs before each admitted job
  auto a = l.sorted.begin();
  std::size_t b = 0;
  int used = 0;
  long waiting = 0;
  for (std::size_t k = 0; k < read && used < capacity; ++k) {
    HeetWideClaim c;
    const bool from_list = b == fresh.size() ||
                           (a != l.sorted.end() && (a->key < fresh[b].weight ||
                                                    (!(fresh[b].weight < a->key) && a->job < fresh[b].job)));
    if (from_list) {
      const Entry& e = *a++;
      c = {e.key, e.job, e.wide ? e.requested : s, e.wide, false};
    } else {
      c = fresh[b++];
    }
    if (c.wide && used + c.gpus <= capacity) {
      admitted.push_back({c.weight, c.job});
      waiting_before.push_back(waiting);
    }
    if (!c.wide || used + c.gpus <= capacity) used += c.gpus;
    if (!c.wide && !c.running) waiting += c.gpus;
  }
  for (std::size_t k = 0; k < admitted.size() && stable; ++k)
    stable = ctx.job(admitted[k].second).status == JobStatus::Running && running_gpus + waiting_before[k] <= capacity;
  return admitted;
}

std::vector<JobIndex> HeetWidePlacer::cheapest_narrow(const PolicyView& ctx, const TableOf& table, int s,
                                                      std::size_t count) {
  const Level& l = level(ctx, table, s);
  std::vector<std::pair<double, JobIndex>> fresh;
  for (const auto& [j, remaining] : running_narrow_) fresh.push_back({claim_at(ctx, j, table, remaining, s), j});
  std::sort(fresh.begin(), fresh.end());
  std::vector<JobIndex> out;
  auto a = l.sorted.begin();
  std::size_t b = 0;
  while (out.size() < count) {
    while (a != l.sorted.end() && a->wide) ++a;  // wide jobs are not the plan's
    const bool list_left = a != l.sorted.end(), fresh_left = b < fresh.size();
    if (!list_left && !fresh_left) break;
    const bool from_list = !fresh_left || (list_left && (a->key < fresh[b].first ||
                                                         (!(fresh[b].first < a->key) && a->job < fresh[b].second)));
    const double key = from_list ? a->key : fresh[b].first;
    if (!std::isfinite(key)) break;  // ascending: every later one is infinite too
    out.push_back(from_list ? (a++)->job : fresh[b++].second);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<JobIndex> HeetWidePlacer::narrow_jobs(const std::vector<JobIndex>& active) const {
  std::vector<JobIndex> out;
  for (JobIndex j : active) {
    const Memo& m = memo_[static_cast<std::size_t>(j)];  // classified this pass (running) or while waiting
    if (!(m.wide == 1 && m.wide_best != std::numeric_limits<double>::infinity())) out.push_back(j);
  }
  return out;
}

}  // namespace hetsim
