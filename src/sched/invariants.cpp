#include "hetsim/sched/invariants.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "hetsim/metrics/summary.hpp"
#include "hetsim/sched/job_table.hpp"

namespace hetsim {
namespace {

constexpr const char* kGpuExclusive = "no GPU held twice";
constexpr const char* kGpusHeld = "GPUs held = sum of allocations";
constexpr const char* kWorkDone = "work done = integral of rate";
constexpr const char* kNoLeftover = "no leftover at completion";
constexpr const char* kFinishedOnce = "no job finished twice";
constexpr const char* kAccounted = "every job accounted for";
constexpr const char* kUtilisation = "utilisation in [0,1]";
constexpr const char* kShareFits = "GPU shares sum to at most 1";

const char* verb_of(JobEventKind kind) {
  switch (kind) {
    case JobEventKind::Arrived: return "arrived";
    case JobEventKind::Rejected: return "was rejected";
    case JobEventKind::Started: return "started";
    case JobEventKind::Stopped: return "stopped";
    case JobEventKind::Completed: return "completed";
    case JobEventKind::Unfinished: return "ended unfinished";
  }
  return "?";
}

// Work done in `seconds` from `done` on `gpus`, piece by piece where the rate changes with progress.
// Unlike progress_after(), never capped at the job's work: a completion that comes late must show.
double integrate_rate(const ThroughputModel& model, const JobSpec& spec, const Cluster& cluster,
                      std::span<const GpuId> gpus, int batch_size, double done, double seconds) {
  while (seconds > 0.0) {
    const double rate = model.rate_at(spec, cluster, gpus, batch_size, done);
    if (!(rate > 0.0)) break;
    const double breakpoint = model.next_rate_change(spec, done);
    const double need_s =
        breakpoint > done ? (breakpoint - done) / rate : std::numeric_limits<double>::infinity();
    if (!(need_s < seconds)) return done + rate * seconds;
    done = breakpoint;
    seconds -= need_s;
  }
  return done;
}

}  // namespace

InvariantViolation::InvariantViolation(const std::string& rule, SimTime at, const std::string& detail)
    : std::logic_error(fmt::format("invariant '{}' violated at t={:.6f} s: {}", rule, at.seconds(), detail)),
      rule_(rule),
      at_(at) {}

InvariantChecker::InvariantChecker(const Cluster& cluster, const ThroughputModel& model, std::size_t jobs,
                                   ProgressKind progress, double profiling_s)
    : cluster_(cluster),
      model_(model),
      progress_(progress),
      profiling_s_(profiling_s),
      books_(jobs),
      holder_(static_cast<std::size_t>(cluster.total_gpus()), ClusterState::kFree),
      held_by_type_(cluster.gpu_types().size(), 0),
      share_milli_(static_cast<std::size_t>(cluster.total_gpus()), 0),
      share_jobs_(static_cast<std::size_t>(cluster.total_gpus()), 0) {}

std::string InvariantChecker::gpu_name(GpuId gpu) const {
  if (gpu < 0 || gpu >= cluster_.total_gpus()) return fmt::format("GPU #{} (out of range)", gpu);
  const Node& node = cluster_.nodes()[static_cast<std::size_t>(cluster_.node_of(gpu))];
  return fmt::format("GPU {}/g{}", node.name, gpu - node.first_gpu);
}

void InvariantChecker::on_event(const JobEvent& event, const JobRuntime& job) {
  Books& books = books_[static_cast<std::size_t>(event.job)];
  books.spec = event.spec;
  check_not_finished_twice(event, books);
  mark_dirty(event.job);
  switch (event.kind) {
    case JobEventKind::Started: on_started(event, job); break;
    case JobEventKind::Stopped: on_released(event, job); break;
    case JobEventKind::Completed:
      if (!event.gpus.empty()) on_released(event, job);
      check_work_done(event, books);
      on_final(event);
      break;
    case JobEventKind::Rejected:
    case JobEventKind::Unfinished: on_final(event); break;
    case JobEventKind::Arrived: break;
  }
}

void InvariantChecker::on_started(const JobEvent& event, const JobRuntime& job) {
  Books& books = books_[static_cast<std::size_t>(event.job)];
  books.shares_with = event.shares_with;
  books.paired = event.shares_with >= 0;
  if (event.shares_with >= 0) {
    check_host_holds(event);  // space sharing: the GPUs stay the host's
    books_[static_cast<std::size_t>(event.shares_with)].paired = true;
  } else if (shares_gpu(*event.spec)) {
    on_share_started(event);
  } else {
    check_no_gpu_held_twice(event);
    for (GpuId g : event.gpus) {
      holder_[static_cast<std::size_t>(g)] = event.job;
      ++held_by_type_[static_cast<std::size_t>(cluster_.type_of(g))];
    }
    held_ += static_cast<std::int64_t>(event.gpus.size());
  }
  books.started_after_pass = passes_;
  // Progress resumes after the restart overhead the event reports (and the profiling runs, once).
  SimTime from = event.time + SimTime::from_seconds(event.restart_s);
  if (!books.started_once && profiling_s_ > 0.0) from = from + SimTime::from_seconds(profiling_s_);
  books.started_once = true;
  books.productive_from = from;
  open_segment(books, job, *event.spec, event.gpus);
}

void InvariantChecker::on_released(const JobEvent& event, const JobRuntime& job) {
  Books& books = books_[static_cast<std::size_t>(event.job)];
  if (books.shares_with >= 0 || event.shares_with >= 0) {
    if (event.shares_with != books.shares_with)
      throw InvariantViolation(kGpusHeld, event.time,
                               fmt::format("job {} {} sharing the GPUs of job index {}, but it started sharing those "
                                           "of job index {}",
                                           event.spec->id, verb_of(event.kind), event.shares_with, books.shares_with));
    close_segment(books, job, event.time);
    books.rounds_held += passes_ - books.started_after_pass;
    books.shares_with = -1;
    books.ended_paired = true;
    books.paired = false;
    return;
  }
  if (!shares_gpu(*event.spec)) check_release_of_held(event);
  close_segment(books, job, event.time);
  books.rounds_held += passes_ - books.started_after_pass;
  books.ended_paired = books.paired;
  books.paired = false;
  if (shares_gpu(*event.spec)) {
    on_share_released(event);
    return;
  }
  for (GpuId g : event.gpus) {
    holder_[static_cast<std::size_t>(g)] = ClusterState::kFree;
    --held_by_type_[static_cast<std::size_t>(cluster_.type_of(g))];
  }
  held_ -= static_cast<std::int64_t>(event.gpus.size());
}

// A share of one GPU (JobSpec::gpu_milli): the GPU is free or shared, and the shares on it sum to
// at most one GPU. A GPU counts as held once, by its first share.
void InvariantChecker::on_share_started(const JobEvent& event) {
  check_share_fits(event);
  const GpuId g = event.gpus.front();
  const auto i = static_cast<std::size_t>(g);
  if (share_jobs_[i]++ == 0) {
    holder_[i] = ClusterState::kShared;
    ++held_by_type_[static_cast<std::size_t>(cluster_.type_of(g))];
    ++shared_gpus_;
  }
  share_milli_[i] += event.spec->gpu_milli;
  share_milli_held_ += event.spec->gpu_milli;
}

void InvariantChecker::on_share_released(const JobEvent& event) {
  const bool one = event.gpus.size() == 1 && event.gpus.front() >= 0 && event.gpus.front() < cluster_.total_gpus();
  const auto i = one ? static_cast<std::size_t>(event.gpus.front()) : 0;
  if (!one || holder_[i] != ClusterState::kShared || share_jobs_[i] == 0 || share_milli_[i] < event.spec->gpu_milli)
    throw InvariantViolation(kGpusHeld, event.time,
                             fmt::format("job {} {} and released a share of {}, which it did not hold", event.spec->id,
                                         verb_of(event.kind), event.gpus.empty() ? std::string("no GPU") : gpu_name(event.gpus.front())));
  share_milli_[i] -= event.spec->gpu_milli;
  share_milli_held_ -= event.spec->gpu_milli;
  if (--share_jobs_[i] == 0) {
    holder_[i] = ClusterState::kFree;
    --held_by_type_[static_cast<std::size_t>(cluster_.type_of(event.gpus.front()))];
    --shared_gpus_;
  }
}

void InvariantChecker::check_share_fits(const JobEvent& event) const {
  const JobSpec& spec = *event.spec;
  if (event.gpus.size() != 1 || event.gpus.front() < 0 || event.gpus.front() >= cluster_.total_gpus())
    throw InvariantViolation(kShareFits, event.time,
                             fmt::format("job {} asks for {}/1000 of one GPU and started on {} GPUs", spec.id,
                                         spec.gpu_milli, event.gpus.size()));
  const GpuId g = event.gpus.front();
  const std::int64_t holder = holder_[static_cast<std::size_t>(g)];
  if (holder != ClusterState::kFree && holder != ClusterState::kShared)
    throw InvariantViolation(kShareFits, event.time,
                             fmt::format("job {} shares {}, which job {} holds whole", spec.id, gpu_name(g),
                                         books_[static_cast<std::size_t>(holder)].spec->id));
  const int sum = share_milli_[static_cast<std::size_t>(g)] + spec.gpu_milli;
  if (sum > ClusterState::kWholeMilli)
    throw InvariantViolation(kShareFits, event.time,
                             fmt::format("job {}'s {}/1000 brings the shares of {} to {}/1000", spec.id, spec.gpu_milli,
                                         gpu_name(g), sum));
}

void InvariantChecker::mark_dirty(JobIndex j) {
  Books& books = books_[static_cast<std::size_t>(j)];
  if (books.dirty) return;
  books.dirty = true;
  dirty_.push_back(j);
}

void InvariantChecker::on_final(const JobEvent& event) {
  Books& books = books_[static_cast<std::size_t>(event.job)];
  books.final_kind = event.kind;
  books.final_at = event.time;
  if (event.kind == JobEventKind::Completed) ++counts_.completed;
  if (event.kind == JobEventKind::Rejected) ++counts_.rejected;
  if (event.kind == JobEventKind::Unfinished) ++counts_.unfinished;
}

// Adds the work of the current allocation up to `now` to the job's integral.
// A new piece of the integral at the job's current batch size and rate on `gpus`.
void InvariantChecker::open_segment(Books& books, const JobRuntime& job, const JobSpec& spec,
                                    std::span<const GpuId> gpus) const {
  books.batch_size = job.batch_size;
  books.rate = progress_ != ProgressKind::Exact ? job.rate
                                               : model_.rate_at(spec, cluster_, gpus, books.batch_size, books.work);
  books.max_rate = std::max(books.max_rate, books.rate);
  ++books.segments;
}

void InvariantChecker::close_segment(Books& books, const JobRuntime& job, SimTime now) const {
  if (now > books.productive_from) {
    const double dt_s = (now - books.productive_from).seconds();
    books.work = progress_ != ProgressKind::Exact
                     ? books.work + books.rate * dt_s
                     : integrate_rate(model_, *job.spec, cluster_, job.gpus, books.batch_size, books.work, dt_s);
    books.productive_from = now;
  }
}

double InvariantChecker::work_tolerance(const Books& books, const JobSpec& spec) const {
  return kWorkRelativeTolerance * std::abs(spec.work) +
         books.max_rate * kWorkClockSlackS * static_cast<double>(books.segments + 1);
}

void InvariantChecker::after_pass(SimTime now, const JobTable& table) {
  ++passes_;
  check_gpus_held(now, table);
}

// The policy changed the batch size in place: a new piece of the integral at the new rate.
void InvariantChecker::on_rate_change(const JobRuntime& job, SimTime now) {
  Books& books = books_[static_cast<std::size_t>(job.index)];
  close_segment(books, job, now);
  books.productive_from = std::max(books.productive_from, now);
  open_segment(books, job, *job.spec, job.gpus);
}

void InvariantChecker::before_completion(const JobRuntime& job, SimTime now) const {
  if (progress_ == ProgressKind::WholeSteps) return;  // Gavel's steps are counted at the round's end
  const Books& books = books_[static_cast<std::size_t>(job.index)];
  const double tolerance = work_tolerance(books, *job.spec);
  if (!(std::abs(job.remaining_work) <= tolerance))
    throw InvariantViolation(kNoLeftover, now,
                             fmt::format("job {} completed with {:.9g} of its {:.9g} work units left (tolerance {:.3g})",
                                         job.spec->id, job.remaining_work, job.spec->work, tolerance));
}

void InvariantChecker::at_run_end(SimTime end) const {
  for (std::size_t i = 0; i < books_.size(); ++i) {
    if (books_[i].final_kind != JobEventKind::Arrived) continue;
    const std::string name = books_[i].spec ? "job " + books_[i].spec->id : fmt::format("job index {}", i);
    throw InvariantViolation(kAccounted, end,
                             name + " was read but has no final event (completed, rejected or unfinished)");
  }
  if (held_ != 0 || shared_gpus_ != 0)
    throw InvariantViolation(kGpusHeld, end, fmt::format("{} GPUs still held when every job is final", held_ + shared_gpus_));
}

void InvariantChecker::check_no_gpu_held_twice(const JobEvent& event) const {
  for (GpuId g : event.gpus) {
    if (g < 0 || g >= cluster_.total_gpus())
      throw InvariantViolation(kGpuExclusive, event.time, fmt::format("job {} started on {}", event.spec->id, gpu_name(g)));
    const std::int64_t other = holder_[static_cast<std::size_t>(g)];
    if (other == ClusterState::kShared)
      throw InvariantViolation(kGpuExclusive, event.time,
                               fmt::format("job {} holds {}, which {} fractional jobs share", event.spec->id,
                                           gpu_name(g), share_jobs_[static_cast<std::size_t>(g)]));
    if (other != ClusterState::kFree)
      throw InvariantViolation(kGpuExclusive, event.time,
                               fmt::format("job {} and job {} both hold {}", books_[static_cast<std::size_t>(other)].spec->id,
                                           event.spec->id, gpu_name(g)));
  }
  const std::size_t n = event.gpus.size();
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b)
      if (event.gpus[a] == event.gpus[b])
        throw InvariantViolation(kGpuExclusive, event.time,
                                 fmt::format("job {} holds {} twice", event.spec->id, gpu_name(event.gpus[a])));
}

