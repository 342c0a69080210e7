#include "hetsim/sched/mechanism.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace hetsim {

Mechanism::Mechanism(const Cluster& cluster, const Workload& workload, const ThroughputModel& model,
                     SchedulingPolicy& policy, const PlacementPolicy& placement, MechanismConfig config,
                     std::vector<JobEventSink*> sinks)
    : cluster_(cluster),
      workload_(workload),
      model_(model),
      policy_(policy),
      placement_(placement),
      config_(config),
      table_(cluster, workload, model,
             LifecycleConfig{config.restart_overhead_s, config.profiling_s, config.check_invariants,
                             config.shared_network || config.share_slowdown > 0.0 ? ProgressKind::SharedRates
                                                                                  : ProgressKind::Exact},
             std::move(sinks)) {
  allocated_in_pass_.assign(table_.size(), 0);
  share_factor_.assign(table_.size(), 1.0);
  if (!(config_.share_slowdown >= 0.0 && config_.share_slowdown < 1.0))
    throw std::invalid_argument(fmt::format("share slowdown must be in [0, 1), got {}", config_.share_slowdown));
  if (config_.shared_network) {
    if (!model_.topology())
      throw std::invalid_argument(fmt::format("the shared network needs a model that prices communication over the "
                                              "topology (analytic), not '{}'", model_.name()));
    network_.emplace(*model_.topology());
  }
}

MechanismStats Mechanism::run() {
  // Arrivals are fed from the sorted workload one at a time (each schedules the next), so the queue
  // holds one arrival, not the whole trace; equal submit times keep trace order.
  if (!workload_.jobs.empty()) sim_.schedule(workload_.jobs.front().submit, EventClass::Arrival, 0);
  if (config_.until_s) sim_.schedule(SimTime::from_seconds(*config_.until_s), EventClass::End);
  sim_.run(*this);
  if (!ended_) {
    // The queue ran dry: whatever is not final was left waiting by the policy.
    EndOfRun end{StopReason::RunEnded,
                 fmt::format("would finish beyond the simulation horizon of {:.0e} s on its GPUs", kMaxSimSeconds),
                 tick_beyond_horizon_
                     ? fmt::format("waiting for the next round, beyond the simulation horizon of {:.0e} s", kMaxSimSeconds)
                     : std::string("still waiting when no event was left: the policy left it without GPUs")};
    table_.end_unfinished(sim_.now(), end, [this](JobRuntime& job) { advance(job); });
  }
  table_.end_run(sim_.now());
  return table_.stats();
}

void Mechanism::handle(const Event& event) {
  ++table_.stats().events;
  if (event.cls != EventClass::Arrival) table_.settle(sim_.now());  // an arrival settles by its Arrived event
  switch (event.cls) {
    case EventClass::Completion: on_completion(event.target, event.tag); break;
    case EventClass::Arrival: on_arrival(event.target); break;
    case EventClass::RoundTick: on_round_tick(); break;
    case EventClass::SchedulePass:
      if (event.tag != 0) {  // a pass the policy asked for: skipped if stale or if one is due now anyway
        if (event.tag == wake_generation_ && !pass_requested_) run_policy();
        break;
      }
      pass_requested_ = false;
      run_policy();
      break;
    case EventClass::End: {
      ended_ = true;
      EndOfRun end{StopReason::Horizon, "not finished at the --until horizon", "not finished at the --until horizon"};
      table_.end_unfinished(sim_.now(), end, [this](JobRuntime& job) { advance(job); });
      sim_.stop();
      break;
    }
  }
  if (!ended_ && table_.all_final()) sim_.stop();  // nothing left to simulate: do not tick on to the horizon
}

void Mechanism::on_arrival(JobIndex j) {
  const auto next = static_cast<std::size_t>(j) + 1;
  arrived_ = next;
  if (next < workload_.jobs.size())
    sim_.schedule(workload_.jobs[next].submit, EventClass::Arrival, static_cast<std::int64_t>(next));
  auto policy_admission = [this](const JobSpec& spec) { return policy_.reject_at_arrival(spec, view()); };
  if (table_.arrive(j, sim_.now(), policy_admission) != Admission::Pending) return;
  if (config_.interval_s <= 0.0) {
    request_pass();
    return;
  }
  if (!tick_scheduled_) schedule_first_tick();
  if (config_.schedule_on_arrival) request_pass();
}

