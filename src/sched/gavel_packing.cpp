// Space sharing in the round mechanism: Gavel's packed policies (Narayanan et al., OSDI'20,
// section 3.1; stanford-futuredata/gavel scheduler/scheduler.py with a 'Packing' policy:
// _populate_job_combination_metadata, _add_to_priorities, _remove_job, the JobIdPair branches of
// _schedule_jobs_on_workers_helper, _get_job_steps_and_finish_times and _done_callback),
// re-implemented. Only used when the policy's packing() is true; every other run takes the
// unpacked code of gavel_mechanism.cpp, unchanged.
//  - A job pair is a combination with its own priority key (workload size + slot): created when
//    the later job joins, for every active job with the same scale factor for which the
//    throughput model has a pair rate on some type (Gavel creates one per same-scale-factor pair
//    and reads its rates from the table); its time starts at 0 on every type (a job's at half a
//    round); it is dropped, with its X row, when either job completes.
//  - Each round, combinations (jobs and pairs) are taken by (priority, deficit, x) per type as
//    jobs are; a pair is skipped when either job is already taken or either pair rate on the
//    type is 0; it needs its scale factor's GPUs once.
//  - A scheduled pair runs on one set of GPUs. The first job (lower index, Gavel's job0) owns them
//    in the cluster state; the second shares them (JobTable::start_shared). Each runs its own
//    whole steps at its pair rate; the pair finishes when the slower one does, and, as in Gavel's
//    simulator, a job of the pair that completes in the round completes at that time (Gavel sets
//    both jobs' latest timestamp to the pair's finish). The pair's run time (that finish minus the
//    round start) is added to the pair's key for the priorities, not to its jobs' keys.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "hetsim/sched/gavel_mechanism.hpp"

