#pragma once
/// The one registry shape shared by policies, placements, throughput models and trace formats:
/// entries by name, in registration order, each with a summary, a source and declared parameters.
/// `hetsim list`, --help texts, spec validation and error messages are generated from registries,
/// so a name is written once, where it is registered. No global state: registries are values built
/// by make_default_*_registry() functions.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetsim {

/// Accepted closed range of a numeric parameter; max = numeric_limits<double>::max() means unbounded.
struct NumericRange {
  double min = 0.0;
  double max = 0.0;
};

/// "in [0, 1]" or "at least 1" (when max is unbounded).
std::string describe_range(const NumericRange& range);

/// One declared parameter of a registered entry.
struct ParamInfo {
  // A constructor, not an aggregate, so three-field declarations need no range placeholder.
  ParamInfo(std::string name_in, std::string default_in, std::string help_in,
            std::optional<NumericRange> range_in = std::nullopt)
      : name(std::move(name_in)), default_value(std::move(default_in)), help(std::move(help_in)), range(range_in) {}
  std::string name;
  std::string default_value;  ///< as written on the command line; empty = unset
  std::string help;           ///< one line
  std::optional<NumericRange> range;  ///< set for numeric parameters: values outside are refused
};

/// Parameter values by key, as given (`--param k=v`, `--model-param k=v`).
using ParamValues = std::map<std::string, std::string>;

/// What is wrong with one given parameter.
struct ParamProblem {
  std::string key;
  std::string message;  ///< names `what` and the accepted keys, or the range and the value
};

/// The first given parameter that is not declared or whose number lies outside its range (in key
/// order); nullopt when all are fine. `what` names the owner in messages ("model 'analytic'").
std::optional<ParamProblem> find_param_problem(const std::string& what, const std::vector<ParamInfo>& declared,
                                               const ParamValues& given);

/// find_param_problem() as an InputError with field "<flag> <key>" (or "<flag>" when
/// `key_in_field` is false).
void check_params(const std::string& what, const std::vector<ParamInfo>& declared, const ParamValues& given,
                  const std::string& flag, bool key_in_field = true);

/// "name=default" for each parameter, comma-separated ("none" when there are none), for help texts.
std::string describe_params(const std::vector<ParamInfo>& params);

/// Entries (any struct with a `std::string name`) by name, in registration order.
template <class Entry>
class Registry {
 public:
  /// `kind` names the entries in messages ("placement", "trace format").
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  /// Adds an entry; throws std::logic_error on a duplicate name (a programming error).
  void add(Entry entry) {
    if (find(entry.name)) throw std::logic_error(kind_ + " registered twice: " + entry.name);
    entries_.push_back(std::move(entry));
  }
  /// The entry named `name`; nullptr when unknown.
  const Entry* find(std::string_view name) const {
    for (const Entry& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  const std::vector<Entry>& all() const& { return entries_; }
  // A loop over make_default_*_registry().all() would read a destroyed temporary: keep the registry.
  const std::vector<Entry>& all() const&& = delete;
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const Entry& e : entries_) out.push_back(e.name);
    return out;
  }
  /// The names joined by ", ", for messages and help texts.
  std::string joined_names() const {
    std::string out;
    for (const Entry& e : entries_) out += (out.empty() ? "" : ", ") + e.name;
    return out;
  }
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
  std::vector<Entry> entries_;
};

}  // namespace hetsim