void Mechanism::schedule_first_tick() {
  // Rounds are anchored at the first arrival; after an idle gap they resume on that grid.
  SimTime next = sim_.now();
  if (!first_tick_ && config_.round_grid_from_zero) first_tick_ = SimTime::from_us(0);
  if (first_tick_) {
    std::int64_t step = SimTime::from_seconds(config_.interval_s).us();
    std::int64_t since = sim_.now().us() - first_tick_->us();
    std::int64_t k = (since + step - 1) / step;
    if (config_.round_grid_from_zero) k = std::max<std::int64_t>(k, 1);
    next = SimTime::from_us(first_tick_->us() + k * step);
  }
  if (!first_tick_) first_tick_ = next;
  schedule_tick(next);
}

// A round beyond the simulation horizon never comes: the run ends without it, and jobs still
// waiting for it end unfinished with the horizon's reason (the clock would saturate otherwise).
void Mechanism::schedule_tick(SimTime at) {
  if (!(at.seconds() <= kMaxSimSeconds)) {
    tick_beyond_horizon_ = true;
    return;
  }
  sim_.schedule(at, EventClass::RoundTick);
  tick_scheduled_ = true;
}

void Mechanism::on_completion(JobIndex j, std::uint64_t generation) {
  JobRuntime& job = table_.job(j);
  if (job.status != JobStatus::Running || job.generation != generation) return;  // stale
  advance(job);
  const GpuId shared = shares_gpu(*job.spec) ? job.gpus.front() : GpuId{-1};
  table_.finish(j, sim_.now());
  if (shared >= 0) reshare(shared, -1);
  if (network_) {
    network_->remove(j);
    share_network();  // the jobs it shared links with speed up at this instant
  }
  if (config_.interval_s <= 0.0) request_pass();
}

void Mechanism::on_round_tick() {
  tick_scheduled_ = false;
  check_round_limit(++rounds_, config_.max_rounds, config_.interval_s, sim_.now());
  run_policy();
  idle_rounds_ = table_.running().empty() && arrived_ == workload_.jobs.size() ? idle_rounds_ + 1 : 0;
  if (idle_rounds_ >= kMaxIdleRounds) {
    const std::string why = fmt::format("still waiting after {} rounds with nothing running and nothing left to "
                                        "arrive: the policy left it without GPUs", kMaxIdleRounds);
    table_.end_unfinished(sim_.now(), EndOfRun{StopReason::RunEnded, why, why}, [this](JobRuntime& job) { advance(job); });
    ended_ = true;
    sim_.stop();
    return;
  }
  const bool before_horizon = sim_.now().seconds() + config_.interval_s <= kMaxSimSeconds;
  if (!table_.pending().empty() || !table_.running().empty()) {
    if (before_horizon)
      schedule_tick(sim_.now() + SimTime::from_seconds(config_.interval_s));
    else
      tick_beyond_horizon_ = true;
  }
}

void Mechanism::request_pass() {
  if (pass_requested_) return;
  pass_requested_ = true;
  sim_.schedule(sim_.now(), EventClass::SchedulePass);
}

void Mechanism::run_policy() {
  ++table_.stats().scheduling_passes;
  Decision decision = policy_.schedule(view());
  // The policy has seen these; what apply() changes now is reported at the next pass.
  table_.clear_changed();
  apply(decision);
  share_network();
  table_.end_pass(sim_.now());
  ++wake_generation_;
  if (std::optional<SimTime> at = policy_.next_pass_at(); at && *at >= sim_.now() && at->seconds() <= kMaxSimSeconds)
    sim_.schedule(*at, EventClass::SchedulePass, -1, wake_generation_);
}

PolicyView Mechanism::view() const {
  const ThroughputModel& planning = config_.planning_model ? *config_.planning_model : model_;
  return PolicyView(sim_.now(), table_.state(), planning, table_.jobs(), table_.pending(), table_.running(),
                    table_.changed(), network_ ? &*network_ : nullptr, std::max(config_.interval_s, 0.0));
}

void Mechanism::refuse(const std::string& why) {
  table_.refuse(fmt::format("t={:.6f}s: policy '{}': {}", sim_.now().seconds(), policy_.name(), why));
}

void Mechanism::apply(const Decision& decision) {
  // Phase 1 takes GPUs back (preemptions, and running jobs that move or change size), so phase 2
  // can hand them to others in the same pass; phase 2 places in the order the policy gave.
  for (const AllocationRequest* req : release_for(decision)) place(*req);
}

