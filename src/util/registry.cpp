#include "hetsim/util/registry.hpp"

#include <fmt/format.h>
#include <limits>

#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {

std::string describe_range(const NumericRange& range) {
  if (range.max >= std::numeric_limits<double>::max()) return fmt::format("at least {:g}", range.min);
  return fmt::format("in [{:g}, {:g}]", range.min, range.max);
}

namespace {

const ParamInfo* find_param(const std::vector<ParamInfo>& declared, const std::string& key) {
  for (const ParamInfo& p : declared)
    if (p.name == key) return &p;
  return nullptr;
}

}  // namespace

std::optional<ParamProblem> find_param_problem(const std::string& what, const std::vector<ParamInfo>& declared,
                                               const ParamValues& given) {
  for (const auto& [key, value] : given) {
    const ParamInfo* p = find_param(declared, key);
    if (!p && declared.empty()) return ParamProblem{key, fmt::format("{} takes no parameters (got '{}')", what, key)};
    if (!p) {
      std::string known;
      for (const ParamInfo& d : declared) known += (known.empty() ? "" : ", ") + d.name;
      return ParamProblem{key, fmt::format("{} has no parameter '{}' (it has: {})", what, key, known)};
    }
    if (!p->range) continue;
    double v = 0.0;
    try {
      v = parse_double(value, SourcePos{});
    } catch (const InputError& e) {
      return ParamProblem{key, e.message()};
    }
    if (!(v >= p->range->min && v <= p->range->max))
      return ParamProblem{key, fmt::format("must be {}, got {:g}", describe_range(*p->range), v)};
  }
  return std::nullopt;
}

void check_params(const std::string& what, const std::vector<ParamInfo>& declared, const ParamValues& given,
                  const std::string& flag, bool key_in_field) {
  if (auto p = find_param_problem(what, declared, given))
    throw InputError("", 0, key_in_field ? flag + " " + p->key : flag, p->message);
}

std::string describe_params(const std::vector<ParamInfo>& params) {
  if (params.empty()) return "none";
  std::string out;
  for (const ParamInfo& p : params) out += (out.empty() ? "" : ", ") + p.name + "=" + p.default_value;
  return out;
}

}  // namespace hetsim