void InvariantChecker::check_release_of_held(const JobEvent& event) const {
  for (GpuId g : event.gpus) {
    const bool in_range = g >= 0 && g < cluster_.total_gpus();
    if (in_range && holder_[static_cast<std::size_t>(g)] == event.job) continue;
    throw InvariantViolation(kGpusHeld, event.time,
                             fmt::format("job {} {} and released {}, which it did not hold", event.spec->id,
                                         verb_of(event.kind), gpu_name(g)));
  }
}

// A running job's allocation: GPUs it owns in the cluster state and per its own events.
void InvariantChecker::check_allocation(SimTime now, const JobRuntime& job, const JobTable& table) const {
  if (job.gpus.empty() || table.running().count(job.index) == 0)
    throw InvariantViolation(kGpusHeld, now, fmt::format("job {} is running with {} GPUs and {} in the running set",
                                                         job.spec->id, job.gpus.size(),
                                                         table.running().count(job.index) ? "is" : "is not"));
  if (shares_gpu(*job.spec)) {
    check_share_allocation(now, job, table);
    return;
  }
  auto name = [](std::int64_t j) {
    if (j == ClusterState::kShared) return std::string("fractional jobs sharing it");
    return j == ClusterState::kFree ? std::string("nobody") : fmt::format("job index {}", j);
  };
  for (GpuId g : job.gpus) {
    const bool in_range = g >= 0 && g < cluster_.total_gpus();
    const std::int64_t owner = in_range ? table.state().owner(g) : ClusterState::kFree;
    const std::int64_t holder = in_range ? holder_[static_cast<std::size_t>(g)] : ClusterState::kFree;
    if (owner != job.index || holder != job.index)
      throw InvariantViolation(kGpusHeld, now,
                               fmt::format("job {}'s allocation has {}, which the cluster state gives to {} and its "
                                           "events to {}",
                                           job.spec->id, gpu_name(g), name(owner), name(holder)));
  }
}

