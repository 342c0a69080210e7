// Gavel's round-based time-sharing mechanism with Gavel's simulator semantics
// (Narayanan et al., OSDI'20; stanford-futuredata/gavel, scheduler/scheduler.py simulate(),
// _update_priorities, _schedule_jobs_on_workers[_helper], _assign_workers_to_job,
// _get_job_steps_and_finish_times, _done_callback), re-implemented:
//  - A round starts when the previous one ends. Each scheduled job runs
//    min(floor(T * round_s), remaining) steps at its throughput T on its type (Gavel's integer
//    steps), so it finishes at start + steps / T; the round ends when the last of them finishes
//    (normally just under round_s, earlier when every scheduled job completes). GPUs of a job that
//    completes mid-round stay idle until the round ends. A job's JCT ends at its own finish time.
//  - Jobs that arrive during a round join at its end; after an idle period the next round starts
//    at the next arrival.
//  - X is recomputed when the set of active jobs changed and at least min_reset_interval_s passed
//    since the last reset (or no reset happened yet at time > 0, Gavel's `_last_reset_time == 0`
//    test); the reset also restarts the per-type time accounting (GavelPriorities).
//  - Each round, per GPU type (v100, p100, k80 first, as Gavel hard-codes; other types after, in
//    cluster order; shuffled every round for policies that are not heterogeneity-aware), jobs are
//    taken by (priority, deficit, x) descending; a job is scheduled on the first type where it
//    fits, has non-zero throughput and, for FIFO, positive priority.
//  - Placement as Gavel: per type, jobs by scale factor descending; a job keeps last round's GPUs
//    when none was taken yet; others get GPUs walking servers in order. Progress rates are the
//    consolidated table rates whatever the placement (Gavel's simulator does the same).
//  - Restart overhead (hetsim addition, 0 by default; the job's own value, else the run's): charged
//    by the JobTable when a job starts on new GPUs, the same as under the event mechanism; no
//    progress until it is paid, which may take several rounds.
//  - Time is the engine's: every event (arrival, start, completion, round end) is at an integer
//    microsecond, so rounds do not drift at large offsets. A round's length is rarely a whole
//    number of microseconds, so the sub-microsecond remainder of its end is carried into the next
//    round (rounding does not add up over 10^5 rounds). Gavel's priorities,
//    though, compare run times that Gavel sums in doubles, and its ties depend on that rounding:
//    the priority accounting repeats Gavel's double sums (gavel_s_), never the event times.
//  - Gavel's accounting of a job's run time for priorities uses finish - previous round end, which
//    after an idle gap includes the gap; hetsim keeps that so priorities match.
#include "hetsim/sched/gavel_mechanism.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace hetsim {

GavelMechanism::GavelMechanism(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                               AllocationPolicy& policy, GavelConfig config, std::vector<JobEventSink*> sinks)
    : cluster_(cluster),
      workload_(workload),
      model_(model),
      policy_(policy),
      config_(config),
      table_(cluster, workload, model,
             LifecycleConfig{config.restart_overhead_s, 0.0, config.check_invariants, ProgressKind::WholeSteps},
             std::move(sinks)),
      priorities_(cluster.gpu_types().size(), config.round_s),
      shuffler_(config.seed + 5),
      placement_(cluster) {
  const std::size_t n = workload_.jobs.size(), types = cluster_.gpu_types().size();
  previous_.assign(n, nullptr);
  throughput_.assign(n, std::vector<double>(types, 0.0));
  placement_changes_.assign(n, 0);
  x_row_.assign(n, nullptr);
  taken_in_round_.assign(n, 0);
  for (const char* name : {"v100", "p100", "k80"})
    if (auto t = cluster_.find_gpu_type(name)) base_type_order_.push_back(static_cast<std::size_t>(*t));
  for (std::size_t t = 0; t < types; ++t)
    if (std::find(base_type_order_.begin(), base_type_order_.end(), t) == base_type_order_.end())
      base_type_order_.push_back(t);
  packing_ = policy_.packing();
  if (packing_) {
    running_as_.assign(n, -1);
    host_of_.assign(n, -1);
  }
}

