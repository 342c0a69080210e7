// Pollux/Sia application profiles. Rules follow the Pollux simulator (petuum/adaptdl, branch
// osdi21-artifact, simulator/applications.py and simulator.py, Job.update_local_bsz); the code is
// hetsim's own.
#include "hetsim/perf/pollux_app.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <limits>

#include "csv_columns.hpp"
#include "delaunay_cache.hpp"
#include "profile_csv_cache.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "hetsim/util/exact_whole.hpp"

namespace hetsim {
namespace fs = std::filesystem;
using perf_detail::read_numeric_csv;

std::optional<std::vector<std::string>> profile_suffixes(const std::string& gpu_type) {
  // Pollux measured T4 on AWS (placements.csv); Sia adds -aws (the same T4 files), -dgx-ext (more
  // batch sizes than -dgx, so preferred), -azure (V100), -quad (Quadro RTX 6000), -rtx (2080 Ti).
  if (gpu_type == "t4") return std::vector<std::string>{"", "-aws"};
  if (gpu_type == "a100") return std::vector<std::string>{"-dgx-ext", "-dgx"};
  if (gpu_type == "v100") return std::vector<std::string>{"-azure"};
  if (gpu_type == "quadro6000") return std::vector<std::string>{"-quad"};
  if (gpu_type == "rtx2080ti") return std::vector<std::string>{"-rtx"};
  return std::nullopt;
}

std::optional<double> sia_restart_cost_s(const std::string& application) {
  // Sia's simulator charges a per-application checkpoint-restart delay.
  static const std::pair<const char*, double> kCosts[] = {{"ncf", 15.0},   {"deepspeech2", 25.0}, {"cifar10", 50.0},
                                                          {"yolov3", 80.0}, {"bert", 120.0},      {"imagenet", 250.0}};
  for (const auto& [name, cost] : kCosts)
    if (application == name) return cost;
  return std::nullopt;
}

namespace {

// Batch sizes and GPU counts of step-time rows become ints (and divisors of the batch split):
// whole numbers from 1 to a million, which every published profile's are ("163.0" included).
int whole_count(double value, const std::string& path, std::size_t line, const char* field) {
  if (!(value >= 1.0 && value <= 1e6) || value != std::floor(value))
    throw InputError(path, line, field, fmt::format("expected a whole number from 1 to 1000000, got {}", value));
  return static_cast<int>(value);
}

}  // namespace

namespace {

std::vector<StepSample> step_samples_of(const perf_detail::NumericCsv& csv, bool scalability) {
  const std::string& path = csv.path;
  // The application's per-GPU batch range is taken from its placements rows.
  if (!scalability && csv.size() == 0) throw InputError(path, 0, "", "no step-time rows (only a header)");
  std::vector<StepSample> out;
  out.reserve(csv.size());
  const std::size_t bsz = csv.column("local_bsz"), step = csv.column("step_time"), sync = csv.column("sync_time");
  for (std::size_t i = 0; i < csv.size(); ++i) {
    const double* r = csv.row(i);
    StepSample s;
    s.local_bsz = whole_count(r[bsz], path, csv.lines[i], "local_bsz");
    s.step_time_s = r[step];
    s.sync_time_s = r[sync];
    if (scalability) {
      s.num_nodes = whole_count(r[csv.column("num_nodes")], path, csv.lines[i], "num_nodes");
      s.num_replicas = whole_count(r[csv.column("num_replicas")], path, csv.lines[i], "num_replicas");
    } else {
      double p = r[csv.column("placement")];
      if (!(p >= 1.0) || p != std::floor(p))
        throw InputError(path, csv.lines[i], "placement", "expected GPUs per node as digits (e.g. 1111)");
      // Whole numbers below 2^53 print as their integer ("{:.0f}" gives the same digits).
      s.placement = p < kExactWholeDoubleLimit ? std::to_string(static_cast<long long>(p)) : fmt::format("{:.0f}", p);
      s.num_nodes = static_cast<int>(s.placement.size());
      for (char c : s.placement) s.num_replicas += c - '0';
    }
    const std::size_t line = csv.lines[i];
    if (!(s.step_time_s > 0))
      throw InputError(path, line, "step_time", fmt::format("must be a positive number of seconds, got {}", s.step_time_s));
    if (!(s.sync_time_s >= 0))
      throw InputError(path, line, "sync_time", fmt::format("must be a number of seconds >= 0, got {}", s.sync_time_s));
    if (s.num_nodes < 1 || s.num_replicas < s.num_nodes)
      throw InputError(path, line, scalability ? "num_replicas" : "placement",
                       fmt::format("implausible: {} nodes, {} replicas (each node needs at least one)", s.num_nodes,
                                   s.num_replicas));
    out.push_back(std::move(s));
  }
  return out;
}

ValidationCurve validation_curve_of(const perf_detail::NumericCsv& csv, int batch_size) {
  const std::string& path = csv.path;
  ValidationCurve c;
  c.batch_size = batch_size;
  const std::size_t pr = csv.column("progress"), it = csv.column("iteration"), me = csv.column("metric"),
                    sq = csv.column("grad_sqr"), va = csv.column("grad_var");
  const std::size_t rows = csv.size();
  for (auto* v : {&c.progress, &c.iteration, &c.metric, &c.grad_sqr, &c.grad_var}) v->reserve(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const double* r = csv.row(i);
    c.progress.push_back(r[pr]);
    c.iteration.push_back(r[it]);
    c.metric.push_back(r[me]);
    c.grad_sqr.push_back(r[sq]);
    c.grad_var.push_back(r[va]);
  }
  if (c.progress.empty()) throw InputError(path, 0, "", "no epochs");
  return c;
}

}  // namespace

std::vector<StepSample> read_step_samples(const std::string& path, std::string_view text, bool scalability) {
  return step_samples_of(read_numeric_csv(path, text), scalability);
}

ValidationCurve read_validation_curve(const std::string& path, std::string_view text, int batch_size) {
  return validation_curve_of(read_numeric_csv(path, text), batch_size);
}

PolluxApplication PolluxApplication::load(const std::string& name, const std::vector<std::string>& roots) {
  std::map<int, ValidationCurve> validation;
  std::map<std::string, StepProfile> profiles;
  std::string tried;
  // Parsed CSVs are kept between runs in the cache folder (profile_csv_cache.hpp; HETSIM_CACHE_DIR=off: none).
  const std::string cache_dir = perf_detail::run_cache_dir();
  for (const std::string& root : roots) {
    fs::path dir = fs::path(root) / name;
    tried += (tried.empty() ? "" : ", ") + dir.string();
    if (!fs::is_directory(dir)) continue;
    perf_detail::ProfileCsvCache csvs(cache_dir, fs::absolute(dir).lexically_normal().string());
    if (validation.empty()) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(dir)) {
        std::string f = entry.path().filename().string();
        if (f.starts_with("validation-") && f.ends_with(".csv")) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const fs::path& p : files) {
        std::string f = p.filename().string();
        std::string digits = f.substr(11, f.size() - 15);
        int bsz = 0;
        try {
          bsz = std::stoi(digits);
        } catch (...) {
          throw InputError(p.string(), 0, "", "file name must be validation-<batch size>.csv");
        }
        validation[bsz] = validation_curve_of(csvs.read(p.string()), bsz);
      }
    }
    for (const char* type : {"t4", "a100", "v100", "quadro6000", "rtx2080ti"}) {
      if (profiles.count(type)) continue;
      const std::vector<std::string> suffixes = profile_suffixes(type).value_or(std::vector<std::string>{});
      for (const std::string& suffix : suffixes) {
        fs::path place = dir / ("placements" + suffix + ".csv");
        fs::path scal = dir / ("scalability" + suffix + ".csv");
        if (!fs::exists(place)) continue;
        StepProfile prof;
        prof.gpu_type = type;
        prof.placements = step_samples_of(csvs.read(place.string()), false);
        if (fs::exists(scal)) prof.scalability = step_samples_of(csvs.read(scal.string()), true);
        profiles[type] = std::move(prof);
        break;
      }
    }
    csvs.save();
  }
  return from_profiles(name, std::move(validation), std::move(profiles), "looked in " + tried);
}