// Space sharing: a job starts on GPUs its host holds (per the events).
void InvariantChecker::check_host_holds(const JobEvent& event) const {
  for (GpuId g : event.gpus) {
    const bool in_range = g >= 0 && g < cluster_.total_gpus();
    if (in_range && holder_[static_cast<std::size_t>(g)] == event.shares_with) continue;
    throw InvariantViolation(kGpuExclusive, event.time,
                             fmt::format("job {} started sharing {} with job index {}, which does not hold it",
                                         event.spec->id, gpu_name(g), event.shares_with));
  }
}

// Space sharing at a pass: the sharer runs on exactly its host's GPUs, which the host holds.
void InvariantChecker::check_shared_allocation(SimTime now, const JobRuntime& job, JobIndex host,
                                               const JobTable& table) const {
  const JobRuntime& h = table.job(host);
  if (job.gpus.empty() || table.running().count(job.index) == 0 || h.status != JobStatus::Running || h.gpus != job.gpus)
    throw InvariantViolation(kGpusHeld, now,
                             fmt::format("job {} shares the GPUs of job {}, which does not run on the same GPUs",
                                         job.spec->id, h.spec->id));
  check_allocation(now, h, table);
}

// A running share: one GPU, shared in the cluster state with this job among its sharers, and
// shared per the events.
void InvariantChecker::check_share_allocation(SimTime now, const JobRuntime& job, const JobTable& table) const {
  const GpuId g = job.gpus.front();
  const bool ok = job.gpus.size() == 1 && g >= 0 && g < cluster_.total_gpus() &&
                  table.state().owner(g) == ClusterState::kShared &&
                  holder_[static_cast<std::size_t>(g)] == ClusterState::kShared &&
                  std::find(table.state().sharers(g).begin(), table.state().sharers(g).end(), job.index) !=
                      table.state().sharers(g).end();
  if (!ok)
    throw InvariantViolation(kGpusHeld, now,
                             fmt::format("job {} runs on a share of {}, which the cluster state or its events do not "
                                         "show it sharing",
                                         job.spec->id, gpu_name(g)));
}

