// srtf and tiresias keep their queues between passes and update them from
// PolicyView::changed() (issue 11). These tests pin that the kept structures give the
// decisions of the old full re-rank: hand-computed cases where a preempted or refused job
// re-enters, and random traces checked pass by pass against a brute-force re-rank written here
// (the policies' rules as they were before the change).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "../src/policy/afs_trees.hpp"
#include "../src/policy/node_pool.hpp"
#include "sim_fixtures.hpp"

using namespace hetsim;
using test::duration_job;
using test::record;

namespace {

// srtf by brute force: rank every active job, fill greedily.
Decision brute_srtf(const PolicyView& ctx) {
  const auto ntypes = ctx.cluster().gpu_types().size();
  std::vector<std::pair<double, JobIndex>> order;
  for (const auto* set : {&ctx.running(), &ctx.pending()})
    for (JobIndex j : *set) {
      const JobSpec& spec = *ctx.job(j).spec;
      double best = 0.0;
      for (std::size_t t = 0; t < ntypes; ++t)
        best = std::max(best, ctx.rate_on_type(spec, static_cast<GpuTypeId>(t), spec.requested_gpus));
      order.push_back({best > 0.0 ? ctx.remaining_work(j) / best : 1e300, j});
    }
  std::sort(order.begin(), order.end());
  std::vector<int> pool(ntypes);
  for (std::size_t t = 0; t < ntypes; ++t) pool[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
  Decision d;
  for (const auto& [rem, j] : order) {
    const JobRuntime& job = ctx.job(j);
    const int n = job.spec->requested_gpus;
    GpuTypeId pick = -1;
    if (job.status == JobStatus::Running && pool[static_cast<std::size_t>(job.gpu_type)] >= n) {
      pick = job.gpu_type;
    } else {
      double best = 0.0;
      for (std::size_t t = 0; t < ntypes; ++t) {
        const double r = ctx.rate_on_type(*job.spec, static_cast<GpuTypeId>(t), n);
        if (pool[t] >= n && r > best) {
          best = r;
          pick = static_cast<GpuTypeId>(t);
        }
      }
    }
    if (pick < 0) {
      if (job.status == JobStatus::Running) d.preempt.push_back(j);
      continue;
    }
    pool[static_cast<std::size_t>(pick)] -= n;
    d.allocate.push_back({j, pick, n, {}});
  }
  return d;
}

// tiresias by brute force: both queues and every job's counters walked every pass.
class BruteTiresias {
 public:
  BruteTiresias(double threshold, double starvation, bool most_free)
      : threshold_(threshold), starvation_(starvation), most_free_(most_free) {}

  Decision schedule(const PolicyView& ctx) {
    const auto now = static_cast<long long>(std::floor(ctx.now().seconds()));
    std::vector<JobIndex> active(ctx.pending().begin(), ctx.pending().end());
    active.insert(active.end(), ctx.running().begin(), ctx.running().end());
    std::sort(active.begin(), active.end());
    auto is_active = [&](JobIndex j) { return std::binary_search(active.begin(), active.end(), j); };
    std::erase_if(q0_, [&](JobIndex j) { return !is_active(j); });
    std::erase_if(q1_, [&](JobIndex j) { return !is_active(j); });
    std::erase_if(state_, [&](const auto& kv) { return !is_active(kv.first); });
    for (JobIndex j : active)
      if (!state_.count(j)) {
        state_[j] = State{};
        q0_.push_back(j);
      }
    for (JobIndex j : active) account(ctx, j, now);
    return decide(ctx);
  }

 private:
  struct State {
    bool marked = false;
    long long last = 0, run = 0, total = 0, waited = 0;
  };

  bool in_q0(JobIndex j) const { return std::find(q0_.begin(), q0_.end(), j) != q0_.end(); }

  void account(const PolicyView& ctx, JobIndex j, long long now) {
    State& s = state_[j];
    const long long delta = now - s.last;
    s.last = now;
    if (s.marked) {
      s.total += delta;
      s.run += delta;
      if (in_q0(j) && static_cast<double>(s.run) * ctx.job(j).spec->requested_gpus >= threshold_) {
        std::erase(q0_, j);
        q1_.push_back(j);
      }
      return;
    }
    if (s.run > 0) s.waited += delta;
    if (starvation_ > 0 && s.total > 0 && s.run > 0 && !in_q0(j) &&
        static_cast<double>(s.waited) >= static_cast<double>(s.run) * starvation_) {
      s.run = s.waited = 0;
      std::erase(q1_, j);
      q0_.push_back(j);
    }
  }

  Decision decide(const PolicyView& ctx) {
    const auto ntypes = ctx.cluster().gpu_types().size();
    std::vector<int> cap(ntypes);
    for (std::size_t t = 0; t < ntypes; ++t) cap[t] = ctx.cluster().gpus_of_type(static_cast<GpuTypeId>(t));
    std::vector<std::pair<JobIndex, GpuTypeId>> to_start;
    Decision d;
    for (const auto* queue : {&q0_, &q1_})
      for (JobIndex j : *queue) {
        const JobRuntime& job = ctx.job(j);
        const int n = job.spec->requested_gpus;
        GpuTypeId type = -1;
        if (job.status == JobStatus::Running) {
          if (cap[static_cast<std::size_t>(job.gpu_type)] >= n) type = job.gpu_type;
        } else {
          // type_choice=most_free: the most unpromised GPUs; fastest: the highest rate, ties to
          // the most unpromised GPUs, then the lower type. Both only where the job can run.
          double best_rate = 0.0;
          for (std::size_t t = 0; t < ntypes; ++t) {
            const double rate = ctx.rate_on_type(*job.spec, static_cast<GpuTypeId>(t), n);
            if (cap[t] < n || !(rate > 0.0)) continue;
            const bool more_free = type < 0 || cap[t] > cap[static_cast<std::size_t>(type)];
            if (most_free_ ? more_free : type < 0 || rate > best_rate || (rate == best_rate && more_free)) {
              type = static_cast<GpuTypeId>(t);
              best_rate = rate;
            }
          }
        }
        state_[j].marked = type >= 0;
        if (type < 0) {
          if (job.status == JobStatus::Running) d.preempt.push_back(j);
          continue;
        }
        cap[static_cast<std::size_t>(type)] -= n;
        if (job.status != JobStatus::Running) to_start.emplace_back(j, type);
      }
    policy_detail::NodePool pool(ctx.state());
    for (JobIndex j : d.preempt) pool.release(ctx.job(j).gpus);
    for (const auto& [j, type] : to_start) {
      AllocationRequest r{j, type, ctx.job(j).spec->requested_gpus, {}, 0};
      r.gpus = pool.take_most_free(type, r.gpu_count);
      if (!r.gpus.empty()) d.allocate.push_back(std::move(r));
    }
    return d;
  }

  double threshold_, starvation_;
  bool most_free_;
  std::vector<JobIndex> q0_, q1_;
  std::map<JobIndex, State> state_;
};

// A decision without its keep requests (a running job asking for the type and count it holds):
// the Decision contract lets a policy leave them out, and srtf does when no running job moves.
Decision without_keeps(const PolicyView& ctx, Decision d) {
  std::erase_if(d.allocate, [&](const AllocationRequest& r) {
    const JobRuntime& job = ctx.job(r.job);
    return job.status == JobStatus::Running && r.gpus.empty() && r.gpu_type == job.gpu_type &&
           r.gpu_count == static_cast<int>(job.gpus.size()) && r.batch_size == 0;
  });
  return d;
}

bool same(const PolicyView& ctx, const Decision& real, const Decision& brute) {
  const Decision a = without_keeps(ctx, real), b = without_keeps(ctx, brute);
  if (a.preempt != b.preempt || a.allocate.size() != b.allocate.size()) return false;
  for (std::size_t i = 0; i < a.allocate.size(); ++i) {
    const AllocationRequest &x = a.allocate[i], &y = b.allocate[i];
    if (x.job != y.job || x.gpu_type != y.gpu_type || x.gpu_count != y.gpu_count || x.gpus != y.gpus ||
        x.batch_size != y.batch_size)
      return false;
  }
  return true;
}

// Runs the registered policy and the brute force on every pass and counts disagreements. With
// `refuse`, it then drops some start requests, as a mechanism that cannot place them would.
class Checked final : public SchedulingPolicy {
 public:
  Checked(std::unique_ptr<SchedulingPolicy> real, std::function<Decision(const PolicyView&)> brute,
          bool refuse, std::uint64_t seed)
      : real_(std::move(real)), brute_(std::move(brute)), refuse_(refuse), rng_(seed) {}
  std::string name() const override { return real_->name(); }
  Decision schedule(const PolicyView& ctx) override {
    Decision d = real_->schedule(ctx);
    ++passes;
    if (!same(ctx, d, brute_(ctx))) ++mismatches;
    // Starts are refused only while a job keeps running, whose end brings another pass: refusing
    // every start with nothing running would end the run with jobs waiting (the mechanism stops
    // when no event is left), which no policy could avoid.
    const bool one_keeps_running = std::any_of(ctx.running().begin(), ctx.running().end(), [&](JobIndex j) {
      return std::find(d.preempt.begin(), d.preempt.end(), j) == d.preempt.end();
    });
    if (refuse_ && one_keeps_running)
      std::erase_if(d.allocate, [&](const AllocationRequest& r) {
        return ctx.job(r.job).status != JobStatus::Running && rng_() % 3 == 0;
      });
    return d;
  }
  int passes = 0, mismatches = 0;

 private:
  std::unique_ptr<SchedulingPolicy> real_;
  std::function<Decision(const PolicyView&)> brute_;
  bool refuse_;
  std::mt19937_64 rng_;
};

// Two types (speed 1 and 0.5), three 4-GPU nodes each.
Cluster two_type_cluster() {
  std::vector<Node> nodes;
  for (int i = 0; i < 6; ++i) nodes.push_back(Node{fmt::format("n{}", i), i < 3 ? 0 : 1, 4, 0, 0});
  return Cluster("test2", {GpuType{"fast", 0.0, 1.0}, GpuType{"slow", 0.0, 0.5}}, {Rack{"r0"}}, nodes);
}

std::vector<JobSpec> random_jobs(std::uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  const int gpus[] = {1, 1, 2, 4, 8};
  std::vector<JobSpec> jobs;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    t += static_cast<double>(rng() % 4 == 0 ? 0 : rng() % 400);  // bursts of same-instant arrivals
    jobs.push_back(duration_job(fmt::format("J{}", i), t, gpus[rng() % 5], 30.0 + static_cast<double>(rng() % 3000)));
  }
  return jobs;
}

int run_checked(const std::string& policy, PolicyParams params, std::function<Decision(const PolicyView&)> brute,
                bool refuse, std::uint64_t seed, MechanismConfig config = {}) {
  const Cluster cluster = two_type_cluster();
  Workload w;
  w.jobs = random_jobs(seed, 120);
  w.source = w.format = "test";
  DurationModel model(cluster);
  PolicyRegistry registry = make_default_registry();
  Checked checked(registry.make(policy, params, 0), std::move(brute), refuse, seed);
  ConsolidatePlacement placement;
  RunOutput out = simulate(cluster, w, model, checked, placement, config,
                           RunInfo{cluster.name(), "test", "test", policy, "consolidate", "duration", 0, ""});
  CHECK(checked.passes > 100);
  CHECK(out.summary.completed == 120);
  return checked.mismatches;
}

}  // namespace