PolluxApplication PolluxApplication::from_profiles(const std::string& name, std::map<int, ValidationCurve> validation,
                                                   std::map<std::string, StepProfile> profiles,
                                                   const std::string& where) {
  if (validation.empty())
    throw InputError("", 0, "application",
                     fmt::format("application '{}' has no validation-*.csv profile ({})", name, where));
  if (profiles.empty())
    throw InputError("", 0, "application",
                     fmt::format("application '{}' has no placements*.csv step profile ({})", name, where));
  PolluxApplication app;
  app.name_ = name;
  app.validation_ = std::move(validation);
  app.profiles_ = std::move(profiles);
  app.init_batch_size_ = app.validation_.begin()->first;
  app.max_batch_size_ = app.validation_.rbegin()->first;
  // The per-GPU batch range comes from Pollux's T4 profile when present (the simulator knows no
  // other); otherwise from the first profile found.
  const StepProfile& ref = app.profiles_.count("t4") ? app.profiles_.at("t4") : app.profiles_.begin()->second;
  double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
  for (const StepSample& s : ref.placements) {
    lo = std::min(lo, s.local_bsz);
    hi = std::max(hi, s.local_bsz);
  }
  app.min_local_bsz_ = static_cast<int>(lo);
  app.max_local_bsz_ = static_cast<int>(hi);
  if (name == "yolov3") app.max_local_bsz_ = 8;  // the Pollux simulator's override (GPU memory)
  std::size_t epochs = std::numeric_limits<std::size_t>::max();
  for (const auto& [b, c] : app.validation_) epochs = std::min(epochs, c.progress.size());
  app.max_epochs_ = static_cast<int>(epochs);
  app.epoch_progress_.assign(epochs + 1, 0.0);
  for (std::size_t e = 1; e <= epochs; ++e) {
    double m = std::numeric_limits<double>::infinity();
    for (const auto& [b, c] : app.validation_) m = std::min(m, c.progress[e - 1]);
    app.epoch_progress_[e] = m;
  }
  return app;
}

