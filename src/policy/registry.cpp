#include "hetsim/policy/registry.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include "hetsim/policy/builtin.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {

const PolicyInfo& PolicyRegistry::checked(const std::string& name) const {
  const PolicyInfo* info = find(name);
  if (!info) throw InputError("", 0, "--policy", fmt::format("unknown policy '{}' (known: {})", name, joined_names()));
  return *info;
}

PolicyParams PolicyRegistry::with_defaults(const PolicyInfo& info, const PolicyParams& params) const {
  check_params(fmt::format("policy '{}'", info.name), info.params, params, "--param", false);
  PolicyParams full;
  for (const ParamInfo& p : info.params) full[p.name] = p.default_value;
  for (const auto& [key, value] : params) full[key] = value;
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
  if (!(v >= min && v <= max))
    throw InputError("", 0, "--param " + key, fmt::format("must be {}, got {:g}", describe_range({min, max}), v));
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
  register_isolated(registry);
  register_allox(registry);
  register_sia(registry);
  register_tiresias(registry);
  register_tiresias_fifo(registry);
  register_tiresias_shortest(registry);
  register_tiresias_dlas_gpu(registry);
  register_tiresias_gittins(registry);
  register_las(registry);
  register_optimus(registry);
  register_pollux(registry);
  register_heet(registry);
  register_heet_gavel_baseline(registry);
  register_srsf(registry);
  register_afs(registry);
  register_edf(registry);
  register_elasticflow(registry);
  register_gandiva(registry);
  return registry;
}

}  // namespace hetsim
