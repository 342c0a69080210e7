// Python policy classes as registry entries. Each pass crosses into Python once: the adapter takes
// the GIL, builds the batched view, calls schedule()/allocate(), reads the arrays it returns and
// gives the GIL back, so C++ simulates (and other runs' threads proceed) without it.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetsim/engine/sim_time.hpp"
#include "hetsim/python/bridge.hpp"
#include "hetsim/util/error.hpp"
#include "views.hpp"

namespace hetsim::python {
namespace {

// The class and what errors need to name. The class object is released under the GIL.
struct ClassRef {
  py::object cls;
  std::string name, class_name, origin;
  std::optional<double> round_s;
  ClassRef() = default;
  ClassRef(const ClassRef&) = delete;
  ClassRef& operator=(const ClassRef&) = delete;
  ~ClassRef() {
    py::gil_scoped_acquire gil;
    cls = py::object();
  }
  std::string field(const char* method) const { return class_name + "." + method; }
};

// A Python exception as an InputError: the policy's file, the deepest line of the traceback inside
// that file, the class and method, and the whole traceback (the user's bug, reported as input).
[[noreturn]] void throw_python_error(const ClassRef& c, const char* method, py::error_already_set& e) {
  std::size_t line = 0;
  for (py::handle tb = e.trace(); tb && !tb.is_none(); tb = tb.attr("tb_next")) {
    py::handle code = tb.attr("tb_frame").attr("f_code");
    if (py::str(code.attr("co_filename")).cast<std::string>() == c.origin) line = tb.attr("tb_lineno").cast<std::size_t>();
  }
  py::module_ traceback = py::module_::import("traceback");
  const std::string what = py::str("").attr("join")(traceback.attr("format_exception_only")(e.type(), e.value())).cast<std::string>();
  const std::string trace = py::str("").attr("join")(traceback.attr("format_exception")(e.type(), e.value(), e.trace())).cast<std::string>();
  throw InputError(c.origin, line, c.field(method),
                   fmt::format("Python policy '{}' raised {}\n{}", c.name, what.substr(0, what.find_last_not_of('\n') + 1),
                               trace.substr(0, trace.find_last_not_of('\n') + 1)));
}

[[noreturn]] void bad_decision(const ClassRef& c, const char* method, const std::string& what) {
  throw InputError(c.origin, 0, c.field(method), fmt::format("Python policy '{}' returned {}", c.name, what));
}

// `value` (decision.<label>) as integers: a 1-D integer array, or floats that are all whole numbers.
std::vector<std::int64_t> ints(const ClassRef& c, py::handle value, const std::string& label) {
  py::array a = py::array::ensure(value);
  if (!a || a.ndim() != 1) bad_decision(c, "schedule", fmt::format("decision.{} that is not a 1-D array", label));
  const char kind = a.dtype().kind();
  if (a.size() > 0 && kind != 'i' && kind != 'u' && kind != 'f')
    bad_decision(c, "schedule", fmt::format("decision.{} of dtype {} (expected integers)", label,
                                            py::str(a.dtype()).cast<std::string>()));
  auto d = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  std::vector<std::int64_t> out(static_cast<std::size_t>(a.size()));
  for (py::ssize_t i = 0; i < a.size(); ++i) {
    const double v = d.at(i);
    if (!std::isfinite(v) || v != std::floor(v))
      bad_decision(c, "schedule", fmt::format("decision.{}[{}] = {}, not an integer", label, i, v));
    if (std::fabs(v) > 9e15)  // beyond every index and count; also where a double stops being exact
      bad_decision(c, "schedule", fmt::format("decision.{}[{}] = {}, an integer out of range", label, i, v));
    out[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(v);
  }
  return out;
}

std::vector<std::int64_t> int_array(const ClassRef& c, py::handle decision, const char* attr) {
  if (!py::hasattr(decision, attr))
    bad_decision(c, "schedule", fmt::format("a {} without '{}' (return a hetsim.Decision or None)",
                                            py::str(py::type::of(decision).attr("__name__")).cast<std::string>(), attr));
  return ints(c, decision.attr(attr), attr);
}

// decision.gpus: None, or one entry per allocation, each None (placement picks) or exact GPU ids.
void read_exact_gpus(const ClassRef& c, py::handle decision, Decision& d) {
  if (!py::hasattr(decision, "gpus")) return;
  py::object gpus = decision.attr("gpus");
  if (gpus.is_none()) return;
  if (py::len(gpus) != d.allocate.size())
    bad_decision(c, "schedule", fmt::format("decision.gpus with {} entries for {} allocations", py::len(gpus),
                                            d.allocate.size()));
  for (std::size_t i = 0; i < d.allocate.size(); ++i) {
    py::object entry = gpus[py::int_(i)];
    if (entry.is_none()) continue;
    for (std::int64_t g : ints(c, entry, fmt::format("gpus[{}]", i))) d.allocate[i].gpus.push_back(static_cast<GpuId>(g));
  }
}

Decision read_decision(const ClassRef& c, py::handle result) {
  Decision d;
  if (result.is_none()) return d;
  for (std::int64_t j : int_array(c, result, "preempt")) d.preempt.push_back(j);
  const auto jobs = int_array(c, result, "jobs");
  const auto types = int_array(c, result, "gpu_types");
  const auto counts = int_array(c, result, "gpu_counts");
  if (types.size() != jobs.size() || counts.size() != jobs.size())
    bad_decision(c, "schedule", fmt::format("decision.jobs, gpu_types and gpu_counts of lengths {}, {} and {} (one "
                                            "entry per allocation in each)", jobs.size(), types.size(), counts.size()));
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const bool fits = types[i] >= -1 && types[i] < (1LL << 30) && counts[i] >= 0 && counts[i] < (1LL << 30);
    if (!fits) bad_decision(c, "schedule", fmt::format("decision entry {} (job {}): gpu type {} / count {} out of range",
                                                       i, jobs[i], types[i], counts[i]));
    d.allocate.push_back({jobs[i], static_cast<GpuTypeId>(types[i]), static_cast<int>(counts[i]), {}});
  }
  read_exact_gpus(c, result, d);
  return d;
}

class PyEventPolicy final : public SchedulingPolicy {
 public:
  PyEventPolicy(std::shared_ptr<const ClassRef> ref, py::object instance)
      : ref_(std::move(ref)), instance_(std::move(instance)), schedule_(instance_.attr("schedule")) {}
  ~PyEventPolicy() override {
    py::gil_scoped_acquire gil;  // every Python reference goes while the GIL is held
    views_.reset();
    schedule_ = py::object();
    instance_ = py::object();
  }
  std::string name() const override { return ref_->name; }
  std::optional<double> round_s() const override { return ref_->round_s; }

