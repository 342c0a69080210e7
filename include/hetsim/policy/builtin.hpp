#pragma once
/// Registration hooks of the built-in policies: each policy file defines one, and
/// make_default_registry() calls them in a fixed order (registration order = listing order).
#include "hetsim/policy/registry.hpp"

namespace hetsim {

/// fifo: strict arrival order, no backfilling (src/policy/fifo.cpp).
void register_fifo(PolicyRegistry& registry);
/// srtf: preemptive shortest remaining time first (src/policy/srtf.cpp).
void register_srtf(PolicyRegistry& registry);
/// fifo-perf: Gavel's heterogeneity-aware FIFO (src/policy/fifo_perf.cpp).
void register_fifo_perf(PolicyRegistry& registry);
/// gavel-maxmin: weighted max-min fairness over normalised throughput (src/policy/gavel_maxmin.cpp).
void register_gavel_maxmin(PolicyRegistry& registry);
void register_gandiva(PolicyRegistry& registry);
/// gavel-ftf: finish-time fairness (src/policy/gavel_ftf.cpp).
void register_gavel_ftf(PolicyRegistry& registry);
/// gavel-throughput: maximum total normalised throughput (src/policy/gavel_throughput.cpp).
void register_gavel_throughput(PolicyRegistry& registry);
/// gavel-makespan: minimum makespan (src/policy/gavel_makespan.cpp).
void register_gavel_makespan(PolicyRegistry& registry);
/// isolated: Gavel's equal share, 1/N of every type per job (src/policy/isolated.cpp).
void register_isolated(PolicyRegistry& registry);
/// allox: AlloX's min-cost matching of jobs to (GPU, position) slots (src/policy/allox.cpp).
void register_allox(PolicyRegistry& registry);
/// sia: Sia's ILP with restart penalty and fairness exponent p (src/policy/sia.cpp).
void register_sia(PolicyRegistry& registry);
/// tiresias: discretized 2D-LAS as in the Pollux simulator (src/policy/tiresias.cpp).
void register_tiresias(PolicyRegistry& registry);
/// tiresias-fifo: Tiresias' own simulator's fifo with yarn placement (src/policy/tiresias_fifo.cpp).
void register_tiresias_fifo(PolicyRegistry& registry);
/// tiresias-shortest: Tiresias' own simulator's shortest (src/policy/tiresias_shortest.cpp).
void register_tiresias_shortest(PolicyRegistry& registry);
/// tiresias-dlas-gpu: Tiresias' own simulator's dlas-gpu (src/policy/tiresias_dlas_gpu.cpp).
void register_tiresias_dlas_gpu(PolicyRegistry& registry);
/// tiresias-gittins: Tiresias' own simulator's gittins (src/policy/tiresias_gittins.cpp).
void register_tiresias_gittins(PolicyRegistry& registry);
/// las: preemptive least attained service (src/policy/las.cpp).
void register_las(PolicyRegistry& registry);
/// optimus: greedy marginal-gain allocation, Optimus+Oracle (src/policy/optimus.cpp).
void register_optimus(PolicyRegistry& registry);
/// pollux: goodput-maximising elastic allocation (src/policy/pollux.cpp).
void register_pollux(PolicyRegistry& registry);
/// heet: Heet's slot matching and resource trading (src/policy/heet.cpp).
void register_heet(PolicyRegistry& registry);
/// heet-gavel-baseline: the Heet prototype's 'Gavel' baseline (src/policy/heet_gavel_baseline.cpp).
void register_heet_gavel_baseline(PolicyRegistry& registry);
/// srsf: the Heet prototype's SRSF baseline (src/policy/srsf.cpp).
void register_srsf(PolicyRegistry& registry);
/// afs: AFS marginal-throughput sharing, heterogeneous as in Heet's baseline (src/policy/afs.cpp).
void register_afs(PolicyRegistry& registry);
/// edf: preemptive earliest deadline first (src/policy/edf.cpp).
void register_edf(PolicyRegistry& registry);
/// elasticflow: ElasticFlow's deadline admission control and minimum-share allocation (src/policy/elasticflow.cpp).
void register_elasticflow(PolicyRegistry& registry);

}  // namespace hetsim