double PolluxApplication::progress_at_epoch(int epoch) const {
  return epoch_progress_.at(static_cast<std::size_t>(std::clamp(epoch, 0, max_epochs_)));
}

int PolluxApplication::epoch_of(double progress) const {
  auto it = std::upper_bound(epoch_progress_.begin() + 1, epoch_progress_.end(), progress);
  return static_cast<int>(it - (epoch_progress_.begin() + 1));
}

std::pair<int, int> PolluxApplication::bracket(double batch_size) const {
  int lower = -1, upper = -1;
  for (const auto& [b, c] : validation_) {
    if (b <= batch_size) lower = b;
    if (b >= batch_size) {
      upper = b;
      break;
    }
  }
  if (lower < 0 || upper < 0)
    throw std::logic_error(fmt::format("{}: batch size {} outside the validated range [{}, {}]", name_, batch_size,
                                       init_batch_size_, max_batch_size_));
  return {lower, upper};
}

namespace {
double lerp_bsz(double b, int lo, int hi, double v_lo, double v_hi) {
  if (lo == hi) return v_lo;
  return ((b - lo) * v_hi + (hi - b) * v_lo) / (hi - lo);
}
}  // namespace

std::pair<double, double> PolluxApplication::grad_stats(double batch_size, int epoch) const {
  auto [lo, hi] = bracket(batch_size);
  const auto& a = validation_.at(lo);
  const auto& b = validation_.at(hi);
  auto e = static_cast<std::size_t>(std::clamp(epoch, 0, max_epochs_ - 1));
  return {lerp_bsz(batch_size, lo, hi, a.grad_sqr[e], b.grad_sqr[e]),
          lerp_bsz(batch_size, lo, hi, a.grad_var[e], b.grad_var[e])};
}

double PolluxApplication::iteration(double batch_size, int epoch) const {
  auto [lo, hi] = bracket(batch_size);
  auto e = static_cast<std::size_t>(std::clamp(epoch, 0, max_epochs_ - 1));
  return lerp_bsz(batch_size, lo, hi, validation_.at(lo).iteration[e], validation_.at(hi).iteration[e]);
}

const StepProfile* PolluxApplication::profile(const std::string& gpu_type) const {
  auto it = profiles_.find(gpu_type);
  return it == profiles_.end() ? nullptr : &it->second;
}

LocalBatch split_batch(const PolluxApplication& app, int batch_size, int replicas) {
  constexpr double kEps = 1e-8;  // the simulator's tolerance for ceil
  LocalBatch lb;
  const int local = static_cast<int>(std::ceil(static_cast<double>(batch_size) / replicas - kEps));
  lb.accum_steps = static_cast<int>(std::ceil(static_cast<double>(local) / app.max_local_bsz() - kEps)) - 1;
  // One GPU above the initial batch size accumulates at least once: the gradient statistics need
  // two micro-batches (Pollux's rule).
  if (replicas == 1 && batch_size > app.init_batch_size()) lb.accum_steps = std::max(1, lb.accum_steps);
  lb.atomic_bsz = static_cast<int>(std::ceil(static_cast<double>(local) / (lb.accum_steps + 1) - kEps));
  const int count = replicas * (lb.accum_steps + 1);
  lb.atomic_bsz = std::min(lb.atomic_bsz, static_cast<int>(static_cast<double>(app.max_batch_size()) / count));
  return lb;
}

}  // namespace hetsim
