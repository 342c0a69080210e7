// tiresias-gittins: the `gittins` scheduler of Tiresias' own simulator (Gu et al., "Tiresias: A
// GPU Cluster Manager for Distributed Deep Learning", NSDI'19, Gittins-index scheduling over the
// distribution of job GPU-service; github.com/SymbioticLab/Tiresias, simulator/run_sim.py
// gittins_sim_jobs(gputime=True), get_gittins_index, cal_r_gittins_index, parse_job_dist).
//
// As published, `--schedule=gittins` stops with a TypeError: main() stores parse_job_dist() in a
// local variable, while get_gittins_index() reads JOBS.job_dist_data, left None. With that one
// assignment made (JOBS.job_dist_data = parse_job_dist(); docs/policies.md) the scheduler runs, and
// this policy repeats it:
//  - the distribution: the `duration` column of yarn-gput1000.csv (GPU-seconds of 1,001 past jobs,
//    shipped with the simulator; `samples_csv`), or by default the GPU-service (whole seconds x
//    GPUs) of the run's own jobs, which is what the simulator computes with that file replaced;
//  - the table (cal_r_gittins_index): for each sorted sample v, a = v - 1, i = first sample > a,
//    k = first sample > a + delta (but n - 1 when a + delta >= the largest sample), p = (k - i) /
//    (n - i), E = (sum of samples i..k-1 + delta (n - k)) // (n - i) (integer division: Python 2),
//    index = p * 1e6 / E; p, E and the index rounded like Python 2's round (5, 5, 4 digits);
//  - a job's index (get_gittins_index) is the entry of the first sample above its service, 0 past
//    the largest; service = seconds run x GPUs while running, but seconds run alone while waiting;
//  - every instant the list of jobs (arrivals at its end) is sorted stably by ascending index and
//    walked by GPU count as in dlas-gpu (no yarn: the simulator ignores --scheme here); ascending,
//    as the simulator sorts, so jobs past the largest sample (index 0) come first;
//  - besides arrivals and completions, it wakes at a "gittins unit": first delta, and after every
//    instant t the next unit becomes unit + t, so the wake-ups soon stop mattering.
// No starvation promotion (solve_starvation = 0 there).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "tiresias_sim.hpp"

namespace hetsim {
namespace {

using policy_detail::kTiresiasType;
using policy_detail::whole_s;

// Python 2.7's round(x, digits): the exact decimal value of x rounded to `digits` decimals, halves
// away from zero, read back as the nearest double (fmt prints and strtod reads doubles exactly).
double python2_round(double x, int digits) {
  if (!std::isfinite(x) || x == 0.0) return x;
  std::string text = fmt::format("{:.1100f}", std::fabs(x));  // exact: a double has at most 1074 decimals
  const std::size_t cut = text.find('.') + 1 + static_cast<std::size_t>(digits);
  bool up = text[cut] >= '5';  // the rest is exact, so '5' and beyond is half or more
  text.resize(cut);
  for (std::size_t i = text.size(); up && i-- > 0;) {
    if (text[i] == '.') continue;
    if (text[i] != '9') {
      ++text[i];
      up = false;
    } else {
      text[i] = '0';
    }
  }
  if (up) text.insert(text.begin(), '1');
  const double rounded = std::strtod(text.c_str(), nullptr);
  return x < 0 ? -rounded : rounded;
}

// Largest sample accepted (GPU-seconds; sums of a million stay far from overflow).
constexpr long long kMaxSampleGpuS = 1'000'000'000'000;

// The simulator's table of Gittins indices over a distribution of GPU-service (parse_job_dist).
class GittinsTable {
 public:
  GittinsTable(std::vector<long long> samples, long long delta);
  double index_of(long long service) const;

