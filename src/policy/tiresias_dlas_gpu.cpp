// tiresias-dlas-gpu: the `dlas-gpu` scheduler of Tiresias' own simulator (Gu et al., "Tiresias: A
// GPU Cluster Manager for Distributed Deep Learning", NSDI'19, discretized 2D-LAS;
// github.com/SymbioticLab/Tiresias, simulator/run_sim.py dlas_sim_jobs(gputime=True)), with its
// bookkeeping (simulator/jobs.py: 3 queues, thresholds 3250 and 7200 GPU-seconds):
//  - a job's attained service is the whole seconds it has run (`executed`) times its GPUs; at each
//    instant, a running job whose service reached its queue's threshold moves to the end of the
//    next queue (one queue per instant); arrivals join the end of queue 0;
//  - each instant walks the queues in order, each in its order, and runs a job if its GPU count
//    fits in the GPUs not yet given out (counting only: the simulator's dlas ignores --scheme);
//    a running job that does not fit is preempted; then each queue puts its waiting jobs behind
//    its running ones, keeping their order;
//  - besides arrivals and completions, the simulator wakes at the earliest "queue jump" of a
//    running job: now + (threshold - executed) / GPUs, in Python 2 integer division (the authors
//    ran Python 2.7; `jump_rounding=ceil` gives a Python 3 port's math.ceil of a true division).
//    The formula subtracts seconds from GPU-seconds, so for multi-GPU jobs the wake-up comes early
//    and the demotion happens at a later instant; that is the simulator's behaviour, kept here.
// No starvation promotion (the simulator's dlas-gpu passes solve_starvation = 0).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "tiresias_sim.hpp"

namespace hetsim {
namespace {

using policy_detail::kTiresiasType;
using policy_detail::whole_s;

long long floor_div(long long a, long long b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }
long long ceil_div(long long a, long long b) { return -floor_div(-a, b); }

class TiresiasDlasGpuPolicy final : public SchedulingPolicy {
 public:
  TiresiasDlasGpuPolicy(std::vector<long long> limits_gpu_s, bool ceil_jump)
      : limits_gpu_s_(std::move(limits_gpu_s)), ceil_jump_(ceil_jump), queues_(limits_gpu_s_.size() + 1) {}
  std::string name() const override { return "tiresias-dlas-gpu"; }

  Decision schedule(const PolicyView& ctx) override {
    const long long now_s = whole_s(ctx.now());
    drop_finished(ctx);
    for (JobIndex j : ctx.pending())
      if (!book_.count(j)) {
        book_[j] = Book{0, now_s, 0, false, ctx.job(j).spec->requested_gpus};
        order_.push_back(j);
        queues_[0].push_back(j);
      }
    for (JobIndex j : order_) {
      book_[j].running = ctx.running().count(j) > 0;  // the mechanism's word (the same unless it refused a start)
      account(j, now_s);
    }
    Decision d = walk_queues(ctx);
    for (auto& q : queues_)
      std::stable_partition(q.begin(), q.end(), [&](JobIndex j) { return book_[j].running; });
    next_pass_s_ = next_jump(now_s);
    return d;
  }

  std::optional<SimTime> next_pass_at() const override {
    if (next_pass_s_ == kNever) return std::nullopt;
    return SimTime::from_seconds(static_cast<double>(next_pass_s_));
  }

 private:
  static constexpr long long kNever = std::numeric_limits<long long>::max();
  struct Book {
    long long executed_s = 0;
    long long last_check_s = 0;
    std::size_t queue = 0;
    bool running = false;
    int gpus = 0;
  };

  void drop_finished(const PolicyView& ctx) {
    std::erase_if(order_, [&](JobIndex j) {
      if (ctx.pending().count(j) || ctx.running().count(j)) return false;
      auto& q = queues_[book_[j].queue];
      q.erase(std::find(q.begin(), q.end(), j));
      book_.erase(j);
      return true;
    });
  }

  // Run time up to now, and demotion by one queue when the service reached the threshold.
  void account(JobIndex j, long long now_s) {
    Book& b = book_[j];
    if (b.running) {
      b.executed_s += now_s - b.last_check_s;
      const std::size_t q = b.queue;
      if (q + 1 < queues_.size() && b.executed_s * b.gpus >= limits_gpu_s_[q]) {
        queues_[q].erase(std::find(queues_[q].begin(), queues_[q].end(), j));
        queues_[q + 1].push_back(j);
        b.queue = q + 1;
      }
    }
    b.last_check_s = now_s;
  }