namespace hetsim {

const std::vector<double>& GavelMechanism::combo_throughput(JobIndex key) {
  return is_pair_key(key) ? pair_of(key).usable : throughput_[static_cast<std::size_t>(key)];
}

int GavelMechanism::combo_gpus(JobIndex key) const {
  const JobIndex j = is_pair_key(key) ? pairs_[static_cast<std::size_t>(key) - workload_.jobs.size()].first : key;
  return table_.job(j).spec->requested_gpus;
}

// Pairs of job j with every earlier active job of its scale factor that the model has rates for.
void GavelMechanism::add_pairs_of(JobIndex j) {
  const JobSpec& spec = *table_.job(j).spec;
  const int sf = spec.requested_gpus;
  const std::size_t types = cluster_.gpu_types().size();
  for (JobIndex i : active_) {
    if (i == j || table_.job(i).spec->requested_gpus != sf) continue;
    PairCombo pair{std::min(i, j), std::max(i, j), std::vector<double>(types, 0.0), std::vector<double>(types, 0.0),
                   std::vector<double>(types, 0.0)};
    bool listed = false;
    for (std::size_t t = 0; t < types; ++t) {
      const auto type = static_cast<GpuTypeId>(t);
      if (cluster_.gpus_of_type(type) < sf) continue;
      auto rates = model_.pair_rates(*table_.job(pair.first).spec, *table_.job(pair.second).spec, type, sf);
      if (!rates) continue;
      listed = true;
      pair.first_rate[t] = rates->first;
      pair.second_rate[t] = rates->second;
      pair.usable[t] = rates->first > 0.0 && rates->second > 0.0 ? 1.0 : 0.0;
    }
    if (!listed) continue;
    std::size_t slot = pairs_.size();
    if (!free_slots_.empty()) {
      auto smallest = std::min_element(free_slots_.begin(), free_slots_.end());
      slot = *smallest;
      free_slots_.erase(smallest);
    } else {
      pairs_.emplace_back();
      previous_.resize(workload_.jobs.size() + pairs_.size(), nullptr);
    }
    pairs_[slot] = std::move(pair);
    const auto key = static_cast<JobIndex>(workload_.jobs.size() + slot);
    pair_key_[{pairs_[slot].first, pairs_[slot].second}] = key;
    priorities_.add_job(key, 0.0);
  }
}

// Job j completed: it leaves the priorities with every pair holding it (Gavel's _remove_job).
void GavelMechanism::remove_job_and_pairs(JobIndex j) {
  active_.erase(j);
  priorities_.remove_job(j);
  for (auto it = pair_key_.begin(); it != pair_key_.end();) {
    if (it->first.first != j && it->first.second != j) {
      ++it;
      continue;
    }
    // The partner, if it still runs under this key (until the round ends), no longer matches any
    // placement: the key may be given to a new pair before the next round is placed.
    for (JobIndex member : {it->first.first, it->first.second})
      if (running_as_[static_cast<std::size_t>(member)] == it->second) running_as_[static_cast<std::size_t>(member)] = -2;
    priorities_.remove_job(it->second);
    allocation_.erase(it->second);
    free_slots_.push_back(static_cast<std::size_t>(it->second) - workload_.jobs.size());
    it = pair_key_.erase(it);
  }
  need_update_ = true;
}

// The view's pairs: every pair of active jobs, rows in view.jobs order.
void GavelMechanism::fill_pairs(AllocationView& view) {
  std::map<JobIndex, std::size_t> row;
  for (std::size_t i = 0; i < view.jobs.size(); ++i) row[view.jobs[i].job] = i;
  for (const auto& [members, key] : pair_key_) {
    const PairCombo& pair = pair_of(key);
    view.pairs.push_back({row.at(members.first), row.at(members.second), pair.first_rate, pair.second_rate});
  }
}

// X rows of the pairs (entries clipped to [0, 1], 0 where the pair cannot run).
void GavelMechanism::read_pair_allocation(const AllocationView& view, AllocationResult& r) {
  if (r.pair_x.size() != view.pairs.size()) return;  // no pair rows: no pair runs
  std::size_t k = 0;
  for (const auto& [members, key] : pair_key_) {
    std::vector<double> x = r.pair_x[k++];
    const PairCombo& pair = pair_of(key);
    for (std::size_t t = 0; t < x.size(); ++t)
      x[t] = pair.usable[t] > 0.0 && std::isfinite(x[t]) ? std::clamp(x[t], 0.0, 1.0) : 0.0;
    allocation_[key] = std::move(x);
  }
}

// Gavel's _schedule_jobs_on_workers_helper over combinations: per type in `order`, keys by
// (priority, deficit, x) descending; a key is scheduled on the first type where it fits, none of
// its jobs is taken, and it can run.
std::vector<RoundChoice>& GavelMechanism::choose_combos(const std::vector<std::size_t>& order) {
  const std::size_t types = cluster_.gpu_types().size();
  std::vector<int> left(types);
  for (std::size_t t = 0; t < types; ++t) left[t] = cluster_.gpus_of_type(static_cast<GpuTypeId>(t));
  struct Entry {
    JobIndex key;
    std::size_t type;
    double priority, deficit, x;
  };
  std::vector<std::vector<Entry>> per_type(types);
  std::vector<double> priority, deficit;
  for (JobIndex key : priorities_.order()) {
    auto a = allocation_.find(key);
    const std::vector<double>* x = a == allocation_.end() ? nullptr : &a->second;
    priorities_.priorities_of(key, x, combo_throughput(key), priority, deficit);
    for (std::size_t t = 0; t < types; ++t) per_type[t].push_back({key, t, priority[t], deficit[t], x ? (*x)[t] : 0.0});
  }
  std::vector<char>& taken = taken_in_round_;
  chosen_.resize(types);
  for (auto& list : chosen_) list.clear();
  std::vector<JobIndex> marked;
  for (std::size_t t : order) {
    std::stable_sort(per_type[t].begin(), per_type[t].end(), [](const Entry& a, const Entry& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.deficit != b.deficit) return a.deficit > b.deficit;
      return a.x > b.x;
    });
    for (const Entry& e : per_type[t]) {
      if (left[t] == 0) break;
      JobIndex first = e.key, second = -1;
      if (is_pair_key(e.key)) std::tie(first, second) = std::pair{pair_of(e.key).first, pair_of(e.key).second};
      if (taken[static_cast<std::size_t>(first)] || (second >= 0 && taken[static_cast<std::size_t>(second)])) continue;
      if (!(combo_throughput(e.key)[t] > 0.0)) continue;
      if (policy_.skip_zero_priority() && e.priority <= 0.0) continue;
      const int sf = combo_gpus(e.key);
      if (sf > left[t]) continue;
      left[t] -= sf;
      for (JobIndex j : {first, second})
        if (j >= 0) {
          taken[static_cast<std::size_t>(j)] = 1;
          marked.push_back(j);
        }
      chosen_[t].push_back({e.key, sf});
    }
  }
  for (JobIndex j : marked) taken[static_cast<std::size_t>(j)] = 0;
  return chosen_;
}

// previous_[key]: the GPUs each combination ran on last round (a pair's are its first job's).
void GavelMechanism::set_previous_packed(bool set) {
  for (JobIndex j : table_.running()) {
    const JobIndex key = running_as_[static_cast<std::size_t>(j)];
    if (key < 0 || host_of_[static_cast<std::size_t>(j)] >= 0) continue;  // sharers: with their host
    previous_[static_cast<std::size_t>(key)] = set ? &table_.job(j).gpus : nullptr;
  }
}

