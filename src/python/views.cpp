#include "views.hpp"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace hetsim::python {
namespace {

// A numpy array over `data` (no copy) that keeps `owner` alive and cannot be written: a policy
// that writes into a view must not change the next pass's buffers or the simulation.
template <class T>
py::array wrap(const T* data, std::vector<py::ssize_t> shape, py::handle owner, py::dtype dtype = py::dtype::of<T>()) {
  py::array a(dtype, std::move(shape), {}, data, owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

template <class T>
py::array wrap(const std::vector<T>& v, py::handle owner) {
  return wrap(v.data(), {static_cast<py::ssize_t>(v.size())}, owner);
}

py::array wrap_bool(const std::vector<char>& v, py::handle owner) {
  return wrap(v.data(), {static_cast<py::ssize_t>(v.size())}, owner, py::dtype("bool"));
}

// The buffers outlive every view of one pass; the capsule only marks the arrays as borrowed.
py::capsule borrowed(const void* owner) { return py::capsule(owner, [](void*) {}); }

const PolicyView& live(const EventView& v) {
  if (!v.base) throw std::runtime_error("hetsim view used after its scheduling pass (keep copies of arrays instead)");
  return *v.base;
}

// A job a method names by index: out of range is the policy's error (IndexError), not a crash.
const JobRuntime& job_at(const EventView& v, JobIndex j) {
  const PolicyView& ctx = live(v);
  const auto count = static_cast<JobIndex>(ctx.job_count());
  if (j < 0 || j >= count) throw py::index_error(fmt::format("job index {} out of range [0, {})", j, count));
  return ctx.job(j);
}

// (speed, others' rate loss) if job j started on `gpus` now under --network shared; (1, 0) when
// the network is not shared or the GPUs use no shared link.
py::tuple network_join(const EventView& v, JobIndex j, const std::vector<GpuId>& gpus) {
  const PolicyView& ctx = live(v);
  const JobRuntime& job = job_at(v, j);
  const auto total = static_cast<GpuId>(ctx.cluster().total_gpus());
  for (GpuId g : gpus)
    if (g < 0 || g >= total) throw py::index_error(fmt::format("GPU {} out of range [0, {})", g, total));
  if (!ctx.network()) return py::make_tuple(1.0, 0.0);
  const std::optional<NetworkDemand> demand = ctx.model().network_demand(*job.spec, gpus);
  if (!demand) return py::make_tuple(1.0, 0.0);
  const JoinEffect e = ctx.network()->join_effect(*demand);
  return py::make_tuple(e.speed, e.others_rate_loss);
}

// One value per active job into `out` (resized), in the order of `jobs`.
template <class T, class F>
void per_job(const std::vector<std::int64_t>& jobs, std::vector<T>& out, F&& value) {
  out.resize(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) out[i] = value(jobs[i]);
}

}  // namespace

py::object EventView::get(ViewField f) {
  py::object& a = arrays[static_cast<std::size_t>(f)];
  if (!a) a = builder->field(live(*this), f, owner);
  return a;
}

const double* EventViewBuilder::rates_of(const PolicyView& ctx, JobIndex j) {
  const std::size_t types = ctx.cluster().gpu_types().size();
  const auto at = static_cast<std::size_t>(j) * types;
  if (rate_cache_.size() < at + types) rate_cache_.resize(at + types, std::numeric_limits<double>::quiet_NaN());
  if (std::isnan(rate_cache_[at])) {
    const JobSpec& spec = *ctx.job(j).spec;
    for (std::size_t t = 0; t < types; ++t)
      rate_cache_[at + t] = ctx.rate_on_type(spec, static_cast<GpuTypeId>(t), spec.requested_gpus);
  }
  return &rate_cache_[at];
}

py::object EventViewBuilder::rates(const PolicyView& ctx, py::handle owner) {
  const std::size_t n = jobs_.size(), types = ctx.cluster().gpu_types().size();
  rates_.resize(n * types);
  for (std::size_t i = 0; i < n; ++i) {
    const double* r = rates_of(ctx, jobs_[i]);
    std::copy(r, r + types, rates_.begin() + static_cast<std::ptrdiff_t>(i * types));
  }
  return wrap(rates_.data(), {static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(types)}, owner);
}

py::object EventViewBuilder::job_field(const PolicyView& ctx, ViewField f, py::handle owner) {
  auto job = [&ctx](JobIndex j) -> const JobRuntime& { return ctx.job(j); };
  switch (f) {
    case ViewField::running:
      per_job(jobs_, running_, [&](JobIndex j) -> char { return job(j).status == JobStatus::Running; });
      return wrap_bool(running_, owner);
    case ViewField::demand:
      per_job(jobs_, demand_, [&](JobIndex j) { return job(j).spec->requested_gpus; });
      return wrap(demand_, owner);
    case ViewField::work:
      per_job(jobs_, work_, [&](JobIndex j) { return job(j).spec->work; });
      return wrap(work_, owner);
    case ViewField::remaining_work:
      per_job(jobs_, remaining_, [&](JobIndex j) { return ctx.remaining_work(j); });
      return wrap(remaining_, owner);
    case ViewField::attained_gpu_s:
      per_job(jobs_, attained_, [&](JobIndex j) { return ctx.attained_gpu_s(j); });
      return wrap(attained_, owner);
    case ViewField::submit_s:
      per_job(jobs_, submit_s_, [&](JobIndex j) { return job(j).spec->submit.seconds(); });
      return wrap(submit_s_, owner);
    case ViewField::gpu_type:
      per_job(jobs_, gpu_type_, [&](JobIndex j) { return job(j).gpu_type; });
      return wrap(gpu_type_, owner);
    case ViewField::gpu_count:
      per_job(jobs_, gpu_count_, [&](JobIndex j) { return static_cast<std::int32_t>(job(j).gpus.size()); });
      return wrap(gpu_count_, owner);
    case ViewField::rates: return rates(ctx, owner);
    default: return cluster_field(ctx, f, owner);
  }
}

py::object EventViewBuilder::cluster_field(const PolicyView& ctx, ViewField f, py::handle owner) {
  const Cluster& cluster = ctx.cluster();
  const ClusterState& state = ctx.state();
  auto fill = [](auto& out, std::size_t n, auto&& value) {
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = value(i);
  };
  const std::size_t types = cluster.gpu_types().size(), nodes = cluster.nodes().size();
  switch (f) {
    case ViewField::changed:
      changed_.assign(ctx.changed().begin(), ctx.changed().end());
      return wrap(changed_, owner);
    case ViewField::free_by_type:
      fill(free_by_type_, types, [&](std::size_t t) { return state.free_of_type(static_cast<GpuTypeId>(t)); });
      return wrap(free_by_type_, owner);
    case ViewField::gpus_by_type:
      fill(gpus_by_type_, types, [&](std::size_t t) { return cluster.gpus_of_type(static_cast<GpuTypeId>(t)); });
      return wrap(gpus_by_type_, owner);
    case ViewField::free_by_node:
      fill(free_by_node_, nodes, [&](std::size_t n) { return state.free_on_node(static_cast<NodeId>(n)); });
      return wrap(free_by_node_, owner);
    case ViewField::node_type:
      fill(node_type_, nodes, [&](std::size_t n) { return cluster.nodes()[n].gpu_type; });
      return wrap(node_type_, owner);
    case ViewField::gpu_owner:
      fill(gpu_owner_, static_cast<std::size_t>(cluster.total_gpus()),
           [&](std::size_t g) { return state.owner(static_cast<GpuId>(g)); });
      return wrap(gpu_owner_, owner);
    default: throw std::logic_error("EventViewBuilder: unknown view field");
  }
}

py::object EventViewBuilder::field(const PolicyView& ctx, ViewField f, py::handle owner) {
  if (f == ViewField::jobs) return wrap(jobs_, owner);
  return job_field(ctx, f, owner);
}

py::object EventViewBuilder::build(const PolicyView& ctx) {
  // Pending and running, merged into arrival order (both sets are ordered by job index).
  jobs_.clear();
  auto p = ctx.pending().begin(), r = ctx.running().begin();
  while (p != ctx.pending().end() || r != ctx.running().end()) {
    const bool take_p = r == ctx.running().end() || (p != ctx.pending().end() && *p < *r);
    jobs_.push_back(take_p ? *p++ : *r++);
  }
  if (type_names_.size() != ctx.cluster().gpu_types().size()) {
    py::list names;
    for (const GpuType& t : ctx.cluster().gpu_types()) names.append(t.name);
    type_names_ = py::tuple(names);
  }
  EventView v;
  v.now_s = ctx.now().seconds();
  v.type_names = type_names_;
  v.base = &ctx;
  v.builder = this;
  v.owner = borrowed(this);
  return py::cast(std::move(v));
}

py::object AllocViewBuilder::build(const AllocationView& view) {
  const std::size_t n = view.jobs.size(), types = view.type_names.size();
  jobs_.resize(n);
  scale_factor_.resize(n);
  current_type_.resize(n);
  placement_changes_.resize(n);
  priority_weight_.resize(n);
  remaining_.resize(n);
  age_s_.resize(n);
  throughput_.assign(n * types, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const AllocationJob& j = view.jobs[i];
    jobs_[i] = j.job;
    scale_factor_[i] = j.scale_factor;
    current_type_[i] = j.current_type;
    placement_changes_[i] = j.placement_changes;
    priority_weight_[i] = j.priority_weight;
    remaining_[i] = j.remaining_work;
    age_s_[i] = j.age_s;
    for (std::size_t t = 0; t < types && t < j.throughput.size(); ++t) throughput_[i * types + t] = j.throughput[t];
  }
  gpus_per_type_.assign(view.gpus_per_type.begin(), view.gpus_per_type.end());
  const py::capsule owner = borrowed(this);
  AllocView v;
  v.now_s = view.now.seconds();
  v.jobs = wrap(jobs_, owner);
  v.scale_factor = wrap(scale_factor_, owner);
  v.priority_weight = wrap(priority_weight_, owner);
  v.throughput = wrap(throughput_.data(), {static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(types)}, owner);
  v.remaining_work = wrap(remaining_, owner);
  v.age_s = wrap(age_s_, owner);
  v.current_type = wrap(current_type_, owner);
  v.placement_changes = wrap(placement_changes_, owner);
  v.gpus_per_type = wrap(gpus_per_type_, owner);
  v.type_names = py::tuple(py::cast(view.type_names));
  v.base = &view;
  return py::cast(std::move(v));
}

void define_views(py::module_& m) {
  py::class_<EventView> view(m, "View", "What an event policy's schedule(view) sees at one pass (docs/python.md)");
  view.def_readonly("now_s", &EventView::now_s).def_readonly("type_names", &EventView::type_names);
  // Each array property builds its array on first read (ViewField order).
  const char* const names[kViewFields][2] = {
      {"jobs", "job index of each active job (pending and running), ascending"},
      {"running", ""},
      {"demand", "GPUs requested"},
      {"work", ""},
      {"remaining_work", "brought up to now"},
      {"attained_gpu_s", "GPU-seconds held, brought up to now"},
      {"submit_s", ""},
      {"gpu_type", "current GPU type, -1 when not running"},
      {"gpu_count", "GPUs held now"},
      {"rates", "[job row, type]: work units/s on `demand` GPUs of the type"},
      {"changed", "job indices whose status changed since the previous pass"},
      {"free_by_type", ""},
      {"gpus_by_type", ""},
      {"free_by_node", ""},
      {"node_type", ""},
      {"gpu_owner", "[gpu]: job index holding it, -1 = free"},
  };
  for (std::size_t f = 0; f < kViewFields; ++f)
    view.def_property_readonly(names[f][0], [f](EventView& v) { return v.get(static_cast<ViewField>(f)); }, names[f][1]);
  view.def("job_name", [](const EventView& v, JobIndex j) { return job_at(v, j).spec->id; }, py::arg("job"))
      .def("gpus", [](const EventView& v, JobIndex j) { return job_at(v, j).gpus; }, py::arg("job"),
           "exact GPUs the job holds")
      .def("rate", [](const EventView& v, JobIndex j, GpuTypeId t, int count) {
             return live(v).rate_on_type(*job_at(v, j).spec, t, count);
           }, py::arg("job"), py::arg("gpu_type"), py::arg("count"), "work units/s on `count` GPUs of a type")
      .def_property_readonly("shared_network", [](const EventView& v) { return live(v).network() != nullptr; },
                             "True under --network shared (jobs share NICs and uplinks)")
      .def("network_join", &network_join, py::arg("job"), py::arg("gpus"),
           "(speed, others_rate_loss) if a job not running now started on these GPUs: its transfer speed "
           "relative to alone and the summed relative rate loss of the running jobs it would slow; (1, 0) "
           "when the network is not shared or the GPUs use no shared link");
  py::class_<AllocView>(m, "AllocationView", "What an allocation policy's allocate(view) sees (docs/python.md)")
      .def_readonly("now_s", &AllocView::now_s)
      .def_readonly("jobs", &AllocView::jobs, "job index of each row, arrival order")
      .def_readonly("scale_factor", &AllocView::scale_factor)
      .def_readonly("priority_weight", &AllocView::priority_weight)
      .def_readonly("throughput", &AllocView::throughput, "[row, type]: work units/s on scale_factor GPUs")
      .def_readonly("remaining_work", &AllocView::remaining_work)
      .def_readonly("age_s", &AllocView::age_s)
      .def_readonly("current_type", &AllocView::current_type)
      .def_readonly("placement_changes", &AllocView::placement_changes)
      .def_readonly("gpus_per_type", &AllocView::gpus_per_type)
      .def_readonly("type_names", &AllocView::type_names);
}

}  // namespace hetsim::python
