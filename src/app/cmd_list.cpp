// `hetsim list`: what hetsim knows by name, printed from the registries (policies, placements,
// throughput models and trace formats with their parameters and sources) and the cluster presets.
#include <fmt/core.h>
#include <algorithm>
#include <functional>
#include <memory>

#include "commands.hpp"
#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/sched/placement.hpp"
#include "hetsim/trace/trace_reader.hpp"
#include "hetsim/util/error.hpp"

namespace hetsim::app {
namespace {

// One registry's entries, all in the same layout: name, summary, source, then each parameter as
// the user writes it (`param_prefix` + name = default) with its help and range.
template <class Entry>
void print_entries(const Registry<Entry>& registry, const std::string& param_prefix) {
  for (const Entry& e : registry.all()) {
    fmt::print("{}\n  {}\n  source: {}\n", e.name, e.summary, e.source);
    for (const ParamInfo& p : e.params)
      fmt::print("  {}{}={}  {}{}\n", param_prefix, p.name, p.default_value, p.help,
                 p.range ? " (" + describe_range(*p.range) + ")" : "");
  }
}

void print_presets() {
  const auto presets = list_presets();
  std::size_t width = 0;
  for (const auto& [name, description] : presets) width = std::max(width, name.size());
  for (const auto& [name, description] : presets) fmt::print("{:<{}}  {}\n", name, width, description);
}

struct ListKind {
  const char* name;
  std::function<void()> print;
};

// Every list `hetsim list` knows, in help order; the help text and the unknown-list error both
// come from here.
std::vector<ListKind> list_kinds(const PolicyRegistry& policies) {
  return {
      {"policies", [&policies] { print_entries(policies.entries(), "--param "); }},
      {"placements", [] { print_entries(make_default_placement_registry(), "--placement "); }},
      {"models", [] { print_entries(make_default_model_registry(), "--model-param "); }},
      {"formats",
       [] {
         print_entries(make_default_format_registry(), "");
         fmt::print("clusters: --cluster alibaba-openb:CSV | alibaba-pai:CSV | alibaba-spot:CSV imports a node inventory\n");
       }},
      {"presets", print_presets},
  };
}

std::string joined_kinds(const std::vector<ListKind>& kinds, const char* sep) {
  std::string out;
  for (const ListKind& k : kinds) out += (out.empty() ? "" : sep) + std::string(k.name);
  return out;
}

}  // namespace

Action add_list_command(CLI::App& app, const PolicyRegistry& registry) {
  auto what = std::make_shared<std::string>("policies");
  const std::vector<ListKind> kinds = list_kinds(registry);
  CLI::App* cmd = app.add_subcommand("list", "List what hetsim knows by name: " + joined_kinds(kinds, ", "));
  cmd->add_option("what", *what, joined_kinds(kinds, " | "))->capture_default_str();
  return [what, kinds]() -> int {
    for (const ListKind& k : kinds)
      if (*what == k.name) {
        k.print();
        return kOk;
      }
    throw InputError("", 0, "list", fmt::format("unknown list '{}' ({})", *what, joined_kinds(kinds, ", ")));
  };
}

}  // namespace hetsim::app
