#pragma once
/// The one registry of scheduling policies, by name. No global state: a PolicyRegistry value is
/// built by make_default_registry() and passed to whoever needs it.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hetsim/policy/allocation.hpp"
#include "hetsim/policy/policy.hpp"
#include "hetsim/util/registry.hpp"

namespace hetsim {

/// Everything needed to list and build one policy.
struct PolicyInfo {
  std::string name;
  std::string summary;  ///< one line: what it does
  std::string source;   ///< the paper or system it follows
  std::vector<ParamInfo> params;
  /// Builds the policy; receives the checked parameters (defaults filled in) and the run seed.
  /// nullptr for allocation-only policies (they run under the round-based time-sharing mechanism).
  std::function<std::unique_ptr<SchedulingPolicy>(const PolicyParams&, std::uint64_t seed)> make;
  /// Builds the policy's allocation form (an X matrix for the round-based time-sharing mechanism,
  /// `--mechanism gavel`); nullptr when the policy has none.
  std::function<std::unique_ptr<AllocationPolicy>(const PolicyParams&, std::uint64_t seed)> make_allocation;
  /// true: `make` serves goodput workloads (--workload) only, so without one `--mechanism auto` runs
  /// the allocation form (sia and gavel-maxmin: rigid jobs on throughput tables, as before they had both).
  bool scheduling_form_for_workloads_only = false;
};

/// Policies by name, in registration order: the shared Registry shape plus the policy factories.
class PolicyRegistry {
 public:
  /// Adds a policy; throws std::logic_error on a duplicate name.
  void add(PolicyInfo info) { policies_.add(std::move(info)); }
  /// All policies in registration order.
  const std::vector<PolicyInfo>& all() const { return policies_.all(); }
  /// Looks a policy up; nullptr when unknown.
  const PolicyInfo* find(const std::string& name) const { return policies_.find(name); }
  /// The policies as the shared registry shape (for code written once for every registry).
  const Registry<PolicyInfo>& entries() const { return policies_; }
  /// The registered names joined by ", ".
  std::string joined_names() const { return policies_.joined_names(); }
  /// Builds a policy. Throws InputError (field "--policy" or "--param") for an unknown policy name
  /// (listing the known ones), an undeclared parameter or a malformed value.
  std::unique_ptr<SchedulingPolicy> make(const std::string& name, const PolicyParams& params,
                                         std::uint64_t seed) const;
  /// Builds the allocation form of a policy for the time-sharing mechanism. Same errors as make(),
  /// plus InputError when the policy has no allocation form.
  std::unique_ptr<AllocationPolicy> make_allocation(const std::string& name, const PolicyParams& params,
                                                    std::uint64_t seed) const;

 private:
  const PolicyInfo& checked(const std::string& name) const;
  PolicyParams with_defaults(const PolicyInfo& info, const PolicyParams& params) const;
  Registry<PolicyInfo> policies_{"policy"};
};

/// The registry with every built-in policy.
PolicyRegistry make_default_registry();

/// Helpers for policy factories: read a declared parameter as a number; throw InputError on junk.
double param_double(const PolicyParams& params, const std::string& key);
/// Reads a declared numeric parameter and checks it lies in [min, max] (finite: parse_double
/// refuses NaN and infinities). Throws InputError naming "--param <key>" with the accepted range.
/// Policies read every numeric parameter through this, so `--param x=-1` fails before a run.
double param_double(const PolicyParams& params, const std::string& key, double min, double max);
/// Reads a declared parameter as text.
const std::string& param_string(const PolicyParams& params, const std::string& key);

}  // namespace hetsim
