// Goodput = throughput x statistical efficiency, as the Pollux simulator computes a job's true
// progress (petuum/adaptdl, osdi21-artifact, simulator/simulator.py Job.step; goodput.py).
#include "hetsim/perf/goodput_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "delaunay_cache.hpp"
#include "hetsim/perf/pollux_fit.hpp"
#include "hetsim/util/error.hpp"
#include "progress_walk.hpp"

namespace hetsim {

Placement placement_of(const Cluster& cluster, std::span<const GpuId> gpus) {
  Placement p;
  NodeId last = -1;
  for (GpuId g : gpus) {
    NodeId n = cluster.node_of(g);
    if (p.empty() || n != last) p.push_back(0);
    ++p.back();
    last = n;
  }
  return p;
}

Placement packed_placement(int count, int per_node) {
  Placement p;
  while (count > 0) {
    p.push_back(std::min(count, per_node));
    count -= p.back();
  }
  return p;
}

GoodputModel::GoodputModel(const Cluster& cluster, std::map<std::string, PolluxApplication> apps,
                           std::unique_ptr<StepTimeModel> steps)
    : cluster_(cluster), apps_(std::move(apps)), steps_(std::move(steps)) {}

const PolluxApplication* GoodputModel::app(const std::string& name) const {
  auto it = apps_.find(name);
  return it == apps_.end() ? nullptr : &it->second;
}

int GoodputModel::default_batch(const JobSpec& job, int replicas) const {
  if (job.global_batch_size > 0) return job.global_batch_size;
  const PolluxApplication* a = app(job.job_type);
  if (!a) return 0;
  return std::max(a->init_batch_size(), a->min_local_bsz() * replicas);
}

double GoodputModel::iteration_time_s(const PolluxApplication& a, const std::string& gpu_type,
                                      const Placement& placement, const LocalBatch& batch) const {
  StepTime st = steps_->step_time(a, gpu_type, placement, batch.atomic_bsz);
  double accum_s = st.step_s - st.sync_s;  // forward/backward of one micro-batch
  return st.step_s + accum_s * batch.accum_steps;
}

std::optional<GoodputModel::GoodputStep> GoodputModel::goodput_step(const PolluxApplication& a,
                                                                   const std::string& gpu_type,
                                                                   const Placement& placement, int batch_size) const {
  int replicas = 0;
  for (int g : placement) replicas += g;
  if (replicas <= 0 || batch_size <= 0) return std::nullopt;
  LocalBatch lb = split_batch(a, batch_size, replicas);
  if (lb.atomic_bsz < 1) return std::nullopt;
  double total_s = iteration_time_s(a, gpu_type, placement, lb);
  if (!(total_s > 0)) return std::nullopt;
  return GoodputStep{total_s, static_cast<double>(lb.global(replicas))};
}

double GoodputModel::statistical_gain(const PolluxApplication& a, double global_batch, int epoch) {
  const double bs = global_batch;
  double scale = bs / a.init_batch_size();
  // Gradient statistics are looked up inside the validated range (the split never leaves it for
  // admitted jobs; the clamp only guards rounding).
  double lookup = std::clamp(bs, static_cast<double>(a.init_batch_size()), static_cast<double>(a.max_batch_size()));
  auto [sqr, var] = a.grad_stats(lookup, epoch);
  double denom = var / scale + sqr;
  return denom > 0 ? (var + sqr) / denom : 1.0;
}

double GoodputModel::goodput_at(const PolluxApplication& a, const GoodputStep& step, int epoch) const {
  return statistical_gain(a, step.global_batch, epoch) / step.iteration_s;
}

double GoodputModel::goodput(const PolluxApplication& a, const std::string& gpu_type, const Placement& placement,
                             int batch_size, int epoch) const {
  const std::optional<GoodputStep> step = goodput_step(a, gpu_type, placement, batch_size);
  return step ? goodput_at(a, *step, epoch) : 0.0;
}

double GoodputModel::rate(const JobSpec& job, const AllocationShape& shape) const {
  const PolluxApplication* a = app(job.job_type);
  if (!a || shape.gpu_count <= 0) return 0.0;
  const std::string& name = cluster_.gpu_types().at(static_cast<std::size_t>(shape.gpu_type)).name;
  if (!a->profile(name)) return 0.0;
  int per_node = shape.consolidated ? shape.gpu_count : cluster_.max_gpus_per_node(shape.gpu_type);
  const int batch = default_batch(job, shape.gpu_count);
  const auto key = std::make_tuple(a, shape.gpu_type, shape.gpu_count, per_node, batch);
  if (auto it = shape_rates_.find(key); it != shape_rates_.end()) return it->second;
  const double r = goodput(*a, name, packed_placement(shape.gpu_count, per_node), batch, 0);
  shape_rates_.emplace(key, r);
  return r;
}

// The goodput of `job` (application memo.app) on `gpus` at `epoch`, before rate_at's rules. On GPUs
// of one type (the usual case) the step time is looked up once per GPUs and batch and only the
// statistical efficiency of each epoch is computed: goodput() = goodput_at(goodput_step(), epoch).
double GoodputModel::memo_rate(RateMemo& memo, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size,
                               int epoch, const JobSpec& job) const {
  const PolluxApplication& a = *memo.app;
  const int b = batch_size > 0 ? batch_size : default_batch(job, static_cast<int>(gpus.size()));
  if (!memo.step_known) {
    memo.step_known = true;
    const GpuTypeId first = cluster.type_of(gpus.front());
    memo.one_type = std::all_of(gpus.begin(), gpus.end(), [&](GpuId g) { return cluster.type_of(g) == first; });
    if (memo.one_type) {
      const std::string& name = cluster.gpu_types()[static_cast<std::size_t>(first)].name;
      memo.profiled = a.profile(name) != nullptr;
      if (memo.profiled) memo.step = goodput_step(a, name, placement_of(cluster, gpus), b);
      if (memo.step) {
        memo.gains = &gains_[{&a, memo.step->global_batch}];
        if (memo.gains->empty()) memo.gains->assign(static_cast<std::size_t>(std::max(a.max_epochs(), 1)), std::numeric_limits<double>::quiet_NaN());
      }
    }
  }
  if (memo.one_type) {
    if (!memo.profiled) return 0.0;
    if (!memo.step) return 0.0;
    // The same expression as the loop below over one type: goodput_at, its gain kept in gains_.
    double gain = 0.0;
    if (epoch >= 0 && static_cast<std::size_t>(epoch) < memo.gains->size()) {
      double& known = (*memo.gains)[static_cast<std::size_t>(epoch)];
      if (std::isnan(known)) known = statistical_gain(a, memo.step->global_batch, epoch);
      gain = known;
    } else {
      gain = statistical_gain(a, memo.step->global_batch, epoch);
    }
    return std::min(std::numeric_limits<double>::infinity(), gain / memo.step->iteration_s);
  }
  Placement p = placement_of(cluster, gpus);
  // A job spanning GPU types runs at the pace of its slowest type (synchronous data parallelism).
  std::set<GpuTypeId> types;
  for (GpuId g : gpus) types.insert(cluster.type_of(g));
  double rate = std::numeric_limits<double>::infinity();
  for (GpuTypeId t : types) {
    const std::string& name = cluster.gpu_types()[static_cast<std::size_t>(t)].name;
    if (!a.profile(name)) return 0.0;
    rate = std::min(rate, goodput(a, name, p, b, epoch));
  }
  return rate;
}

GoodputModel::RateMemo& GoodputModel::memo_of(const JobSpec& job) const {
  // The type check stays on this path too: a JobSpec whose type changed gets a fresh memo.
  if (&job == last_job_ && last_memo_->job_type == job.job_type) return *last_memo_;
  RateMemo& memo = rate_memo_[&job];
  if (memo.app == nullptr || memo.job_type != job.job_type) {
    memo = RateMemo{};
    memo.job_type = job.job_type;
    memo.app = app(job.job_type);
  }
  last_job_ = &job;
  last_memo_ = &memo;
  return memo;
}

// Forgets the memo's goodputs when the job's GPUs, batch or cluster are not those it was made for.
void GoodputModel::key_memo(RateMemo& memo, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size) const {
  if (memo.batch_size == batch_size && memo.cluster == &cluster &&
      std::equal(gpus.begin(), gpus.end(), memo.gpus.begin(), memo.gpus.end()))
    return;
  memo.cluster = &cluster;
  memo.gpus.assign(gpus.begin(), gpus.end());
  memo.batch_size = batch_size;
  memo.by_epoch.assign(static_cast<std::size_t>(std::max(memo.app->max_epochs(), 1)), std::numeric_limits<double>::quiet_NaN());
  memo.step_known = false;
  memo.step.reset();
}

// rate_at on a memo of this job (application known, GPUs not empty) keyed to these GPUs and batch.
double GoodputModel::rate_in(RateMemo& memo, const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                             int batch_size, double done) const {
  const PolluxApplication* a = memo.app;
  const int done_epoch = memo_epoch(memo, *a, done);
  int epoch = std::min(done_epoch, a->max_epochs() - 1);
  double rate = 0.0;
  if (epoch >= 0 && static_cast<std::size_t>(epoch) < memo.by_epoch.size()) {
    double& known = memo.by_epoch[static_cast<std::size_t>(epoch)];
    if (std::isnan(known)) known = memo_rate(memo, cluster, gpus, batch_size, epoch, job);
    rate = known;
  } else {
    rate = memo_rate(memo, cluster, gpus, batch_size, epoch, job);
  }
  if (!std::isfinite(rate) || !(rate > 0.0)) return 0.0;
  if (whole_second_epochs_) {
    // The simulator advances its clock by round((boundary - progress) / goodput) whole seconds when
    // a job crosses an epoch boundary (Job.step); emulate by stretching or shrinking this piece.
    double to_boundary = a->progress_at_epoch(done_epoch + 1) - done;
    if (to_boundary > 0.0) {
      double seconds = std::max(std::nearbyint(to_boundary / rate), 1e-6);
      rate = to_boundary / seconds;
    }
  }
  return rate;
}

double GoodputModel::rate_at(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus, int batch_size,
                             double done) const {
  RateMemo& memo = memo_of(job);
  if (!memo.app || gpus.empty()) return 0.0;
  key_memo(memo, cluster, gpus, batch_size);
  return rate_in(memo, job, cluster, gpus, batch_size, done);
}

// next_rate_change on the job's memo (application known).
double GoodputModel::next_change_in(RateMemo& memo, double done) {
  const int e = memo_epoch(memo, *memo.app, done);
  if (e >= memo.app->max_epochs()) return std::numeric_limits<double>::infinity();
  return memo.app->progress_at_epoch(e + 1);
}

// The base class's walks with the job's memo looked up and keyed once, not at every epoch: the
// same rate_in and next_change_in values in the same order, so the same arithmetic bit for bit.
double GoodputModel::integrate_progress(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                                        int batch_size, double done, double seconds) const {
  if (!(seconds > 0.0 && done < job.work)) return done;
  RateMemo& memo = memo_of(job);
  if (!memo.app || gpus.empty()) return done;  // rate 0: no progress
  key_memo(memo, cluster, gpus, batch_size);
  return perf_detail::walk_progress(
      job.work, done, seconds, [&](double d) { return rate_in(memo, job, cluster, gpus, batch_size, d); },
      [&](double d) { return next_change_in(memo, d); });
}

double GoodputModel::time_to_finish_s(const JobSpec& job, const Cluster& cluster, std::span<const GpuId> gpus,
                                      int batch_size, double done) const {
  if (!(done < job.work)) return 0.0;
  RateMemo& memo = memo_of(job);
  if (!memo.app || gpus.empty()) return std::numeric_limits<double>::infinity();
  key_memo(memo, cluster, gpus, batch_size);
  return perf_detail::walk_to_finish(
      job.work, done, [&](double d) { return rate_in(memo, job, cluster, gpus, batch_size, d); },
      [&](double d) { return next_change_in(memo, d); });
}

int GoodputModel::memo_epoch(RateMemo& memo, const PolluxApplication& a, double done) {
  if (memo.epoch >= 0 && done >= memo.epoch_lo && done < memo.epoch_hi) return memo.epoch;
  // A walk steps from one epoch's upper boundary into the next epoch: check that one before searching.
  if (memo.epoch >= 0 && memo.epoch < a.max_epochs() && done >= memo.epoch_hi) {
    const int e = memo.epoch + 1;
    const double hi = e >= a.max_epochs() ? std::numeric_limits<double>::infinity() : a.progress_at_epoch(e + 1);
    if (done < hi) {
      memo.epoch = e;
      memo.epoch_lo = memo.epoch_hi;  // progress_at_epoch(e)
      memo.epoch_hi = hi;
      return e;
    }
  }
  // epoch_of(done) == e means progress_at_epoch(e) <= done < progress_at_epoch(e + 1) (epoch 0:
  // anything below the first boundary; the last epoch: anything from its boundary on).
  const int e = a.epoch_of(done);
  memo.epoch = e;
  memo.epoch_lo = e == 0 ? -std::numeric_limits<double>::infinity() : a.progress_at_epoch(e);
  memo.epoch_hi = e >= a.max_epochs() ? std::numeric_limits<double>::infinity() : a.progress_at_epoch(e + 1);
  return e;
}

double GoodputModel::next_rate_change(const JobSpec& job, double done) const {
  // rate_at's memo of this job, when it is of this application: no look-up by name, and its epoch.
  if (&job == last_job_ && last_memo_->app && last_memo_->job_type == job.job_type)
    return next_change_in(*last_memo_, done);
  if (auto m = rate_memo_.find(&job); m != rate_memo_.end() && m->second.app && m->second.job_type == job.job_type)
    return next_change_in(m->second, done);
  const PolluxApplication* a = app(job.job_type);
  if (!a) return std::numeric_limits<double>::infinity();
  const int e = a->epoch_of(done);
  if (e >= a->max_epochs()) return std::numeric_limits<double>::infinity();
  return a->progress_at_epoch(e + 1);
}

std::optional<std::string> GoodputModel::check_job(const JobSpec& job, const Cluster& cluster) const {
  const PolluxApplication* a = app(job.job_type);
  if (!a) return fmt::format("job {}: application '{}' has no profile", job.id, job.job_type);
  if (job.global_batch_size != 0 &&
      (job.global_batch_size < a->init_batch_size() || job.global_batch_size > a->max_batch_size()))
    return fmt::format("job {}: batch size {} is outside {}'s validated range [{}, {}]", job.id,
                       job.global_batch_size, a->name(), a->init_batch_size(), a->max_batch_size());
  for (const GpuType& t : cluster.gpu_types())
    if (a->profile(t.name)) return std::nullopt;
  return fmt::format("job {}: application '{}' has no step profile for any GPU type of cluster '{}'", job.id,
                     job.job_type, cluster.name());
}

std::unique_ptr<GoodputModel> load_goodput_model(const Cluster& cluster, const Workload& workload,
                                                 const std::vector<std::string>& roots, const std::string& step_model) {
  std::unique_ptr<StepTimeModel> steps;
  std::map<std::string, PolluxApplication> apps;
  for (const JobSpec& j : workload.jobs) {
    if (j.job_type.empty() || apps.count(j.job_type)) continue;
    try {
      apps.emplace(j.job_type, PolluxApplication::load(j.job_type, roots));
    } catch (const InputError& e) {
      // An application without profiles is the workload's error: name its first row. Errors
      // inside a profile file already name that file.
      if (!e.file().empty()) throw;
      throw InputError(j.source_file ? *j.source_file : std::string(), j.source_line, "application",
                       fmt::format("job {}: {}", j.id, e.message()));
    }
  }
  if (step_model == "pollux-table") {
    // The folder of Delaunay triangulations kept between runs (docs/models.md; on by default,
    // HETSIM_CACHE_DIR=off turns it off): Qhull's build is most of a short run's CPU time, and a
    // pure function of the profiles.
    steps = std::make_unique<PolluxTableStepModel>(perf_detail::run_cache_dir());
  } else if (step_model == "pollux-fit") {
    steps = std::make_unique<PolluxFitStepModel>(apps);
  } else {
    throw InputError("", 0, "--step-model", "unknown step-time model '" + step_model + "' (known: pollux-table, pollux-fit)");
  }
  return std::make_unique<GoodputModel>(cluster, std::move(apps), std::move(steps));
}

std::vector<std::string> missing_profile_warnings(const GoodputModel& model, const Cluster& cluster) {
  std::vector<std::string> out;
  for (const auto& [name, app] : model.apps()) {
    std::vector<std::string> missing;
    for (const GpuType& t : cluster.gpu_types())
      if (!app.profile(t.name)) missing.push_back(t.name);
    if (missing.size() == cluster.gpu_types().size()) continue;  // rejected per job instead
    for (const std::string& t : missing)
      out.push_back(fmt::format("application '{}' has no step profile for GPU type '{}' of cluster '{}': its jobs "
                                "are not run on {}",
                                name, t, cluster.name(), t));
  }
  return out;
}

void attach_goodput_work(Workload& workload, const GoodputModel& model, bool sia_restart_costs) {
  for (JobSpec& j : workload.jobs) {
    const PolluxApplication* a = model.app(j.job_type);
    if (!a) continue;
    j.unit = WorkUnit::StatisticalProgress;
    j.work = a->total_progress();
    j.min_gpus = 1;
    int elastic_max = j.global_batch_size > 0 ? j.global_batch_size / a->min_local_bsz() : a->max_batch_size() / a->min_local_bsz();
    j.max_gpus = j.job_type == "ncf" ? j.requested_gpus : std::max(j.requested_gpus, elastic_max);
    if (sia_restart_costs) {
      if (auto c = sia_restart_cost_s(j.job_type)) j.restart_overhead_s = *c;
    }
  }
}

std::vector<std::string> default_profile_roots(const std::string& workload_path) {
  namespace fs = std::filesystem;
  std::vector<std::string> roots;
  fs::path dir = fs::absolute(fs::path(workload_path)).parent_path();
  while (!dir.empty()) {
    if (fs::is_directory(dir / "traces")) {
      roots.push_back((dir / "traces").string());
      fs::path pollux = dir.parent_path() / "pollux" / "traces";
      if (fs::is_directory(pollux) && fs::weakly_canonical(pollux) != fs::weakly_canonical(dir / "traces"))
        roots.push_back(pollux.string());
      break;
    }
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return roots;
}

}  // namespace hetsim