// The shares of the running jobs, the cluster state's and the events' agree, in GPUs and thousandths.
void InvariantChecker::check_shares_held(SimTime now, const JobTable& table) const {
  const ClusterState& state = table.state();
  if (share_milli_allocated_ == state.shared_milli_total() && share_milli_allocated_ == share_milli_held_ &&
      shared_gpus_ == state.shared_gpus())
    return;
  throw InvariantViolation(kGpusHeld, now,
                           fmt::format("running jobs hold {}/1000 of shared GPUs, the cluster state counts {}/1000 on "
                                       "{} shared GPUs, the events {}/1000 on {}",
                                       share_milli_allocated_, state.shared_milli_total(), state.shared_gpus(),
                                       share_milli_held_, shared_gpus_));
}

// The jobs with an event since the last pass are checked one by one and recounted; the totals
// (from the table's allocations, the cluster state and the events) must then agree.
void InvariantChecker::check_gpus_held(SimTime now, const JobTable& table) {
  for (JobIndex j : dirty_) {
    Books& books = books_[static_cast<std::size_t>(j)];
    books.dirty = false;
    const JobRuntime& job = table.job(j);
    const bool running = job.status == JobStatus::Running;
    const bool sharing = running && books.shares_with >= 0;
    if (sharing)
      check_shared_allocation(now, job, books.shares_with, table);
    else if (running)
      check_allocation(now, job, table);
    allocated_ -= books.counted_gpus;
    share_milli_allocated_ -= books.counted_milli;
    running_counted_ -= (books.counted_gpus > 0 || books.counted_milli > 0 ? 1 : 0) + (books.counted_sharing ? 1 : 0);
    const bool share = shares_gpu(*job.spec);
    books.counted_gpus = running && !sharing && !share ? static_cast<int>(job.gpus.size()) : 0;
    books.counted_milli = running && share ? job.spec->gpu_milli : 0;
    books.counted_sharing = sharing;
    allocated_ += books.counted_gpus;
    share_milli_allocated_ += books.counted_milli;
    running_counted_ += (books.counted_gpus > 0 || books.counted_milli > 0 ? 1 : 0) + (sharing ? 1 : 0);
  }
  dirty_.clear();
  check_shares_held(now, table);
  const ClusterState& state = table.state();
  // GPUs held whole: a shared GPU is used (not free) but held by shares, counted above.
  const std::int64_t in_use = cluster_.total_gpus() - state.free_total() - state.shared_gpus();
  if (allocated_ != in_use || allocated_ != held_ || running_counted_ != table.running().size())
    throw InvariantViolation(kGpusHeld, now,
                             fmt::format("{} running jobs hold {} GPUs, the cluster state counts {} in use and {} jobs "
                                         "running, the events gave out {}",
                                         running_counted_, allocated_, in_use, table.running().size(), held_));
  for (std::size_t t = 0; t < held_by_type_.size(); ++t) {
    const auto type = static_cast<GpuTypeId>(t);
    const int in_use_t = cluster_.gpus_of_type(type) - state.free_of_type(type);
    if (held_by_type_[t] != in_use_t)
      throw InvariantViolation(kGpusHeld, now,
                               fmt::format("the events gave out {} GPUs of type {}, the cluster state counts {} in use",
                                           held_by_type_[t], cluster_.gpu_types()[t].name, in_use_t));
  }
}