  Decision schedule(const PolicyView& ctx) override {
    py::gil_scoped_acquire gil;
    py::object view = views_->build(ctx);
    py::object result;
    try {
      result = schedule_(view);
    } catch (py::error_already_set& e) {
      view.cast<EventView&>().base = nullptr;
      throw_python_error(*ref_, "schedule", e);
    }
    view.cast<EventView&>().base = nullptr;  // a view kept by the policy must not outlive the pass
    return read_decision(*ref_, result);
  }

 private:
  std::shared_ptr<const ClassRef> ref_;
  py::object instance_, schedule_;
  std::optional<EventViewBuilder> views_{std::in_place};
};

class PyAllocationPolicy final : public AllocationPolicy {
 public:
  PyAllocationPolicy(std::shared_ptr<const ClassRef> ref, py::object instance)
      : ref_(std::move(ref)), instance_(std::move(instance)), allocate_(instance_.attr("allocate")),
        every_round_(flag("every_round")), fixed_type_order_(flag("fixed_type_order")),
        skip_zero_priority_(flag("skip_zero_priority")) {}
  ~PyAllocationPolicy() override {
    py::gil_scoped_acquire gil;
    views_.reset();
    allocate_ = py::object();
    instance_ = py::object();
  }
  std::string name() const override { return ref_->name; }
  bool every_round() const override { return every_round_; }
  bool fixed_type_order() const override { return fixed_type_order_; }
  bool skip_zero_priority() const override { return skip_zero_priority_; }

  AllocationResult allocate(const AllocationView& view) override {
    py::gil_scoped_acquire gil;
    py::object v = views_->build(view);
    py::object result;
    try {
      result = allocate_(v);
    } catch (py::error_already_set& e) {
      throw_python_error(*ref_, "allocate", e);
    }
    v.cast<AllocView&>().base = nullptr;
    AllocationResult out;
    out.x = read_matrix(view, result);
    out.x = sanitize_allocation(view, std::move(out.x));  // as the built-in LP policies do
    return out;
  }

 private:
  std::shared_ptr<const ClassRef> ref_;
  py::object instance_, allocate_;
  std::optional<AllocViewBuilder> views_{std::in_place};
  bool every_round_, fixed_type_order_, skip_zero_priority_;

  bool flag(const char* attr) const { return py::bool_(instance_.attr(attr)); }

