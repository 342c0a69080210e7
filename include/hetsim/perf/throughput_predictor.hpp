#pragma once
/// Heet's throughput predictor (Mo, Xu, Xu, ASPLOS'24) as hetsim builds it: the physical scaling
/// form of data-parallel training (physical_form.hpp) combined with the collaborative-filtering
/// completion (tensor_completion.hpp) for what the form does not explain. Which combination is used
/// is chosen per profile by cross-validation on the profiled cells (docs/models.md, "Physical
/// scaling form").
#include <string>

#include "hetsim/perf/physical_form.hpp"
#include "hetsim/perf/tensor_completion.hpp"

namespace hetsim {

/// Settings of predict_throughputs().
struct PredictorOptions {
  CompletionOptions completion;  ///< the CF completion (and its seed, also the CV folds')
  PhysicalFitOptions form;       ///< the physical form's fit
  /// false: the CF completion alone (complete_tensor(); the predictor before issue 15).
  bool physical = true;
  /// true: the caller knows every job type is equally new (predict-check --protocol all-new): CF
  /// alone without the cross-validation, which the detection of fully known job types would run on
  /// tables whose rows are merely uneven (Sia's: minutes of CPU for a choice that is CF anyway).
  bool all_new = false;
};

/// Completes `known` (NaN = unknown) with the better of two candidates by cross-validation on the
/// known cells: "cf" (complete_tensor()) and "form+cf" (the physical form x the CF completion, by
/// the interaction tables without CP components, of the ratio measured / form). Without job types
/// that are much better known than others (every job type new), "cf" without cross-validation. The folds imitate how the profile is sparse: when some job types
/// have at least twice the cells of the sparsest (Heet's online setting: earlier job types fully
/// profiled), each of up to 8 folds takes one of them (preferring job types with another fully
/// known batch size of their model) down to active_profiling_cells() at the sparsest job type's
/// cell count and scores the cells it hid; otherwise 4 seeded folds of the known cells. Score:
/// median absolute log error; in the folds the CF is the interaction tables without CP components.
/// A cell the form cannot predict (nothing known on its GPU type) takes the CF value. The result's
/// `method` names the choice. Deterministic for a given seed. Throws std::invalid_argument as
/// complete_tensor() does.
CompletionResult predict_throughputs(const ProfileTensor& known, const PredictorOptions& options);

}  // namespace hetsim