// Event mechanism: the integral equals the work. Gavel's whole steps: a job may idle at the end of
// each round it holds (the fractional step it cannot take, and the wait for the round's last job),
// so the integral covers the work and exceeds it by at most one step per round held.
void InvariantChecker::check_work_done(const JobEvent& event, const Books& books) const {
  const double work = event.spec->work, integral = books.work;
  const double tolerance = work_tolerance(books, *event.spec);
  const double idle_allowance = progress_ == ProgressKind::WholeSteps ? static_cast<double>(books.rounds_held) : 0.0;
  // Space sharing: a job of a pair that completes in a round waits for the pair's end (Gavel's
  // pair finish), so only the lower bound holds for it.
  const bool waited_for_partner = books.ended_paired && progress_ == ProgressKind::WholeSteps;
  if (integral >= work - tolerance && (waited_for_partner || integral <= work + idle_allowance + tolerance)) return;
  throw InvariantViolation(
      kWorkDone, event.time,
      fmt::format("job {} completed with {:.9g} work units done by the integral of its rate over {} allocation(s), "
                  "but its work is {:.9g} (tolerance {:.3g}{})",
                  event.spec->id, integral, books.segments, work, tolerance,
                  idle_allowance > 0 ? fmt::format(", plus up to {:.0f} idle steps over its rounds", idle_allowance) : ""));
}

