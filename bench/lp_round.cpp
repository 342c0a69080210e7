// Benchmark: wall time of one allocation computation of each LP/ILP policy on N active jobs and 3
// GPU types (Gavel's gavel-108 cluster: 36 v100 + 36 p100 + 36 k80). Throughputs are random but
// seeded (CPython-compatible stream), 1-, 2- and 4-GPU jobs, ~10% of jobs unable to run on k80.
// Usage: hetsim_bench_lp [jobs=1000] [repetitions=3]. Prints the median and max wall time per
// policy and the median CPU time of the thread (less disturbed than wall time when other processes
// share the machine).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "hetsim/policy/registry.hpp"
#include "hetsim/util/py_random.hpp"

using namespace hetsim;

namespace {
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

int main(int argc, char** argv) {
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  PyRandom rng(42);
  AllocationView view;
  view.type_names = {"v100", "p100", "k80"};
  view.gpus_per_type = {36, 36, 36};
  std::vector<JobSpec> specs(static_cast<std::size_t>(jobs));
  for (int i = 0; i < jobs; ++i) {
    AllocationJob j;
    j.job = i;
    specs[static_cast<std::size_t>(i)].id = fmt::format("b{}", i);
    j.spec = &specs[static_cast<std::size_t>(i)];
    j.scale_factor = 1 << rng.randbelow(3);
    double v100 = 1.0 + 9.0 * rng.random();
    j.throughput = {v100, v100 * (0.4 + 0.4 * rng.random()), rng.randbelow(10) == 0 ? 0.0 : v100 * (0.1 + 0.3 * rng.random())};
    j.remaining_work = 1000.0 + 1e6 * rng.random();
    j.age_s = 1e4 * rng.random();
    view.jobs.push_back(std::move(j));
  }
  PolicyRegistry registry = make_default_registry();
  fmt::print("{} active jobs, 3 GPU types (36 GPUs each); {} repetitions, wall time per allocation\n", jobs, reps);
  fmt::print("{:<18}{:>6}{:>12}{:>12}{:>12}{:>10}{:>8}\n", "policy", "lp", "median_s", "max_s", "cpu_med_s", "solves", "ok");
  // The four LP policies on both LP back ends (--param solver); sia's ILP is GLPK's only.
  struct Run {
    const char* name;
    const char* solver;
  };
  std::vector<Run> runs;
  for (const char* name : {"gavel-maxmin", "gavel-throughput", "gavel-makespan", "gavel-ftf"})
    for (const char* solver : {"glpk", "clp"}) runs.push_back({name, solver});
  runs.push_back({"sia", ""});
  runs.push_back({"fifo-perf", ""});
  for (const auto& [name, solver] : runs) {
    PolicyParams params;
    if (*solver) params["solver"] = solver;
    std::vector<double> times, cpu;
    int solves = 0;
    bool ok = true;
    for (int r = 0; r < reps; ++r) {
      auto policy = registry.make_allocation(name, params, 0);  // fresh: no state carried between reps
      auto t0 = std::chrono::steady_clock::now();
      const double c0 = thread_cpu_s();
      AllocationResult res = policy->allocate(view);
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      cpu.push_back(thread_cpu_s() - c0);
      solves = res.solves;
      ok = ok && res.ok;
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu.begin(), cpu.end());
    fmt::print("{:<18}{:>6}{:>12.4f}{:>12.4f}{:>12.4f}{:>10}{:>8}\n", name, *solver ? solver : "glpk",
               times[times.size() / 2], times.back(),
               cpu[cpu.size() / 2], solves, ok ? "yes" : "NO");
  }
  return 0;
}