MechanismStats GavelMechanism::run() {
  // Arrivals are fed from the sorted workload one at a time (each schedules the next).
  if (!workload_.jobs.empty()) sim_.schedule(workload_.jobs.front().submit, EventClass::Arrival, 0);
  if (config_.until_s) sim_.schedule(SimTime::from_seconds(*config_.until_s), EventClass::End);
  sim_.run(*this);
  table_.stats().events = solver_.rounds;
  table_.end_run(sim_.now());
  return table_.stats();
}

void GavelMechanism::handle(const Event& event) {
  if (event.cls != EventClass::Arrival) table_.settle(sim_.now());  // an arrival settles by its Arrived event
  switch (event.cls) {
    case EventClass::Arrival: on_arrival(event.target); break;
    case EventClass::Completion: on_completion(event.target, event.tag); break;
    case EventClass::RoundTick: on_round_tick(); break;
    case EventClass::End: {
      EndOfRun end{StopReason::Horizon, "not finished at the --until horizon", "not finished at the --until horizon"};
      if (packing_) stop_sharers(sim_.now(), StopReason::Horizon);
      table_.end_unfinished(sim_.now(), end, [](JobRuntime&) {});  // a cut round's steps are not counted
      sim_.stop();
      return;
    }
    case EventClass::SchedulePass: break;
  }
  // The run ends with the round in which the last job finished (Gavel's loop ends there too).
  if (table_.all_final() && !tick_pending_) sim_.stop();
}

void GavelMechanism::on_arrival(JobIndex j) {
  const auto next = static_cast<std::size_t>(j) + 1;
  if (next < workload_.jobs.size())
    sim_.schedule(workload_.jobs[next].submit, EventClass::Arrival, static_cast<std::int64_t>(next));
  arrived_upto_ = next;
  auto policy_admission = [this](const JobSpec& spec) { return policy_.reject_at_arrival(spec); };
  if (table_.arrive(j, sim_.now(), policy_admission) != Admission::Pending) {
    // The last arrival turned away while joined jobs wait with no round pending: a round now lets
    // the end-of-arrivals rule (recompute once, else report them unfinished) see them; nothing
    // else would wake the mechanism, and they would end the run with no final event.
    if (next == workload_.jobs.size() && !active_.empty()) request_round();
    return;
  }
  const JobSpec& spec = *table_.job(j).spec;
  const int sf = spec.requested_gpus;
  for (std::size_t t = 0; t < throughput_[0].size(); ++t) {
    auto type = static_cast<GpuTypeId>(t);
    if (cluster_.gpus_of_type(type) < sf) continue;
    throughput_[static_cast<std::size_t>(j)][t] =
        model_.rate(spec, AllocationShape{type, sf, sf <= cluster_.max_gpus_per_node(type)});
  }
  // A job arriving during a round joins at its end; into an idle cluster it starts a round now
  // (after every arrival of this instant: RoundTick runs after Arrival).
  request_round();
}

void GavelMechanism::request_round() {
  if (tick_pending_) return;
  tick_pending_ = true;
  sim_.schedule(sim_.now(), EventClass::RoundTick);
}

void GavelMechanism::on_completion(JobIndex j, std::uint64_t generation) {
  const JobRuntime& job = table_.job(j);
  if (job.status != JobStatus::Running || job.generation != generation) return;
  // The JCT ends here; its GPUs stay idle until the round ends (they are only reassigned then).
  if (packing_) {
    const auto k = static_cast<std::size_t>(j);
    if (host_of_[k] >= 0)
      table_.finish_shared(j, host_of_[k], sim_.now());
    else
      table_.finish(j, sim_.now());
    host_of_[k] = running_as_[k] = -1;
    return;
  }
  table_.finish(j, sim_.now());
}

void GavelMechanism::on_round_tick() {
  tick_pending_ = false;
  active_changed_ = false;
  end_round();
  join_arrivals();
  if (active_.empty()) return;  // idle until the next arrival
  if (skip_steady_rounds()) return;  // rounds that could change nothing done by arithmetic
  start_round();
}