 private:
  double entry(long long a, long long delta) const;
  std::vector<long long> samples_;  // sorted
  std::vector<long long> prefix_;   // prefix_[i] = sum of the first i samples
  std::vector<double> index_;       // one per sample, then 0 (the sentinel sys.maxint's)
};

GittinsTable::GittinsTable(std::vector<long long> samples, long long delta) : samples_(std::move(samples)) {
  std::sort(samples_.begin(), samples_.end());
  prefix_.assign(1, 0);
  for (long long v : samples_) prefix_.push_back(prefix_.back() + v);
  index_.reserve(samples_.size() + 1);
  for (long long v : samples_) index_.push_back(entry(v - 1, delta));
  index_.push_back(0.0);
}

// cal_r_gittins_index(job_data, a), before parse_job_dist() appends its sentinel.
double GittinsTable::entry(long long a, long long delta) const {
  const long long n = static_cast<long long>(samples_.size());
  const long long last = samples_.back();
  if (a > last - 1) return 0.0;
  const auto first_above = [&](long long x) {
    return static_cast<long long>(std::upper_bound(samples_.begin(), samples_.end(), x) - samples_.begin());
  };
  const long long i = first_above(a);
  const long long k = a + delta > last - 1 ? n - 1 : first_above(a + delta);
  const double p = python2_round(static_cast<double>(k - i) / static_cast<double>(n - i), 5);
  const long long e_sum = prefix_[static_cast<std::size_t>(k)] - prefix_[static_cast<std::size_t>(i)] + delta * (n - k);
  const double e = python2_round(static_cast<double>(e_sum / (n - i)), 5);
  return python2_round(p * 1000000.0 / e, 4);
}

// get_gittins_index(a).
double GittinsTable::index_of(long long service) const {
  if (samples_.empty() || service > samples_.back()) return 0.0;
  const auto at = std::upper_bound(samples_.begin(), samples_.end(), service) - samples_.begin();
  return index_[static_cast<std::size_t>(at)];
}

class TiresiasGittinsPolicy final : public SchedulingPolicy {
 public:
  TiresiasGittinsPolicy(std::vector<long long> samples, long long delta_gpu_s)
      : samples_(std::move(samples)), delta_gpu_s_(delta_gpu_s), next_unit_s_(delta_gpu_s) {}
  std::string name() const override { return "tiresias-gittins"; }

  Decision schedule(const PolicyView& ctx) override {
    if (!table_) table_.emplace(samples_.empty() ? own_service(ctx) : samples_, delta_gpu_s_);
    const long long now_s = whole_s(ctx.now());
    // Units that passed before this pass (before the first arrival) woke the simulator on an
    // empty cluster: each doubled the next one.
    while (next_unit_s_ < now_s && next_unit_s_ < kNever / 4) next_unit_s_ *= 2;
    drop_finished(ctx);
    for (JobIndex j : ctx.pending())
      if (!book_.count(j)) {
        book_[j] = Book{0, now_s, 0.0, false, ctx.job(j).spec->requested_gpus};
        list_.push_back(j);
      }
    for (JobIndex j : list_) update(j, ctx.running().count(j) > 0, now_s);
    std::stable_sort(list_.begin(), list_.end(), [&](JobIndex a, JobIndex b) { return book_[a].rank < book_[b].rank; });
    Decision d = walk(ctx);
    next_unit_s_ = std::min(next_unit_s_ + now_s, kNever / 4);
    return d;
  }

  std::optional<SimTime> next_pass_at() const override {
    if (book_.empty()) return std::nullopt;
    return SimTime::from_seconds(static_cast<double>(next_unit_s_));
  }

 private:
  static constexpr long long kNever = std::numeric_limits<long long>::max();
  struct Book {
    long long executed_s = 0;
    long long last_check_s = 0;
    double rank = 0.0;
    bool running = false;
    int gpus = 0;
  };

  // The default distribution: GPU-service (whole seconds x GPUs) of every job of the run (at most
  // kMaxSampleGpuS each).
  static std::vector<long long> own_service(const PolicyView& ctx) {
    std::vector<long long> out;
    for (std::size_t j = 0; j < ctx.job_count(); ++j) {
      const JobSpec& spec = *ctx.job(static_cast<JobIndex>(j)).spec;
      const double gpu_s = std::max(1.0, std::round(spec.work)) * std::max(1, spec.requested_gpus);
      out.push_back(static_cast<long long>(std::min(gpu_s, static_cast<double>(kMaxSampleGpuS))));
    }
    if (out.empty()) out.push_back(1);
    return out;
  }

  void drop_finished(const PolicyView& ctx) {
    std::erase_if(list_, [&](JobIndex j) {
      if (ctx.pending().count(j) || ctx.running().count(j)) return false;
      book_.erase(j);
      return true;
    });
  }

