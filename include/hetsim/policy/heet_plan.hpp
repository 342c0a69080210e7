#pragma once
/// The decision core of the `heet` policy, free of the simulator so it can be checked by hand:
/// slot size, minimum-weight full matching of GPU slots to jobs, and opportunistic trading. Rules
/// follow the Heet prototype (mozizhao/elastic, our_scheduler.py: schedule(), price_j1, price_j2)
/// of Mo, Xu, Xu, "Heet: Accelerating Elastic Training in Heterogeneous Deep Learning Clusters",
/// ASPLOS'24; per-host slots and trades are our extension to several hosts per GPU type.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hetsim/cluster/cluster.hpp"
#include "hetsim/workload/job.hpp"

namespace hetsim {

/// One host (node) as the planner sees it.
struct HeetHost {
  GpuTypeId type = 0;
  int gpus = 0;
};

/// A job's matching weights kept across rounds (heet_plan fills it): valid for the remaining work
/// (compared bit for bit) and slot size they were computed with. A waiting job's remaining work
/// does not change, so its weights are computed once while it waits, not every round.
struct HeetWeightMemo {
  std::uint64_t remaining_bits = ~std::uint64_t{0};  ///< a NaN's bits: matches no remaining work
  int slot = 0;                                      ///< slot size s, 0 = none
  std::vector<double> weight;                        ///< heet_weight on an s-GPU slot, by type
};

/// One active job as the planner sees it.
struct HeetJob {
  JobIndex job = 0;
  double remaining_work = 0.0;            ///< work units left
  /// Predicted rate (work units/s) on n GPUs of one host of each type: rate[type][n], n = 0..H,
  /// rate[type][0] = 0; 0 elsewhere = cannot run.
  std::vector<std::vector<double>> rate;
  int current_host = -1;                  ///< host it runs on now (-1 = none); kept when possible
  HeetWeightMemo* memo = nullptr;         ///< optional: weights kept across rounds (same values)
};

/// A job's place in the plan.
struct HeetAssignment {
  JobIndex job = 0;
  int host = -1;
  int gpus = 0;
};

/// One trade of the trading phase (for logs and tests).
struct HeetTrade {
  JobIndex from = 0;       ///< running job that gives one GPU
  JobIndex to = 0;         ///< waiting job that gets it
  int host = -1;
  double release_price = 0.0;  ///< 2 (X(n) - X(n-1)) / X(n) of `from`
  double gain_price = 0.0;     ///< X(1) / X(s) of `to`
};

/// Prototype rule: GPUs per active job <= 1.5 -> 1, >= 3 -> the host size (4 in the prototype),
/// else 2 (capped at the host size). `host_gpus` = GPUs of the largest host.
int heet_slot_size(int total_gpus, std::size_t active_jobs, int host_gpus);

/// Matching weight of a job on an s-GPU slot: remaining x T(s)^2 / T(1), T(n) = 1 / rate(n) (the
/// time per work unit); +infinity when rate(s) or rate(1) is 0.
double heet_weight(double remaining_work, double rate_1, double rate_s);

/// Price of taking one GPU from a job on n GPUs: 2 (X(n) - X(n-1)) / X(n), X = rate.
double heet_release_price(const std::vector<double>& rate_of_type, int n);

/// Price (gain) of giving a waiting job one GPU instead of a slot: X(1) / X(s).
double heet_gain_price(const std::vector<double>& rate_of_type, int slot);

/// The matching step: `cost[job][type]` = heet_weight of the job on a slot of that type,
/// `slot_type[slot]` = type of each slot; returns each job's matched type, or -1. Equal to the type
/// of min_weight_full_matching_by_class's column, ties included; with slots of one type only it
/// takes the cheapest jobs directly (no O(n^3) search: ITP clusters have one GPU type).
std::vector<GpuTypeId> heet_match_types(const std::vector<std::vector<double>>& cost, const std::vector<int>& slot_type);

/// heet_match_types' answer found in O(jobs x types) per cycle cancelled, starting from `start`
/// (each job's type now, -1 = none; last round's answer is usually optimal again): true and `type`
/// set when the optimum is unique by a margin far above the search's rounding, hence equal to
/// heet_match_types'; false (fall back to it) on a tie or near tie, or more than 4 GPU types with
/// slots and a finite weight (src/policy/heet_exchange.cpp gives the argument). An infinite weight
/// is a missing edge: as in the search, as many jobs as can be are matched by finite weights.
bool heet_match_types_exchange(const std::vector<std::vector<double>>& cost, const std::vector<int>& slot_type,
                               const std::vector<GpuTypeId>& start, std::vector<GpuTypeId>& type);
/// The same with the weights flat, `cost[job * types + type]` (no row allocations per round).
bool heet_match_types_exchange(const std::vector<double>& cost, std::size_t types, const std::vector<int>& slot_type,
                               const std::vector<GpuTypeId>& start, std::vector<GpuTypeId>& type);

/// The plan of one round: every job that gets GPUs, on one host each, in job order. Matching:
/// slots = floor(host GPUs / s) per host; jobs x slots weighted by heet_weight; minimum-weight full
/// matching; matched jobs keep their current host when it has a slot of the matched type left
/// (ours: avoids needless moves between equivalent hosts). Trading (s > 1): while a job waits,
/// the running job with n > 1 GPUs and the lowest release price gives one GPU on its host to the
/// waiting job with the highest gain price on that host's type, if release <= gain; else stop.
/// Ties go to the lower job index. `trades` (optional) receives the trades made. `steady`
/// (optional) is set true when the same plan provably comes back as long as the jobs, hosts and
/// allocations stay and only running jobs progress (remaining work only falls): the matching was
/// the one-type selection or an exchange answer with one type of finite weight, and no trade was
/// made (heet.cpp skips such rounds; the argument is in heet_plan.cpp).
/// `job_count` (0 = jobs.size()): the number of jobs the slot size is computed from, when `jobs`
/// holds only some of them. With slots of one type and a slot size of 1 (no trades), handing it
/// only the `slots` cheapest jobs with a finite weight (ascending by job) gives the same plan and
/// `steady` as all of them (the selection takes exactly those); heet.cpp does so on one-type clusters.
std::vector<HeetAssignment> heet_plan(const std::vector<HeetHost>& hosts, const std::vector<HeetJob>& jobs,
                                      std::vector<HeetTrade>* trades = nullptr, bool* steady = nullptr,
                                      std::size_t job_count = 0);

}  // namespace hetsim