void InvariantChecker::check_not_finished_twice(const JobEvent& event, const Books& books) const {
  if (books.final_kind == JobEventKind::Arrived) return;
  throw InvariantViolation(kFinishedOnce, event.time,
                           fmt::format("job {} {} after it {} at t={:.6f} s", event.spec->id, verb_of(event.kind),
                                       verb_of(books.final_kind), books.final_at.seconds()));
}

void check_summary_invariants(const RunSummary& summary, const FinalEventCounts& finals, SimTime end) {
  const std::size_t events = finals.completed + finals.rejected + finals.unfinished;
  if (summary.completed != finals.completed || summary.rejected != finals.rejected ||
      summary.unfinished != finals.unfinished || summary.jobs_read != events)
    throw InvariantViolation(
        kAccounted, end,
        fmt::format("the summary counts {} jobs read = {} completed + {} rejected + {} unfinished, but the final events "
                    "are {} completed + {} rejected + {} unfinished",
                    summary.jobs_read, summary.completed, summary.rejected, summary.unfinished, finals.completed,
                    finals.rejected, finals.unfinished));
  auto check = [&](const std::string& what, double u) {
    if (u >= -kUtilisationSlack && u <= 1.0 + kUtilisationSlack) return;
    throw InvariantViolation(kUtilisation, end, fmt::format("{} is {:.9g}", what, u));
  };
  if (summary.utilization) check("utilisation", *summary.utilization);  // empty when the window is
  for (const auto& [type, u] : summary.utilization_by_type) check("utilisation of " + type, u);
}

}  // namespace hetsim