TEST_CASE("srtf: a preempted job re-enters the waiting jobs with its remaining time") {
  // 2 GPUs. J2 (20 s) preempts J1 (100 s, 2 GPUs) at t=10; J1 resumes at 30 with 90 s left and
  // keeps running when J3 (85 s) and J4 (2 GPUs, 75 s) arrive, as it is shorter by then; at 120
  // J4 (75 s) goes before J3 (85 s).
  auto out = test::run_jobs(test::homogeneous_cluster(1, 2),
                            {duration_job("J1", 0, 2, 100), duration_job("J2", 10, 1, 20),
                             duration_job("J3", 40, 1, 85), duration_job("J4", 50, 2, 75)},
                            "srtf");
  CHECK(record(out, "J2").start_s == 10);
  CHECK(record(out, "J2").finish_s == 30);
  CHECK(record(out, "J1").finish_s == 120);
  CHECK(record(out, "J1").preemptions == 1);
  CHECK(record(out, "J4").start_s == 120);
  CHECK(record(out, "J4").finish_s == 195);
  CHECK(record(out, "J3").start_s == 195);
  CHECK(record(out, "J3").finish_s == 280);
}

TEST_CASE("tiresias: a demoted job waits behind queue 0 and the starvation rule brings it back") {
  // 1 GPU, threshold 50 GPU-s, starvation factor 1. J1 runs 0-50 and is demoted at the pass at
  // 50 (J2's arrival), where J2 (queue 0) takes the GPU. J1 has run 50 s, so from 50 it may wait
  // 50 s: at the pass at 100 (J3's arrival) it returns to queue 0 behind J3, which arrived first
  // at that pass. J2 (demoted at 100 too) is preempted by J3; J3 runs 100-130, then J1 130-210.
  PolicyParams params{{"queue_threshold_gpu_s", "50"}, {"starvation_factor", "1"}};
  auto out = test::run_jobs(test::homogeneous_cluster(1, 1),
                            {duration_job("J1", 0, 1, 130), duration_job("J2", 50, 1, 100),
                             duration_job("J3", 100, 1, 30)},
                            "tiresias", {}, params);
  CHECK(record(out, "J1").preemptions == 1);
  CHECK(record(out, "J3").start_s == 100);
  CHECK(record(out, "J3").finish_s == 130);
  CHECK(record(out, "J1").finish_s == 210);
  CHECK(record(out, "J2").finish_s == 260);
}

