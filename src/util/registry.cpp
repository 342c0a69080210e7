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

void check_params(const std::string& what, const std::vector<ParamInfo>& declared, const ParamValues& given,
                  const std::string& flag, bool key_in_field) {
  for (const auto& [key, value] : given) {
    const std::string field = key_in_field ? flag + " " + key : flag;
    const ParamInfo* p = find_param(declared, key);
    if (!p && declared.empty())
      throw InputError("", 0, field, fmt::format("{} takes no parameters (got '{}')", what, key));
    if (!p) {
      std::string known;
      for (const ParamInfo& d : declared) known += (known.empty() ? "" : ", ") + d.name;
      throw InputError("", 0, field, fmt::format("{} has no parameter '{}' (it has: {})", what, key, known));
    }
    if (!p->range) continue;
    const double v = parse_double(value, SourcePos{"", 0, flag + " " + key});
    if (!(v >= p->range->min && v <= p->range->max))
      throw InputError("", 0, flag + " " + key, fmt::format("must be {}, got {:g}", describe_range(*p->range), v));
  }
}

std::string describe_params(const std::vector<ParamInfo>& params) {
  if (params.empty()) return "none";
  std::string out;
  for (const ParamInfo& p : params) out += (out.empty() ? "" : ", ") + p.name + "=" + p.default_value;
  return out;
}

}  // namespace hetsim