std::vector<const AllocationRequest*> Mechanism::release_for(const Decision& decision) {
  for (JobIndex j : decision.preempt) {
    if (!table_.valid(j) || table_.job(j).status != JobStatus::Running) {
      refuse(fmt::format("preempt of job index {} which is not running", j));
      continue;
    }
    stop_job(table_.job(j), StopReason::Preempted);
  }
  std::vector<char>& seen = allocated_in_pass_;
  std::vector<const AllocationRequest*> to_place;
  for (const AllocationRequest& req : decision.allocate) {
    if (!table_.valid(req.job)) {
      refuse(fmt::format("allocation for unknown job index {}", req.job));
      continue;
    }
    JobRuntime& job = table_.job(req.job);
    if (seen[static_cast<std::size_t>(req.job)]++) {
      refuse(fmt::format("job {} allocated twice in one decision", job.spec->id));
      continue;
    }
    if (job.status != JobStatus::Pending && job.status != JobStatus::Running) {
      refuse(fmt::format("allocation for job {} which is {}", job.spec->id, to_string(job.status)));
      continue;
    }
    const bool exact = !req.gpus.empty();
    if (!exact && (req.gpu_type < 0 || static_cast<std::size_t>(req.gpu_type) >= cluster_.gpu_types().size() ||
                   req.gpu_count <= 0)) {
      refuse(fmt::format("job {}: bad request ({} GPUs of type index {})", job.spec->id, req.gpu_count, req.gpu_type));
      continue;
    }
    if (job.status == JobStatus::Running) {
      const bool same = exact ? req.gpus == job.gpus
                              : (req.gpu_type == job.gpu_type && req.gpu_count == static_cast<int>(job.gpus.size()));
      if (same) {  // keep the allocation: no restart
        if (req.batch_size > 0 && req.batch_size != job.batch_size) change_batch(job, req.batch_size);
        continue;
      }
      stop_job(job, !exact && req.gpu_type == job.gpu_type ? StopReason::Resized : StopReason::Moved);
    }
    to_place.push_back(&req);
  }
  for (const AllocationRequest& req : decision.allocate)
    if (table_.valid(req.job)) seen[static_cast<std::size_t>(req.job)] = 0;
  return to_place;
}

bool Mechanism::place(const AllocationRequest& req) {
  JobRuntime& job = table_.job(req.job);
  if (shares_gpu(*job.spec)) return place_share(req);
  const ClusterState& state = table_.state();
  std::vector<GpuId> gpus;
  if (!req.gpus.empty()) {
    gpus = req.gpus;
    std::vector<GpuId> sorted = gpus;
    std::sort(sorted.begin(), sorted.end());
    bool ok = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    for (GpuId g : gpus) ok = ok && g >= 0 && g < cluster_.total_gpus() && state.owner(g) == ClusterState::kFree;
    if (!ok) {
      refuse(fmt::format("job {}: requested GPUs are out of range, repeated or not free", job.spec->id));
      return false;
    }
  } else {
    gpus = network_ ? placement_.place_on_network(state, *job.spec, req.gpu_type, req.gpu_count, model_, *network_)
                    : placement_.place(state, *job.spec, req.gpu_type, req.gpu_count, model_);
    if (gpus.empty()) {
      refuse(fmt::format("job {}: {} GPUs of type {} requested but only {} free", job.spec->id, req.gpu_count,
                         cluster_.gpu_types()[static_cast<std::size_t>(req.gpu_type)].name,
                         state.free_of_type(req.gpu_type)));
      return false;
    }
    check_placement(job, req, gpus);
  }
  return start_if_it_runs(job, req, std::move(gpus));
}

