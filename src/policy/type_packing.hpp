#pragma once
// The exact optimum of Sia's ILPs, for LinearProgram's optimum oracle (see
// LinearProgram::set_optimum_oracle). Each job takes at most one option (a GPU type, a GPU count,
// a gain) and the GPUs taken of each type stay within its capacity: a multiple-choice knapsack
// whose rows are the GPU types. Dynamic programming over the GPUs in use per type, one job unit
// at a time, keeps only the states that can still reach a known packing's gain under the
// Lagrangian bound of the capacity rows (GPU prices), after reduced-cost fixing at those prices has
// settled the jobs whose choice is clear. GLPK usually has the optimum at its root but proves it
// only after hundreds of nodes (sia.cpp); this proves it with a few thousand states.
#include <cstddef>
#include <optional>
#include <vector>

namespace hetsim {

/// One way to run a job: `gpus` GPUs of type `type`, worth `gain` (larger is better).
struct PackingOption {
  std::size_t type = 0;
  int gpus = 1;
  double gain = 0.0;
};

/// `count` identical jobs (a group of Sia's grouped ILP; 1 for a single job), each taking at most
/// one of `options`.
struct PackingItem {
  long long count = 1;
  std::vector<PackingOption> options;
};

/// Bounds on the work, so that asking costs a known amount whatever the input.
struct PackingLimits {
  std::size_t max_cells = std::size_t{1} << 20;        ///< possible GPU uses, prod(capacity + 1)
  std::size_t max_states = std::size_t{1} << 16;       ///< states alive after any one job unit
  std::size_t max_kept_states = std::size_t{1} << 21;  ///< states kept over all units (to read the packing back)
};

/// A best packing: its total gain and, per item and option, how many of the item's jobs take it.
struct Packing {
  double gain = 0.0;
  std::vector<std::vector<long long>> taken;  ///< [item][option]
};

/// A packing of the largest total gain (0 when nothing pays), or nothing when the work would exceed
/// `limits` or an input is out of range (negative capacity or count, non-finite gain, type out of
/// range, GPUs < 1). Options with gain <= 0 are never taken. Among packings of equal gain the one
/// read back is fixed by the order of the items and options (deterministic).
/// `at_least`, a total gain some packing is known to reach (e.g. a solver's incumbent), is what
/// makes the search small: a state whose gain plus the Lagrangian bound of the rest (at GPU prices
/// that clear each type's demand) falls short of it is dropped, and so is, before the search, every
/// option whose price-adjusted loss exceeds the gap between that bound and `at_least`; a job left
/// with one choice is fixed. Without it nothing is dropped and only small problems stay within
/// `limits`. A value above the true optimum is caught (less is then found) and yields nothing.
std::optional<Packing> best_type_packing(const std::vector<long long>& capacity, const std::vector<PackingItem>& items,
                                         std::optional<double> at_least = std::nullopt,
                                         const PackingLimits& limits = {});

}  // namespace hetsim