  // Run time up to now and the job's index (GPU-seconds while running, seconds while waiting).
  void update(JobIndex j, bool running, long long now_s) {
    Book& b = book_[j];
    b.running = running;  // the mechanism's word (the same unless it refused a start)
    if (running) b.executed_s += now_s - b.last_check_s;
    b.last_check_s = now_s;
    b.rank = table_->index_of(running ? b.executed_s * b.gpus : b.executed_s);
  }

  Decision walk(const PolicyView& ctx) {
    Decision d;
    long long free = 0;
    for (const Node& n : ctx.cluster().nodes())
      if (n.gpu_type == kTiresiasType) free += n.gpu_count;
    for (JobIndex j : list_) {
      Book& b = book_[j];
      const bool runs = free >= b.gpus;
      if (runs) free -= b.gpus;
      if (runs && !b.running) d.allocate.push_back({j, kTiresiasType, b.gpus, {}, 0});
      if (!runs && b.running) d.preempt.push_back(j);
      b.running = runs;
    }
    return d;
  }

  std::vector<long long> samples_;
  long long delta_gpu_s_;
  long long next_unit_s_;
  std::optional<GittinsTable> table_;
  std::unordered_map<JobIndex, Book> book_;
  std::vector<JobIndex> list_;  // the simulator's runnable_jobs, in its order
};

// The `duration` column of a CSV with a header row (the simulator's yarn-gput1000.csv): whole
// GPU-seconds >= 1.
std::vector<long long> read_samples(const std::string& path) {
  const std::string text = read_file(path);
  std::vector<long long> out;
  std::size_t column = 0;
  std::size_t line_no = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = trim(std::string_view(text).substr(start, end - start));
    start = end + 1;
    ++line_no;
    const auto cells = split(line_no == 1 ? strip_utf8_bom(line) : line, ',');
    if (line_no == 1) {
      const auto it = std::find_if(cells.begin(), cells.end(), [](std::string_view c) { return trim(c) == "duration"; });
      if (it == cells.end()) throw InputError(path, 1, "duration", "no column 'duration' in the header");
      column = static_cast<std::size_t>(it - cells.begin());
      continue;
    }
    if (line.empty()) continue;
    if (column >= cells.size()) throw InputError(path, line_no, "duration", "missing");
    const long long v = parse_int(cells[column], SourcePos{path, line_no, "duration"});
    if (v < 1 || v > kMaxSampleGpuS)
      throw InputError(path, line_no, "duration", fmt::format("expected GPU-seconds in [1, 1e12], got {}", v));
    out.push_back(v);
  }
  if (line_no == 0) throw InputError(path, 0, "", "empty file: expected a header with a 'duration' column");
  if (out.empty()) throw InputError(path, 0, "duration", "no samples");
  return out;
}

}  // namespace

void register_tiresias_gittins(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "tiresias-gittins",
      "Tiresias' simulator's gittins: jobs sorted by the Gittins index of their attained GPU-service over a service "
      "distribution (ascending, as the simulator sorts), walked by GPU count, with its gittins-unit wake-ups",
      "Tiresias (Gu et al., NSDI'19), simulator 'gittins' (github.com/SymbioticLab/Tiresias); runs there once "
      "main() sets JOBS.job_dist_data",
      {{"samples_csv", "",
        "CSV whose 'duration' column holds the GPU-seconds of past jobs (the simulator reads yarn-gput1000.csv); "
        "empty = the GPU-service (seconds x GPUs) of the run's own jobs"},
       {"delta_gpu_s", "3250", "the Gittins quantum delta (GPU-seconds) and the first wake-up; the simulator's jobs.py: 3250"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        const double delta = param_double(p, "delta_gpu_s", 1, 1e12);
        if (delta != std::floor(delta))
          throw InputError("", 0, "--param delta_gpu_s", fmt::format("expected whole GPU-seconds, got {}", delta));
        const std::string& path = param_string(p, "samples_csv");
        return std::make_unique<TiresiasGittinsPolicy>(path.empty() ? std::vector<long long>{} : read_samples(path),
                                                       static_cast<long long>(delta));
      },
      nullptr});
}

}  // namespace hetsim
