#include "views.hpp"

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
  if (!v.base) throw std::runtime_error("hetsim view used after its scheduling pass (keep arrays' copies instead)");
  return *v.base;
}

}  // namespace

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

void EventViewBuilder::fill_jobs(const PolicyView& ctx) {
  jobs_.clear();
  // Pending and running, merged into arrival order (both sets are ordered by job index).
  auto p = ctx.pending().begin(), r = ctx.running().begin();
  while (p != ctx.pending().end() || r != ctx.running().end()) {
    const bool take_p = r == ctx.running().end() || (p != ctx.pending().end() && *p < *r);
    jobs_.push_back(take_p ? *p++ : *r++);
  }
  const std::size_t n = jobs_.size(), types = ctx.cluster().gpu_types().size();
  running_.resize(n);
  demand_.resize(n);
  gpu_type_.resize(n);
  gpu_count_.resize(n);
  work_.resize(n);
  remaining_.resize(n);
  attained_.resize(n);
  submit_s_.resize(n);
  rates_.resize(n * types);
  for (std::size_t i = 0; i < n; ++i) {
    const JobIndex j = jobs_[i];
    const JobRuntime& job = ctx.job(j);
    running_[i] = job.status == JobStatus::Running;
    demand_[i] = job.spec->requested_gpus;
    gpu_type_[i] = job.gpu_type;
    gpu_count_[i] = static_cast<std::int32_t>(job.gpus.size());
    work_[i] = job.spec->work;
    remaining_[i] = ctx.remaining_work(j);
    attained_[i] = ctx.attained_gpu_s(j);
    submit_s_[i] = job.spec->submit.seconds();
    const double* rates = rates_of(ctx, j);
    std::copy(rates, rates + types, rates_.begin() + static_cast<std::ptrdiff_t>(i * types));
  }
  changed_.assign(ctx.changed().begin(), ctx.changed().end());
}

void EventViewBuilder::fill_cluster(const PolicyView& ctx) {
  const Cluster& cluster = ctx.cluster();
  const std::size_t types = cluster.gpu_types().size();
  free_by_type_.resize(types);
  gpus_by_type_.resize(types);
  for (std::size_t t = 0; t < types; ++t) {
    free_by_type_[t] = ctx.state().free_of_type(static_cast<GpuTypeId>(t));
    gpus_by_type_[t] = cluster.gpus_of_type(static_cast<GpuTypeId>(t));
  }
  free_by_node_.resize(cluster.nodes().size());
  node_type_.resize(cluster.nodes().size());
  for (std::size_t n = 0; n < cluster.nodes().size(); ++n) {
    free_by_node_[n] = ctx.state().free_on_node(static_cast<NodeId>(n));
    node_type_[n] = cluster.nodes()[n].gpu_type;
  }
  gpu_owner_.resize(static_cast<std::size_t>(cluster.total_gpus()));
  for (std::size_t g = 0; g < gpu_owner_.size(); ++g) gpu_owner_[g] = ctx.state().owner(static_cast<GpuId>(g));
  if (type_names_.size() != types) {
    py::list names;
    for (const GpuType& t : cluster.gpu_types()) names.append(t.name);
    type_names_ = py::tuple(names);
  }
}

py::object EventViewBuilder::build(const PolicyView& ctx) {
  fill_jobs(ctx);
  fill_cluster(ctx);
  const py::capsule owner = borrowed(this);
  EventView v;
  v.now_s = ctx.now().seconds();
  v.jobs = wrap(jobs_, owner);
  v.running = wrap_bool(running_, owner);
  v.demand = wrap(demand_, owner);
  v.work = wrap(work_, owner);
  v.remaining_work = wrap(remaining_, owner);
  v.attained_gpu_s = wrap(attained_, owner);
  v.submit_s = wrap(submit_s_, owner);
  v.gpu_type = wrap(gpu_type_, owner);
  v.gpu_count = wrap(gpu_count_, owner);
  v.rates = wrap(rates_.data(), {static_cast<py::ssize_t>(jobs_.size()), static_cast<py::ssize_t>(type_names_.size())},
                 owner);
  v.changed = wrap(changed_, owner);
  v.free_by_type = wrap(free_by_type_, owner);
  v.gpus_by_type = wrap(gpus_by_type_, owner);
  v.free_by_node = wrap(free_by_node_, owner);
  v.node_type = wrap(node_type_, owner);
  v.gpu_owner = wrap(gpu_owner_, owner);
  v.type_names = type_names_;
  v.base = &ctx;
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
  py::class_<EventView>(m, "View", "What an event policy's schedule(view) sees at one pass (docs/python.md)")
      .def_readonly("now_s", &EventView::now_s)
      .def_readonly("jobs", &EventView::jobs, "job index of each active job (pending and running), ascending")
      .def_readonly("running", &EventView::running)
      .def_readonly("demand", &EventView::demand, "GPUs requested")
      .def_readonly("work", &EventView::work)
      .def_readonly("remaining_work", &EventView::remaining_work, "brought up to now")
      .def_readonly("attained_gpu_s", &EventView::attained_gpu_s, "GPU-seconds held, brought up to now")
      .def_readonly("submit_s", &EventView::submit_s)
      .def_readonly("gpu_type", &EventView::gpu_type, "current GPU type, -1 when not running")
      .def_readonly("gpu_count", &EventView::gpu_count, "GPUs held now")
      .def_readonly("rates", &EventView::rates, "[job row, type]: work units/s on `demand` GPUs of the type")
      .def_readonly("changed", &EventView::changed, "job indices whose status changed since the previous pass")
      .def_readonly("free_by_type", &EventView::free_by_type)
      .def_readonly("gpus_by_type", &EventView::gpus_by_type)
      .def_readonly("free_by_node", &EventView::free_by_node)
      .def_readonly("node_type", &EventView::node_type)
      .def_readonly("gpu_owner", &EventView::gpu_owner, "[gpu]: job index holding it, -1 = free")
      .def_readonly("type_names", &EventView::type_names)
      .def("job_name", [](const EventView& v, JobIndex j) { return live(v).job(j).spec->id; }, py::arg("job"))
      .def("gpus", [](const EventView& v, JobIndex j) { return live(v).job(j).gpus; }, py::arg("job"),
           "exact GPUs the job holds")
      .def("rate", [](const EventView& v, JobIndex j, GpuTypeId t, int count) {
             return live(v).rate_on_type(*live(v).job(j).spec, t, count);
           }, py::arg("job"), py::arg("gpu_type"), py::arg("count"), "work units/s on `count` GPUs of a type");
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