// Sharers first (their host's GPUs must outlive them), then hosts and single jobs: a job keeps
// running when it runs under the same key on the same GPUs; the others stop, then start.
void GavelMechanism::apply_placements_packed(const std::vector<const RoundPlacement*>& next) {
  running_copy_.assign(table_.running().begin(), table_.running().end());
  for (int pass = 0; pass < 2; ++pass)
    for (JobIndex j : running_copy_) {
      const auto k = static_cast<std::size_t>(j);
      const bool sharer = host_of_[k] >= 0;
      if (sharer != (pass == 0) || table_.job(j).status != JobStatus::Running) continue;
      const std::vector<GpuId>* nx = placement_.find(running_as_[k]);
      if (nx != nullptr && *nx == table_.job(j).gpus) continue;
      const StopReason why = nx != nullptr ? StopReason::Moved : StopReason::Preempted;
      if (sharer)
        table_.stop_shared(j, host_of_[k], sim_.now(), why);
      else
        table_.stop(j, sim_.now(), why);
      running_as_[k] = host_of_[k] = -1;
    }
  for (const RoundPlacement* p : next) {
    const auto t = static_cast<std::size_t>(cluster_.type_of(p->gpus.front()));
    if (!is_pair_key(p->job)) {
      if (table_.job(p->job).status == JobStatus::Running) continue;
      ++placement_changes_[static_cast<std::size_t>(p->job)];
      table_.start(p->job, p->gpus, throughput_[static_cast<std::size_t>(p->job)][t], sim_.now());
      running_as_[static_cast<std::size_t>(p->job)] = p->job;
      continue;
    }
    const PairCombo& pair = pair_of(p->job);
    if (table_.job(pair.first).status != JobStatus::Running) {
      ++placement_changes_[static_cast<std::size_t>(pair.first)];
      table_.start(pair.first, p->gpus, pair.first_rate[t], sim_.now());
      running_as_[static_cast<std::size_t>(pair.first)] = p->job;
    }
    if (table_.job(pair.second).status != JobStatus::Running) {
      ++placement_changes_[static_cast<std::size_t>(pair.second)];
      table_.start_shared(pair.second, pair.first, pair.second_rate[t], sim_.now());
      running_as_[static_cast<std::size_t>(pair.second)] = p->job;
      host_of_[static_cast<std::size_t>(pair.second)] = pair.first;
    }
  }
}

// Gavel's whole steps of `job` at `rate` in this round after its restart overhead (as dispatch()).
double GavelMechanism::steps_in_round(const JobRuntime& job, double rate, double& overhead_s) const {
  const SimTime now = sim_.now();
  overhead_s = job.resume_at > now ? std::min((job.resume_at - now).seconds(), config_.round_s) : 0.0;
  double steps = std::floor(rate * (config_.round_s - overhead_s));
  if (steps < 1.0) steps = rate * (config_.round_s - overhead_s);
  return std::min(steps, job.remaining_work);
}

// Both jobs of a pair run their own steps at their pair rates; the pair ends with the slower one,
// and each job completing in this round completes then (Gavel's pair finish time).
void GavelMechanism::dispatch_pair(JobIndex key) {
  const PairCombo& pair = pair_of(key);
  JobRuntime& a = table_.job(pair.first);
  JobRuntime& b = table_.job(pair.second);
  const auto t = static_cast<std::size_t>(a.gpu_type);
  double overhead_a = 0.0, overhead_b = 0.0;
  const double steps_a = steps_in_round(a, pair.first_rate[t], overhead_a);
  const double steps_b = steps_in_round(b, pair.second_rate[t], overhead_b);
  const double length_s = std::max(overhead_a + steps_a / pair.first_rate[t], overhead_b + steps_b / pair.second_rate[t]);
  const double offset_us = now_frac_us_ + length_s * 1e6;
  const double whole_us = std::round(offset_us);
  const SimTime finish = sim_.now() + SimTime::from_us(static_cast<std::int64_t>(whole_us));
  Dispatch d{pair.first, t, steps_a, finish, offset_us - whole_us, gavel_s_ + length_s};
  d.key = key;
  d.partner = pair.second;
  d.partner_steps = steps_b;
  dispatched_.push_back(d);
  if (steps_a >= a.remaining_work) sim_.schedule(finish, EventClass::Completion, pair.first, a.generation);
  if (steps_b >= b.remaining_work) sim_.schedule(finish, EventClass::Completion, pair.second, b.generation);
}

// Round end with combinations: progress of every job that ran, the run time to the key it ran
// under, then completed jobs leave with their pairs.
void GavelMechanism::end_round_packed() {
  for (const Dispatch& d : dispatched_) {
    for (auto [j, steps] : {std::pair{d.job, d.steps}, std::pair{d.partner, d.partner_steps}}) {
      if (j < 0) continue;
      JobRuntime& job = table_.job(j);
      job.remaining_work = std::max(0.0, job.remaining_work - steps);
      job.work_done = job.spec->work - job.remaining_work;
    }
    priorities_.record_run(d.key >= 0 ? d.key : d.job, d.type, d.gavel_finish_s - gavel_round_start_s_);
    for (JobIndex j : {d.job, d.partner})
      if (j >= 0 && table_.job(j).status == JobStatus::Completed && active_.count(j)) remove_job_and_pairs(j);
  }
  dispatched_.clear();
}

// Ends every sharing before the table stops the remaining jobs (horizon, no progress possible).
void GavelMechanism::stop_sharers(SimTime now, StopReason why) {
  running_copy_.assign(table_.running().begin(), table_.running().end());
  for (JobIndex j : running_copy_) {
    const auto k = static_cast<std::size_t>(j);
    if (host_of_[k] < 0) continue;
    table_.stop_shared(j, host_of_[k], now, why);
    running_as_[k] = host_of_[k] = -1;
  }
}

}  // namespace hetsim