// Round end: account the steps of every job that ran (Gavel's order: as dispatched), drop the
// finished ones from the priorities.
void GavelMechanism::end_round() {
  if (joined_upto_ == workload_.jobs.size() && dispatched_.empty())
    last_reset_s_ = 0.0;  // Gavel forces a reset when idle at the end
  if (packing_) return end_round_packed();
  for (const Dispatch& d : dispatched_) {
    JobRuntime& job = table_.job(d.job);
    job.remaining_work = std::max(0.0, job.remaining_work - d.steps);
    job.work_done = job.spec->work - job.remaining_work;
    priorities_.record_run(d.job, d.type, d.gavel_finish_s - gavel_round_start_s_);
    if (job.status == JobStatus::Completed) {
      active_.erase(d.job);
      priorities_.remove_job(d.job);
      need_update_ = true;
      active_changed_ = true;
    }
  }
  dispatched_.clear();
}

void GavelMechanism::join_arrivals() {
  for (; joined_upto_ < arrived_upto_; ++joined_upto_) {
    const auto j = static_cast<JobIndex>(joined_upto_);
    if (table_.job(j).status != JobStatus::Pending) continue;  // rejected or done at arrival
    active_.insert(j);
    priorities_.add_job(j);
    if (packing_) add_pairs_of(j);
    need_update_ = true;
    active_changed_ = true;
  }
}

void GavelMechanism::start_round() {
  // At a round end, the round's exact end (sub-microsecond remainder) and Gavel's double sum;
  // after an idle gap, the arrival's time.
  const bool at_round_end = round_end_ && sim_.now() == *round_end_;
  now_frac_us_ = at_round_end ? round_end_frac_us_ : 0.0;
  gavel_s_ = at_round_end ? gavel_round_end_s_ : sim_.now().seconds();
  const double now_s = gavel_s_;
  // Allocation (Gavel's _update_priorities).
  if (need_update_ && reset_due(now_s)) {
    priorities_.reset(now_s - last_reset_s_, allocation_);
    last_reset_s_ = now_s;
    compute_allocation();
    need_update_ = false;
  } else if (policy_.every_round()) {
    compute_allocation();
  }
  ++solver_.rounds;
  check_round_limit(solver_.rounds, config_.max_rounds, config_.round_s, sim_.now());
  ++table_.stats().scheduling_passes;
  const std::vector<std::size_t>& order = type_order();
  if (packing_) {
    steady_ = false;
    set_previous_packed(true);
    const auto& next = placement_.place(order, choose_combos(order), previous_, allocation_);
    set_previous_packed(false);
    apply_placements_packed(next);
    for (const RoundPlacement* p : next) is_pair_key(p->job) ? dispatch_pair(p->job) : dispatch(p->job);
  } else {
    for (JobIndex j : table_.running()) previous_[static_cast<std::size_t>(j)] = &table_.job(j).gpus;
    std::vector<RoundChoice>& chosen = choose_jobs(order);
    const auto& next = placement_.place(order, chosen, previous_, allocation_);
    for (JobIndex j : table_.running()) previous_[static_cast<std::size_t>(j)] = nullptr;
    if (steady_) {  // steady only if every chosen job with a row of X was placed (no half-placed drop)
      std::size_t in_x = 0;
      for (const RoundChoice& list : chosen)
        for (const auto& [j, sf] : list) in_x += allocation_.count(j);
      steady_ = in_x == next.size();
    }
    apply_placements(next);
    for (const RoundPlacement* p : next) dispatch(p->job);
  }
  table_.clear_changed();
  table_.end_pass(sim_.now());
  if (stalled()) return end_stalled_run();
  if (!dispatched_.empty()) {
    schedule_round_end();
  } else if (joined_upto_ == workload_.jobs.size()) {
    // Nothing can run and nothing will arrive: Gavel would spin here. Force one recomputation;
    // if that does not help either, the remaining jobs are reported unfinished (never hang).
    if (forced_) {
      const std::string why = "no GPU type could be given to it: the policy left it without GPUs";
      if (packing_) stop_sharers(sim_.now(), StopReason::RunEnded);
      table_.end_unfinished(sim_.now(), EndOfRun{StopReason::RunEnded, why, why}, [](JobRuntime&) {});
      sim_.stop();
      return;
    }
    forced_ = true;
    need_update_ = true;
    last_reset_s_ = 0.0;
    request_round();
  }
}