TEST_CASE("srtf: the kept ranking decides as a full re-rank, also when starts are refused") {
  for (std::uint64_t seed : {1, 2, 3}) {
    CHECK(run_checked("srtf", {}, brute_srtf, false, seed) == 0);
    CHECK(run_checked("srtf", {}, brute_srtf, true, seed) == 0);
  }
}

TEST_CASE("tiresias: the kept queues decide as the full walk, starvation on and off, starts refused") {
  for (std::uint64_t seed : {1, 2, 3})
    for (const char* factor : {"0", "0.5", "2"})
      for (bool refuse : {false, true})
        for (const char* choice : {"fastest", "most_free"}) {
          auto brute = std::make_shared<BruteTiresias>(600.0, std::stod(factor), std::string(choice) == "most_free");
          PolicyParams params{{"queue_threshold_gpu_s", "600"}, {"starvation_factor", factor}, {"type_choice", choice}};
          MechanismConfig config;
          config.restart_overhead_s = 3.5;  // passes at fractional times: whole-second accounting
          INFO("seed " << seed << " factor " << factor << " refuse " << refuse << " type_choice " << choice);
          CHECK(run_checked("tiresias", params, [brute](const PolicyView& c) { return brute->schedule(c); },
                            refuse, seed, config) == 0);
        }
}