  Decision walk_queues(const PolicyView& ctx) {
    Decision d;
    long long free = 0;
    for (const Node& n : ctx.cluster().nodes())
      if (n.gpu_type == kTiresiasType) free += n.gpu_count;
    for (const auto& q : queues_) {
      for (JobIndex j : q) {
        Book& b = book_[j];
        const bool runs = free >= b.gpus;
        if (runs) free -= b.gpus;
        if (runs && !b.running) d.allocate.push_back({j, kTiresiasType, b.gpus, {}, 0});
        if (!runs && b.running) d.preempt.push_back(j);
      }
    }
    for (JobIndex j : d.preempt) book_[j].running = false;
    for (const AllocationRequest& r : d.allocate) book_[r.job].running = true;
    return d;
  }

  // The simulator's next "queue jump": the earliest of now + (threshold - executed s) / GPUs over
  // running jobs not in the last queue (kNever if none, or if it would not be later than now).
  long long next_jump(long long now_s) const {
    long long best = kNever;
    for (const auto& [j, b] : book_) {
      if (!b.running || b.queue + 1 >= queues_.size()) continue;
      const long long left = limits_gpu_s_[b.queue] - b.executed_s;
      const long long at = now_s + (ceil_jump_ ? ceil_div(left, b.gpus) : floor_div(left, b.gpus));
      best = std::min(best, at);
    }
    return best > now_s ? best : kNever;
  }

  std::vector<long long> limits_gpu_s_;
  bool ceil_jump_;
  std::vector<std::vector<JobIndex>> queues_;
  std::unordered_map<JobIndex, Book> book_;
  std::vector<JobIndex> order_;  // the simulator's runnable_jobs (arrival order)
  long long next_pass_s_ = kNever;
};

std::vector<long long> parse_limits(const std::string& text) {
  std::vector<long long> out;
  const SourcePos pos{"", 0, "--param queue_limits_gpu_s"};
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const double v = parse_double(text.substr(start, comma - start), pos);
    if (!(v >= 1 && v <= 1e15) || v != std::floor(v) || (!out.empty() && v <= static_cast<double>(out.back())))
      throw InputError("", 0, "--param queue_limits_gpu_s",
                       fmt::format("expected increasing whole GPU-seconds >= 1 separated by commas, got '{}'", text));
    out.push_back(static_cast<long long>(v));
    start = comma + 1;
  }
  return out;
}

}  // namespace

void register_tiresias_dlas_gpu(PolicyRegistry& registry) {
  registry.add(PolicyInfo{
      "tiresias-dlas-gpu",
      "Tiresias' simulator's dlas-gpu: discretized 2D-LAS over GPU-seconds, queues walked in order with skip-ahead by "
      "GPU count, demotion at its queue-jump wake-ups",
      "Tiresias (Gu et al., NSDI'19), simulator 'dlas-gpu' (github.com/SymbioticLab/Tiresias)",
      {{"queue_limits_gpu_s", "3250,7200",
        "queue thresholds (GPU-seconds of attained service), one per queue but the last; the simulator's "
        "jobs.py: 3 queues, 3250 and 7200"},
       {"jump_rounding", "floor",
        "wake-up time (threshold - executed s) / GPUs: 'floor' = Python 2 integer division as the authors ran it, "
        "'ceil' = a Python 3 port (true division, then math.ceil)"}},
      [](const PolicyParams& p, std::uint64_t) -> std::unique_ptr<SchedulingPolicy> {
        const std::string& rounding = param_string(p, "jump_rounding");
        if (rounding != "floor" && rounding != "ceil")
          throw InputError("", 0, "--param jump_rounding", fmt::format("expected 'floor' or 'ceil', got '{}'", rounding));
        return std::make_unique<TiresiasDlasGpuPolicy>(parse_limits(param_string(p, "queue_limits_gpu_s")),
                                                       rounding == "ceil");
      },
      nullptr});
}

}  // namespace hetsim