// The round now running ends when its last job does (its exact time: the engine's microsecond and
// the remainder). Gavel accounts a job's run time from the end of the previous round (after an
// idle gap that includes the gap).
void GavelMechanism::schedule_round_end() {
  const Dispatch* last = &dispatched_.front();
  double latest_s = last->gavel_finish_s;
  for (const Dispatch& d : dispatched_) {
    if (d.finish > last->finish || (d.finish == last->finish && d.finish_frac_us > last->finish_frac_us)) last = &d;
    latest_s = std::max(latest_s, d.gavel_finish_s);
  }
  if (round_end_) gavel_round_start_s_ = gavel_round_end_s_;
  round_end_ = last->finish;
  round_end_frac_us_ = last->finish_frac_us;
  gavel_round_end_s_ = latest_s;
  tick_pending_ = true;
  sim_.schedule(last->finish, EventClass::RoundTick);
  forced_ = false;
}

// Stops jobs that lose or change their GPUs, then starts the new placements.
void GavelMechanism::apply_placements(const std::vector<const RoundPlacement*>& next) {
  running_copy_.assign(table_.running().begin(), table_.running().end());
  for (JobIndex j : running_copy_) {
    const std::vector<GpuId>* nx = placement_.find(j);
    if (nx != nullptr && *nx == table_.job(j).gpus) continue;
    table_.stop(j, sim_.now(), nx != nullptr ? StopReason::Moved : StopReason::Preempted);
  }
  for (const RoundPlacement* p : next) {
    const JobIndex j = p->job;
    const std::vector<GpuId>& gpus = p->gpus;
    if (table_.job(j).status == JobStatus::Running) continue;
    const auto t = static_cast<std::size_t>(cluster_.type_of(gpus.front()));
    ++placement_changes_[static_cast<std::size_t>(j)];
    table_.start(j, gpus, throughput_[static_cast<std::size_t>(j)][t], sim_.now());
  }
}

// Gavel's step arithmetic: whole steps at the job's rate in what is left of the round after any
// restart overhead still to pay, at most what remains; a job finishing in the round gets a
// completion event at its own finish time.
void GavelMechanism::dispatch_at(JobIndex j, SimTime now) {
  JobRuntime& job = table_.job(j);
  const auto t = static_cast<std::size_t>(job.gpu_type);
  const double rate = throughput_[static_cast<std::size_t>(j)][t];
  const double overhead_s = job.resume_at > now ? std::min((job.resume_at - now).seconds(), config_.round_s) : 0.0;
  double steps = std::floor(rate * (config_.round_s - overhead_s));
  if (steps < 1.0) steps = rate * (config_.round_s - overhead_s);  // very slow jobs: fractional progress
  steps = std::min(steps, job.remaining_work);
  // Event at the nearest microsecond; the remainder is carried into the next round's start, so
  // rounding never accumulates over many rounds of a length that is no whole microsecond.
  const double offset_us = now_frac_us_ + (overhead_s + steps / rate) * 1e6;
  const double whole_us = std::round(offset_us);
  const SimTime finish = now + SimTime::from_us(static_cast<std::int64_t>(whole_us));
  dispatched_.push_back({j, t, steps, finish, offset_us - whole_us, gavel_s_ + overhead_s + steps / rate});
  if (steps >= job.remaining_work) sim_.schedule(finish, EventClass::Completion, j, job.generation);
}

