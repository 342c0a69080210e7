#include "hetsim/policy/registry.hpp"

#include <fmt/format.h>
#include <limits>
#include <stdexcept>

#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {

void PolicyRegistry::add(PolicyInfo info) {
  if (find(info.name)) throw std::logic_error("policy registered twice: " + info.name);
  policies_.push_back(std::move(info));
}

const PolicyInfo* PolicyRegistry::find(const std::string& name) const {
  for (const PolicyInfo& p : policies_)
    if (p.name == name) return &p;
  return nullptr;
}

const PolicyInfo& PolicyRegistry::checked(const std::string& name) const {
  const PolicyInfo* info = find(name);
  if (!info) {
    std::string known;
    for (const PolicyInfo& p : policies_) known += (known.empty() ? "" : ", ") + p.name;
    throw InputError("", 0, "--policy", fmt::format("unknown policy '{}' (known: {})", name, known));
  }
  return *info;
}

PolicyParams PolicyRegistry::with_defaults(const PolicyInfo& info, const PolicyParams& params) const {
  PolicyParams full;
  for (const PolicyParamInfo& p : info.params) full[p.name] = p.default_value;
  for (const auto& [key, value] : params) {
    if (!full.count(key)) {
      std::string known;
      for (const PolicyParamInfo& p : info.params) known += (known.empty() ? "" : ", ") + p.name;
      throw InputError("", 0, "--param", fmt::format("policy '{}' has no parameter '{}' (it has: {})", info.name, key,
                                                     known.empty() ? "none" : known));
    }
    full[key] = value;
  }
  return full;
}

std::unique_ptr<SchedulingPolicy> PolicyRegistry::make(const std::string& name, const PolicyParams& params,
                                                       std::uint64_t seed) const {
  const PolicyInfo& info = checked(name);
  PolicyParams full = with_defaults(info, params);
  if (!info.make)
    throw InputError("", 0, "--policy",
                     fmt::format("policy '{}' is an allocation policy: run it with --mechanism gavel (or auto)", name));
  return info.make(full, seed);
}

std::unique_ptr<AllocationPolicy> PolicyRegistry::make_allocation(const std::string& name, const PolicyParams& params,
                                                                  std::uint64_t seed) const {
  const PolicyInfo& info = checked(name);
  PolicyParams full = with_defaults(info, params);
  if (!info.make_allocation)
    throw InputError("", 0, "--mechanism",
                     fmt::format("policy '{}' has no allocation form for the time-sharing mechanism 'gavel'; use "
                                 "--mechanism event",
                                 name));
  return info.make_allocation(full, seed);
}

double param_double(const PolicyParams& params, const std::string& key) {
  auto it = params.find(key);
  if (it == params.end()) throw std::logic_error("undeclared policy parameter read: " + key);
  return parse_double(it->second, SourcePos{"", 0, "--param " + key});
}

double param_double(const PolicyParams& params, const std::string& key, double min, double max) {
  const double v = param_double(params, key);
  if (!(v >= min && v <= max)) {
    const std::string range = max >= std::numeric_limits<double>::max()
                                  ? fmt::format("at least {:g}", min)
                                  : fmt::format("in [{:g}, {:g}]", min, max);
    throw InputError("", 0, "--param " + key, fmt::format("must be {}, got {:g}", range, v));
  }
  return v;
}

const std::string& param_string(const PolicyParams& params, const std::string& key) {
  auto it = params.find(key);
  if (it == params.end()) throw std::logic_error("undeclared policy parameter read: " + key);
  return it->second;
}

PolicyRegistry make_default_registry() {
  PolicyRegistry registry;
  register_fifo(registry);
  register_srtf(registry);
  register_fifo_perf(registry);
  register_gavel_maxmin(registry);
  register_gavel_ftf(registry);
  register_gavel_throughput(registry);
  register_gavel_makespan(registry);
  register_sia(registry);
  register_tiresias(registry);
  register_optimus(registry);
  register_pollux(registry);
  register_heet(registry);
  register_srsf(registry);
  register_afs(registry);
  return registry;
}

}  // namespace hetsim
