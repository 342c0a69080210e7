#pragma once
// The views Python policies get: a PolicyView (or AllocationView) turned into numpy arrays once per
// pass. The arrays point into C++ buffers the builder keeps between passes (no copy into Python,
// no per-job crossing: a policy reads whole columns), and are read-only; they are valid for the
// duration of one schedule()/allocate() call.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <vector>

#include "hetsim/policy/allocation.hpp"
#include "hetsim/policy/policy.hpp"

namespace hetsim::python {

namespace py = pybind11;

/// The arrays of an EventView, each built (filled and wrapped) the first time the policy reads it,
/// so a pass costs only what the policy looks at.
enum class ViewField : int {
  jobs, running, demand, work, remaining_work, attained_gpu_s, submit_s, gpu_type, gpu_count, rates, changed,
  free_by_type, gpus_by_type, free_by_node, node_type, gpu_owner, count
};
inline constexpr std::size_t kViewFields = static_cast<std::size_t>(ViewField::count);

class EventViewBuilder;

/// What an event policy's schedule(view) receives (bound as hetsim._hetsim.View). Per-job arrays
/// have one row per active job (pending and running), in arrival order (ascending `jobs`).
struct EventView {
  double now_s = 0.0;
  py::tuple type_names;
  const PolicyView* base = nullptr;  ///< set during the pass only: reading a new array afterwards is refused
  EventViewBuilder* builder = nullptr;
  py::capsule owner;                 ///< base of every array: they borrow the builder's buffers
  std::array<py::object, kViewFields> arrays;
  py::object get(ViewField f);
};

/// What an allocation policy's allocate(view) receives (bound as hetsim._hetsim.AllocationView).
struct AllocView {
  double now_s = 0.0;
  py::object jobs, scale_factor, priority_weight, throughput, remaining_work, age_s, current_type, placement_changes;
  py::object gpus_per_type;
  py::tuple type_names;
  const AllocationView* base = nullptr;
};

/// Builds EventViews from PolicyViews, reusing its buffers and caching each job's rates by type
/// (a job's rate on its requested count of a type does not change during a run).
class EventViewBuilder {
 public:
  /// Needs the GIL. The result refers to this builder's buffers until the next build().
  py::object build(const PolicyView& ctx);
  /// Fills one field's buffer from `ctx` and wraps it as a read-only array borrowing it.
  py::object field(const PolicyView& ctx, ViewField f, py::handle owner);

 private:
  std::vector<std::int64_t> jobs_, changed_, gpu_owner_;
  std::vector<char> running_;
  std::vector<std::int32_t> demand_, gpu_type_, gpu_count_, free_by_type_, gpus_by_type_, free_by_node_, node_type_;
  std::vector<double> work_, remaining_, attained_, submit_s_, rates_;
  std::vector<double> rate_cache_;  // [job * types + type]; NaN = not computed yet
  py::tuple type_names_;

  py::object job_field(const PolicyView& ctx, ViewField f, py::handle owner);
  py::object cluster_field(const PolicyView& ctx, ViewField f, py::handle owner);
  py::object rates(const PolicyView& ctx, py::handle owner);
  const double* rates_of(const PolicyView& ctx, JobIndex j);
};

/// Builds AllocViews from AllocationViews (copies of its rows, which are already copies).
class AllocViewBuilder {
 public:
  py::object build(const AllocationView& view);

 private:
  std::vector<std::int64_t> jobs_;
  std::vector<std::int32_t> scale_factor_, current_type_, placement_changes_, gpus_per_type_;
  std::vector<double> priority_weight_, throughput_, remaining_, age_s_;
};

/// Defines View and AllocationView in `m`.
void define_views(py::module_& m);

}  // namespace hetsim::python