TEST_CASE("afs trees: the last minimum and the k-th open position over a queue, as a scan finds them") {
  using policy_detail::LastMinTree;
  using policy_detail::PositionSet;
  // Hand-computed: values at positions 0..5 = 3, 1, -, 1, 2, 1 (position 2 holds nothing).
  LastMinTree tree;
  tree.reset(6);
  CHECK(tree.capacity() == 8);
  const double v[] = {3.0, 1.0, 0.0, 1.0, 2.0, 1.0};
  for (std::size_t p = 0; p < 6; ++p)
    if (p != 2) tree.put(p, v[p]);
  tree.build();
  CHECK(tree.query(0, 6) == 5u);  // three 1s: the last one
  CHECK(tree.query(0, 5) == 3u);
  CHECK(tree.query(0, 2) == 1u);
  CHECK(tree.query(2, 3) == LastMinTree::kNone);
  CHECK(tree.query(4, 5) == 4u);
  CHECK(tree.query(3, 3) == LastMinTree::kNone);
  tree.set(5, false, 0.0);
  tree.set(0, true, 0.5);
  CHECK(tree.query(0, 6) == 0u);
  CHECK(tree.query(1, 6) == 3u);

  PositionSet open;
  open.reset(6);
  for (std::size_t p : {1u, 2u, 4u}) open.set(p, true);
  open.set(2, true);  // setting twice counts once
  CHECK(open.count() == 3u);
  CHECK(open.select(0) == 1u);
  CHECK(open.select(1) == 2u);
  CHECK(open.select(2) == 4u);
  open.set(2, false);
  CHECK(open.count() == 2u);
  CHECK(open.select(1) == 4u);
  CHECK_FALSE(open.has(2));

  // Random: every query against a scan that keeps the later position on ties.
  std::mt19937_64 rng(7);
  const std::size_t n = 100;
  std::vector<double> val(n, 0.0);
  std::vector<char> present(n, 0);
  tree.reset(n);
  open.reset(n);
  for (int step = 0; step < 2000; ++step) {
    const std::size_t p = rng() % n;
    present[p] = rng() % 3 != 0;
    val[p] = static_cast<double>(rng() % 5);  // few values: many ties
    tree.set(p, present[p] != 0, val[p]);
    open.set(p, present[p] != 0);
    const std::size_t lo = rng() % n, hi = lo + rng() % (n - lo + 1);
    std::size_t m = LastMinTree::kNone;
    for (std::size_t q = lo; q < hi; ++q)
      if (present[q] && (m == LastMinTree::kNone || val[q] <= val[m])) m = q;
    REQUIRE(tree.query(lo, hi) == m);
    std::vector<std::size_t> on;
    for (std::size_t q = 0; q < n; ++q)
      if (present[q]) on.push_back(q);
    REQUIRE(open.count() == on.size());
    if (!on.empty()) {
      const std::size_t k = rng() % on.size();
      REQUIRE(open.select(k) == on[k]);
    }
  }
}