void GavelMechanism::compute_allocation() {
  const SimTime now = sim_.now();
  const PolicyView base(now, table_.state(), model_, table_.jobs(), table_.pending(), table_.running(),
                        table_.changed());
  // The view is a member that keeps its rows' memory between recomputations (issue 19: thousands
  // per run, and a row's throughput copy per job each time was much of the malloc/free).
  if (view_.gpus_per_type.empty()) view_ = allocation_view_of(cluster_, now, nullptr);
  AllocationView& view = view_;
  view.now = now;
  view.base = &base;
  view.pairs.clear();
  view.jobs.resize(active_.size());
  std::size_t i = 0;
  for (JobIndex j : active_) {
    const JobRuntime& job = table_.job(j);
    AllocationJob& row = view.jobs[i++];
    std::vector<double> rates = std::move(row.throughput);
    const std::vector<double>& own = throughput_[static_cast<std::size_t>(j)];
    rates.assign(own.begin(), own.end());
    row = allocation_row(j, job, std::move(rates), job.remaining_work, gavel_s_ - job.spec->submit.seconds(),
                         placement_changes_[static_cast<std::size_t>(j)]);
  }
  if (packing_) fill_pairs(view);
  AllocationResult r = policy_.allocate(view);
  ++solver_.allocations;
  solver_.solves += static_cast<std::uint64_t>(r.solves);
  solver_.solver_s_total += r.solver_s;
  solver_.solver_s_max = std::max(solver_.solver_s_max, r.solver_s);
  solver_.node_limits += static_cast<std::uint64_t>(r.node_limit_hits);
  solver_.time_limits += static_cast<std::uint64_t>(r.time_limit_hits);
  if (!r.warning.empty() && warned_.insert(r.warning).second)
    table_.warn(fmt::format("t={:.6f}s round {}: policy '{}': {}", now.seconds(), solver_.rounds, policy_.name(), r.warning));
  AllocationMatrix x;
  const bool usable = r.ok && r.x.size() == view.jobs.size();
  if (!usable) {
    ++solver_.failures;
    table_.refuse(fmt::format("t={:.6f}s round {}: policy '{}': {}; using the isolated (equal-share) fallback "
                              "allocation",
                              now.seconds(), solver_.rounds, policy_.name(),
                              r.ok ? "allocation has the wrong number of rows" : r.failure));
    x = isolated_allocation(view);
  } else {
    x = sanitize_allocation(view, std::move(r.x), false);
  }
  store_allocation(view, x);
  if (packing_ && usable) read_pair_allocation(view, r);
  view.base = nullptr;  // `base` ends here
  // X's rows were copied into allocation_: the next computation may build its answer in them.
  spare_x_ = std::move(x);
  view.spare_x = &spare_x_;
}

// X becomes `x` (rows of view.jobs). The map is updated in place rather than rebuilt: rows of jobs
// still active are overwritten (same length, so no allocation), rows of jobs gone are erased, new
// jobs' rows inserted; it ends holding exactly what a rebuild would (issue 19: X is recomputed
// thousands of times per run, and a node and a row per job each time were much of the mechanism's
// malloc/free). view.jobs are in active_ order, ascending, so one merge walk suffices.
void GavelMechanism::store_allocation(const AllocationView& view, AllocationMatrix& x) {
  auto set_row = [&](JobIndex j, const std::vector<double>* row) {
    // choose_jobs' flat view of X (map nodes do not move); FIFO skips the all-zero rows.
    if (static_cast<std::size_t>(j) >= x_row_.size()) return;
    if (row != nullptr && policy_.skip_zero_priority() &&
        std::all_of(row->begin(), row->end(), [](double v) { return v == 0.0; }))
      row = nullptr;
    x_row_[static_cast<std::size_t>(j)] = row;
    if (row != nullptr) x_jobs_.push_back(j);  // called in ascending job order
  };
  x_jobs_.clear();
  auto it = allocation_.begin();
  for (std::size_t i = 0; i < view.jobs.size(); ++i) {
    const JobIndex j = view.jobs[i].job;
    if (i > 0 && !(view.jobs[i - 1].job < j))
      throw std::logic_error("GavelMechanism: allocation rows are not in ascending job order");
    for (; it != allocation_.end() && it->first < j; it = allocation_.erase(it)) set_row(it->first, nullptr);
    if (it != allocation_.end() && it->first == j)
      it->second = x[i];
    else
      it = allocation_.emplace_hint(it, j, std::move(x[i]));
    set_row(j, &it->second);
    ++it;
  }
  for (; it != allocation_.end(); it = allocation_.erase(it)) set_row(it->first, nullptr);
}