  // X must be (rows, types) of finite non-negative numbers: NaN or a negative share is a bug in the
  // policy, named with its row, job and type rather than clipped away.
  AllocationMatrix read_matrix(const AllocationView& view, py::handle result) const {
    const std::size_t rows = view.jobs.size(), types = view.type_names.size();
    auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(result);
    if (!a || a.ndim() != 2 || static_cast<std::size_t>(a.shape(0)) != rows || static_cast<std::size_t>(a.shape(1)) != types)
      throw InputError(ref_->origin, 0, ref_->field("allocate"),
                       fmt::format("Python policy '{}' returned {} where X of shape ({}, {}) (jobs x GPU types) was "
                                   "expected", ref_->name, py::str(py::repr(result)).cast<std::string>().substr(0, 120),
                                   rows, types));
    AllocationMatrix x(rows, std::vector<double>(types));
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t t = 0; t < types; ++t) {
        const double v = a.at(static_cast<py::ssize_t>(i), static_cast<py::ssize_t>(t));
        if (!std::isfinite(v) || v < 0.0)
          throw InputError(ref_->origin, 0, ref_->field("allocate"),
                           fmt::format("Python policy '{}' returned X[{}][{}] = {} for job {} on GPU type '{}' (shares "
                                       "must be finite and >= 0)", ref_->name, i, t, v, view.jobs[i].spec->id,
                                       view.type_names[t]));
        x[i][t] = v;
      }
    return x;
  }
};

// Builds one policy object: cls(params=..., seed=...) under the GIL; an exception in the
// constructor names the class like one in schedule().
py::object instantiate(const ClassRef& ref, const PolicyParams& params, std::uint64_t seed) {
  py::dict p;
  for (const auto& [k, v] : params) p[py::str(k)] = v;
  try {
    return ref.cls(py::arg("params") = p, py::arg("seed") = seed);
  } catch (py::error_already_set& e) {
    throw_python_error(ref, "__init__", e);
  }
}

// A class's round_s under the rules of --interval: a number of seconds, 0 (event-driven) or in
// [0.001, 1e12]; anything else would hang the run on an unreachable or endless round grid.
double round_s_of(const py::dict& entry, const std::string& origin, const std::string& class_name) {
  const py::handle v = entry["round_s"];
  double s = 0.0;
  const bool number = (py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v)) && !py::isinstance<py::bool_>(v);
  if (number) s = v.cast<double>();
  if (!number || !(s == 0.0 || (s >= 1e-3 && s <= kMaxSimSeconds)))
    throw InputError(origin, 0, class_name + ".round_s",
                     fmt::format("must be None, 0 or a number of seconds in [0.001, {:.0e}], got {}", kMaxSimSeconds,
                                 py::repr(v).cast<std::string>()));
  return s;
}

std::vector<ParamInfo> params_of(const py::dict& entry) {
  std::vector<ParamInfo> out;
  for (py::handle p : entry["params"]) {
    auto t = p.cast<py::tuple>();
    std::optional<NumericRange> range;
    if (!t[3].is_none()) range = NumericRange{t[3].cast<py::tuple>()[0].cast<double>(), t[3].cast<py::tuple>()[1].cast<double>()};
    out.emplace_back(t[0].cast<std::string>(), t[1].cast<std::string>(), t[2].cast<std::string>(), range);
  }
  return out;
}

}  // namespace

std::string add_python_policy(PolicyRegistry& registry, const py::dict& entry) {
  auto ref = std::make_shared<ClassRef>();
  ref->cls = entry["cls"];
  ref->name = entry["name"].cast<std::string>();
  ref->class_name = entry["class_name"].cast<std::string>();
  ref->origin = entry["origin"].cast<std::string>();
  if (!entry["round_s"].is_none()) ref->round_s = round_s_of(entry, ref->origin, ref->class_name);
  if (const PolicyInfo* taken = registry.find(ref->name))
    throw InputError(ref->origin, 0, ref->class_name + ".name",
                     fmt::format("policy name '{}' is already registered ({}): give the class another `name`", ref->name,
                                 taken->source.empty() ? taken->summary : taken->source));
  PolicyInfo info{ref->name, entry["summary"].cast<std::string>(), entry["source"].cast<std::string>(),
                  params_of(entry), nullptr, nullptr};
  std::shared_ptr<const ClassRef> shared = ref;
  if (entry["kind"].cast<std::string>() == "event") {
    info.make = [shared](const PolicyParams& p, std::uint64_t seed) -> std::unique_ptr<SchedulingPolicy> {
      py::gil_scoped_acquire gil;
      return std::make_unique<PyEventPolicy>(shared, instantiate(*shared, p, seed));
    };
  } else {
    info.make_allocation = [shared](const PolicyParams& p, std::uint64_t seed) -> std::unique_ptr<AllocationPolicy> {
      py::gil_scoped_acquire gil;
      return std::make_unique<PyAllocationPolicy>(shared, instantiate(*shared, p, seed));
    };
  }
  registry.add(std::move(info));
  return ref->name;
}

}  // namespace hetsim::python