// A job asking for a fraction of a GPU: the exact GPU the policy names if it has room, else the
// best fit among the shared GPUs of the type (least room left that still fits: the baseline the
// OpenB paper's fragmentation-aware scheduler compares against, Weng et al., ATC'23), else the free
// GPU the placement policy picks.
bool Mechanism::place_share(const AllocationRequest& req) {
  JobRuntime& job = table_.job(req.job);
  const ClusterState& state = table_.state();
  const int milli = job.spec->gpu_milli;
  auto has_room = [&](GpuId g) {
    return g >= 0 && g < cluster_.total_gpus() &&
           (state.owner(g) == ClusterState::kFree ||
            (state.owner(g) == ClusterState::kShared && state.shared_milli(g) + milli <= ClusterState::kWholeMilli));
  };
  std::vector<GpuId> gpus;
  if (!req.gpus.empty()) {
    if (req.gpus.size() != 1 || !has_room(req.gpus.front())) {
      refuse(fmt::format("job {}: a {}/1000 share of one GPU requested on GPUs that are not one GPU with that much room",
                         job.spec->id, milli));
      return false;
    }
    gpus = req.gpus;
  } else {
    if (req.gpu_count != 1) {
      refuse(fmt::format("job {}: takes a {}/1000 share of one GPU, not {} GPUs", job.spec->id, milli, req.gpu_count));
      return false;
    }
    const GpuId best = state.best_shared_gpu(req.gpu_type, milli);
    if (best >= 0)
      gpus = {best};
    else
      gpus = placement_.place(state, *job.spec, req.gpu_type, 1, model_);
    if (gpus.empty()) {
      refuse(fmt::format("job {}: a {}/1000 share of a GPU of type {} requested but none has room", job.spec->id, milli,
                         cluster_.gpu_types()[static_cast<std::size_t>(req.gpu_type)].name));
      return false;
    }
    if (gpus.size() != 1 || !has_room(gpus.front()) || cluster_.type_of(gpus.front()) != req.gpu_type)
      throw std::logic_error(fmt::format("placement '{}' gave job {} a GPU that is busy or not of its type",
                                         placement_.name(), job.spec->id));
  }
  return start_if_it_runs(job, req, std::move(gpus));
}

double Mechanism::share_factor_now(const JobRuntime& job) const {
  if (config_.share_slowdown <= 0.0 || !shares_gpu(*job.spec) || job.gpus.empty()) return 1.0;
  return table_.state().sharers(job.gpus.front()).size() > 1 ? 1.0 - config_.share_slowdown : 1.0;
}

void Mechanism::reshare(GpuId gpu, JobIndex except) {
  if (config_.share_slowdown <= 0.0) return;
  for (std::int64_t j : table_.state().sharers(gpu)) {
    if (j == except) continue;
    JobRuntime& job = table_.job(j);
    const double factor = share_factor_now(job);
    if (factor == share_factor_[static_cast<std::size_t>(j)]) continue;
    advance(job);  // progress up to now at the old factor
    share_factor_[static_cast<std::size_t>(j)] = factor;
    table_.change_rate(j, model_.rate_at(*job.spec, cluster_, job.gpus, job.batch_size, job.work_done) * factor,
                       sim_.now());
    schedule_completion(job);
  }
}

void Mechanism::check_placement(const JobRuntime& job, const AllocationRequest& req, std::vector<GpuId> gpus) const {
  // A placement policy that breaks its contract is a bug: stop the run (exit code 1) rather than
  // simulate an impossible allocation.
  bool ok = static_cast<int>(gpus.size()) == req.gpu_count;
  for (GpuId g : gpus)
    ok = ok && g >= 0 && g < cluster_.total_gpus() && cluster_.type_of(g) == req.gpu_type &&
         table_.state().owner(g) == ClusterState::kFree;
  std::sort(gpus.begin(), gpus.end());
  ok = ok && std::adjacent_find(gpus.begin(), gpus.end()) == gpus.end();
  if (!ok)
    throw std::logic_error(fmt::format("placement '{}' gave job {} GPUs that are repeated, busy or not {} x {}",
                                       placement_.name(), job.spec->id, req.gpu_count,
                                       cluster_.gpu_types()[static_cast<std::size_t>(req.gpu_type)].name));
}

void Mechanism::advance(JobRuntime& job) {
  SimTime now = sim_.now();
  if (job.status == JobStatus::Running) {
    SimTime from = std::max(job.updated, job.resume_at);
    if (now > from) {
      double dt = (now - from).seconds();
      if (!std::isfinite(model_.next_rate_change(*job.spec, job.work_done))) {
        job.remaining_work = std::max(0.0, job.remaining_work - job.rate * dt);
        job.work_done += job.rate * dt;
      } else {
        // Progress-dependent rate: integrate piece by piece; a crossed breakpoint is hit exactly.
        // A share factor f slows the whole curve alike: dt at f x rate is f x dt at the rate.
        const double factor = share_factor_[static_cast<std::size_t>(job.index)];
        job.work_done =
            progress_after(model_, *job.spec, cluster_, job.gpus, job.batch_size, job.work_done, dt * factor);
        job.remaining_work = std::max(0.0, job.spec->work - job.work_done);
        job.rate = model_.rate_at(*job.spec, cluster_, job.gpus, job.batch_size, job.work_done) * factor;
      }
    }
    // GPU-seconds held: a share of one GPU counts its fraction.
    const double held = shares_gpu(*job.spec) ? job.spec->gpu_milli / 1000.0 : static_cast<double>(job.gpus.size());
    job.attained_gpu_s += held * (now - job.updated).seconds();
  }
  job.updated = now;
}