const std::vector<std::size_t>& GavelMechanism::type_order() {
  std::vector<std::size_t>& order = type_order_;
  order.assign(base_type_order_.begin(), base_type_order_.end());
  if (!policy_.fixed_type_order()) shuffler_.shuffle(order);
  return order;
}

// Which jobs run on which type (Gavel's _schedule_jobs_on_workers_helper): per type in `order`,
// jobs by (priority, deficit, x) descending; each job on the first type where it fits.
// Entries that can never be taken (zero throughput on the type; FIFO's non-positive priority) are
// left out before sorting: a stable sort keeps the others in the same relative order, and the
// walk skipped those entries wherever they stood, so the choice is the same (issue 19: under fifo
// most of a round was sorting entries that were then skipped). The lists keep their memory.
std::vector<RoundChoice>& GavelMechanism::choose_jobs(const std::vector<std::size_t>& order) {
  const std::size_t types = cluster_.gpu_types().size();
  left_.resize(types);
  for (std::size_t t = 0; t < types; ++t) left_[t] = cluster_.gpus_of_type(static_cast<GpuTypeId>(t));
  per_type_.resize(types);
  for (auto& list : per_type_) list.clear();
  const bool skip_zero = policy_.skip_zero_priority();
  bool several_types = false;  // some job has entries on more than one type
  // Gavel's dict order is job order here (jobs join in index order; pairs exist only under
  // packing, which chooses by choose_combos). x_row_ is X's row of j, nullptr when j has none or
  // (FIFO) an all-zero one: then every priority is 0 and under FIFO no entry of the job is kept,
  // so FIFO walks only the jobs with a row (x_jobs_, ascending) that are still in the books
  // instead of every active job (issue 19: on the MSR trace a sixth of choose_jobs' own cost).
  const std::vector<JobIndex>& walk = skip_zero ? x_jobs_ : priorities_.order();
  for (JobIndex j : walk) {
    if (skip_zero && !priorities_.contains(j)) continue;  // finished since X was stored
    const std::vector<double>* x = x_row_[static_cast<std::size_t>(j)];
    if (skip_zero && x == nullptr) continue;
    const std::vector<double>& rate = throughput_[static_cast<std::size_t>(j)];
    priorities_.priorities_of(j, x, rate, priority_buf_, deficit_buf_);
    int entries = 0;
    for (std::size_t t = 0; t < types; ++t) {
      if (!(rate[t] > 0.0) || (skip_zero && priority_buf_[t] <= 0.0)) continue;
      per_type_[t].push_back({j, priority_buf_[t], deficit_buf_[t], x ? (*x)[t] : 0.0});
      ++entries;
    }
    several_types = several_types || entries > 1;
  }
  std::vector<char>& taken = taken_in_round_;
  std::vector<RoundChoice>& chosen = chosen_;
  chosen.resize(types);
  for (auto& list : chosen) list.clear();
  bool contended = false;  // some job with an entry on a type was left out there (round skipping)
  for (std::size_t t : order) {
    std::vector<ChoiceEntry>& list = per_type_[t];
    std::stable_sort(list.begin(), list.end(), [](const ChoiceEntry& a, const ChoiceEntry& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.deficit != b.deficit) return a.deficit > b.deficit;
      return a.x > b.x;
    });
    for (auto it = list.begin(); it != list.end(); ++it) {
      const ChoiceEntry& e = *it;
      if (left_[t] == 0) {
        contended = contended || std::any_of(it, list.end(), [&](const ChoiceEntry& rest) {
                      return !taken[static_cast<std::size_t>(rest.job)];
                    });
        break;
      }
      if (taken[static_cast<std::size_t>(e.job)]) continue;
      int sf = table_.job(e.job).spec->requested_gpus;
      if (sf > left_[t]) {
        contended = true;
        continue;
      }
      left_[t] -= sf;
      taken[static_cast<std::size_t>(e.job)] = 1;
      chosen[t].push_back({e.job, sf});
    }
  }
  for (const auto& list : chosen)
    for (const auto& [j, sf] : list) taken[static_cast<std::size_t>(j)] = 0;
  note_round_choice(contended, several_types);
  return chosen;
}

}  // namespace hetsim