void Mechanism::schedule_completion(JobRuntime& job) {
  double seconds = 0.0;
  if (!std::isfinite(model_.next_rate_change(*job.spec, job.work_done))) {
    seconds = job.remaining_work / job.rate;
  } else {
    seconds = seconds_to_finish(model_, *job.spec, cluster_, job.gpus, job.batch_size, job.work_done) /
              share_factor_[static_cast<std::size_t>(job.index)];
    if (!std::isfinite(seconds)) return;  // never completes here; a later decision must move it
  }
  SimTime start = std::max(job.resume_at, sim_.now());
  // Past the horizon the job cannot finish in this run; with no completion event it ends
  // "unfinished" with its reason rather than "completed" at the edge of the clock.
  if (!(start.seconds() + seconds <= kMaxSimSeconds)) return;
  sim_.schedule(start + SimTime::from_seconds(seconds), EventClass::Completion, job.index, job.generation);
}

void Mechanism::change_batch(JobRuntime& job, int batch_size) {
  advance(job);
  table_.change_batch(job.index, batch_size,
                      model_.rate_at(*job.spec, cluster_, job.gpus, batch_size, job.work_done) *
                          share_factor_[static_cast<std::size_t>(job.index)],
                      sim_.now());
  schedule_completion(job);
}

// The last step of a placement: the requested batch size, and a start only where the job makes
// progress (a zero rate is refused rather than left running forever).
bool Mechanism::start_if_it_runs(JobRuntime& job, const AllocationRequest& req, std::vector<GpuId> gpus) {
  if (req.batch_size > 0) job.batch_size = req.batch_size;
  if (!(model_.rate_at(*job.spec, cluster_, gpus, job.batch_size, job.work_done) > 0.0)) {
    refuse(fmt::format("job {}: zero throughput on the requested GPUs; not placed", job.spec->id));
    return false;
  }
  start_job(job, std::move(gpus));
  return true;
}

void Mechanism::start_job(JobRuntime& job, std::vector<GpuId> gpus) {
  double rate = model_.rate_at(*job.spec, cluster_, gpus, job.batch_size, job.work_done);
  if (shares_gpu(*job.spec)) {
    const ClusterState& state = table_.state();
    const bool crowded = config_.share_slowdown > 0.0 && state.owner(gpus.front()) == ClusterState::kShared;
    share_factor_[static_cast<std::size_t>(job.index)] = crowded ? 1.0 - config_.share_slowdown : 1.0;
    rate *= share_factor_[static_cast<std::size_t>(job.index)];
  }
  table_.start(job.index, std::move(gpus), rate, sim_.now());
  if (shares_gpu(*job.spec)) reshare(job.gpus.front(), job.index);
  if (network_)
    if (auto demand = model_.network_demand(*job.spec, job.gpus)) network_->add(job.index, std::move(*demand));
  schedule_completion(job);
}

void Mechanism::stop_job(JobRuntime& job, StopReason why) {
  advance(job);
  const GpuId shared = shares_gpu(*job.spec) ? job.gpus.front() : GpuId{-1};
  table_.stop(job.index, sim_.now(), why);
  if (network_) network_->remove(job.index);
  if (shared >= 0) reshare(shared, -1);
}

// After the allocations of a pass (or a completion) changed: jobs whose share of a link changed
// get their new rate from this instant (progress up to now at the old one). A job back at full
// speed gets the model's own rate, bit for bit the rate it would have alone.
void Mechanism::share_network() {
  if (!network_) return;
  for (const NetworkShares::Change& c : network_->rebalance()) {
    JobRuntime& job = table_.job(c.job);
    advance(job);
    const double rate =
        (c.speed == 1.0 ? model_.rate_at(*job.spec, cluster_, job.gpus, job.batch_size, job.work_done) : c.rate) *
        share_factor_[static_cast<std::size_t>(job.index)];
    table_.change_rate(c.job, rate, sim_.now());
    schedule_completion(job);
  }
}

}  // namespace hetsim
