// Node inventories of public Alibaba cluster traces, imported as heterogeneous clusters:
//  - OpenB (github.com/alibaba/clusterdata cluster-trace-gpu-v2023, Weng et al., ATC'23):
//    `sn,cpu_milli,memory_mib,gpu,model`;
//  - PAI 2020 (cluster-trace-gpu-v2020, Weng et al., NSDI'22): headerless
//    `machine,gpu_type,cap_cpu,cap_mem,cap_gpu`, column names in a companion `.header` file;
//  - spot GPU 2026 (cluster-trace-v2026-spot-gpu): `gpu_model,gpu_capacity_num,cpu_num,node_name`.
// None records racks or networks, so both come from documented rules (docs/cluster-format.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"

namespace hetsim {
namespace {

constexpr std::size_t absent = static_cast<std::size_t>(-1);

// What is known of a GPU model named in these inventories. Memory from the vendors' data sheets;
// interconnect from the server form factor the model ships in: SXM parts sit on NVLink/NVSwitch
// boards, PCIe cards (P100 in 1-2 GPU servers, T4, A10) and undisclosed models on PCIe.
struct ModelFacts {
  const char* name;  // lower case
  double memory_gb;
  InterconnectKind kind;
  double gbytes_per_s;  // per GPU link and direction; 0 = the kind's default
};

constexpr ModelFacts kKnownModels[] = {
    {"p100", 16.0, InterconnectKind::Pcie, 0.0},
    {"t4", 16.0, InterconnectKind::Pcie, 0.0},
    {"a10", 24.0, InterconnectKind::Pcie, 0.0},
    {"v100", 16.0, InterconnectKind::NvLink, 0.0},     // PAI's "V100" is the 16 GB part (V100M32 is separate)
    {"v100m16", 16.0, InterconnectKind::NvLink, 0.0},
    {"v100m32", 32.0, InterconnectKind::NvLink, 0.0},
    {"a100-sxm4-80gb", 80.0, InterconnectKind::NvSwitch, 0.0},
    // The export variants cap NVLink at 400 GB/s both ways: 200 GB/s per direction.
    {"a800-sxm4-80gb", 80.0, InterconnectKind::NvSwitch, 200.0},
    {"h800", 80.0, InterconnectKind::NvSwitch, 200.0},
};

const ModelFacts* known_model(const std::string& lower) {
  for (const ModelFacts& m : kKnownModels)
    if (lower == m.name) return &m;
  return nullptr;
}

// Rows gathered before the Cluster is built (types are numbered by first appearance).
struct InventoryNode {
  std::string name;
  std::string model;  // lower case
  int gpus = 0;
  std::size_t line = 0;
};

struct Counts {
  std::size_t cpu_only = 0;
  std::size_t unknown_model = 0;  // PAI "MISC": GPUs of an unrecorded model
};

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> f = split(line, ',');
  for (auto& x : f) x = trim(x);
  return f;
}

std::size_t column(const std::vector<std::string_view>& header, std::string_view name, const std::string& path,
                   std::size_t line, bool required = true) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  if (required) throw InputError(path, line, std::string(name), "required column is missing from the header");
  return absent;
}

int gpu_count(std::string_view text, const std::string& path, std::size_t line, const char* field) {
  const long long n = parse_int(text, SourcePos{path, line, field});
  if (n < 0 || n > 1'000'000)
    throw InputError(path, line, field, fmt::format("GPU count must be between 0 and 1000000, got {}", n));
  return static_cast<int>(n);
}

// The model becomes a GPU type name: checked here so the error names the row and column.
void check_model_name(std::string_view model, const std::string& path, std::size_t line, const char* field) {
  if (!is_valid_gpu_type_name(model))
    throw InputError(path, line, field,
                     fmt::format("GPU model '{}' has a character outside the allowed set: {}", model, kGpuTypeNameRule));
}

// Walks the data rows of `text` (after `skip_header` header lines), calling `row(fields, line)`
// for each non-blank row, after checking its field count.
template <typename Row>
void for_each_row(const std::string& path, std::string_view text, std::size_t expected, bool skip_header, Row row) {
  std::size_t line = 0;
  bool header_seen = !skip_header;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++line;
    if (trim(raw).empty()) {
      if (end == text.size()) break;
      continue;
    }
    if (!header_seen) {
      header_seen = true;
      continue;
    }
    auto f = fields_of(raw);
    if (f.size() != expected)
      throw InputError(path, line, "", fmt::format("expected {} comma-separated fields, got {}", expected, f.size()));
    row(f, line);
    if (end == text.size()) break;
  }
}

std::string_view first_line(std::string_view text, std::size_t& line_no) {
  std::size_t start = 0;
  line_no = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line_no;
    std::string_view l = trim(text.substr(start, end - start));
    if (!l.empty()) return l;
    start = end + 1;
  }
  throw InputError("", 0, "", "empty");
}

// Column names of an inventory with a header line: the OpenB node list and the spot node_info.
struct HeadedColumns {
  const char* name;
  const char* gpus;
  const char* model;
  const char* name_prefix;  // prepended to node names (the spot trace's are bare numbers)
};

std::vector<InventoryNode> read_headed(const std::string& path, std::string_view text, Counts& counts,
                                       const HeadedColumns& cols) {
  std::size_t hl = 0;
  std::string_view header_line;
  try {
    header_line = first_line(text, hl);
  } catch (const InputError&) {
    throw InputError(path, 0, "", "no header line");
  }
  const auto header = fields_of(header_line);
  const std::size_t c_name = column(header, cols.name, path, hl), c_gpus = column(header, cols.gpus, path, hl),
                    c_model = column(header, cols.model, path, hl);
  std::vector<InventoryNode> nodes;
  for_each_row(path, text, header.size(), true, [&](const std::vector<std::string_view>& f, std::size_t line) {
    const int gpus = gpu_count(f[c_gpus], path, line, cols.gpus);
    if (gpus == 0) {
      ++counts.cpu_only;
      return;
    }
    if (f[c_model].empty())
      throw InputError(path, line, cols.model, fmt::format("empty GPU model on a node with {} GPUs", gpus));
    if (f[c_name].empty()) throw InputError(path, line, cols.name, "empty node name");
    check_model_name(f[c_model], path, line, cols.model);
    nodes.push_back({cols.name_prefix + std::string(f[c_name]), to_lower(f[c_model]), gpus, line});
  });
  return nodes;
}

std::vector<InventoryNode> read_openb(const std::string& path, std::string_view text, Counts& counts) {
  return read_headed(path, text, counts, {"sn", "gpu", "model", ""});
}

std::string pai_header_path(const std::string& path) {
  std::filesystem::path p(path);
  p.replace_extension(".header");
  return p.string();
}

// `header_file` is the text of the companion header file (pai_header_path(path)).
std::vector<InventoryNode> read_pai(const std::string& path, std::string_view text, std::string_view header_file,
                                    Counts& counts) {
  const std::string header_path = pai_header_path(path);
  const std::string_view header_text = strip_utf8_bom(header_file);
  std::size_t hl = 0;
  std::string_view header_line;
  try {
    header_line = first_line(header_text, hl);
  } catch (const InputError&) {
    throw InputError(header_path, 0, "", "empty header file");
  }
  const auto header = fields_of(header_line);
  const std::size_t c_name = column(header, "machine", header_path, hl), c_type = column(header, "gpu_type", header_path, hl),
                    c_gpus = column(header, "cap_gpu", header_path, hl);
  std::vector<InventoryNode> nodes;
  for_each_row(path, text, header.size(), false, [&](const std::vector<std::string_view>& f, std::size_t line) {
    const int gpus = gpu_count(f[c_gpus], path, line, "cap_gpu");
    const std::string type = to_lower(f[c_type]);
    if (gpus == 0 || type == "cpu") {
      ++counts.cpu_only;
      return;
    }
    // MISC machines hold GPUs of models the trace does not name: no speed, memory or interconnect
    // can be given to them, so they are left out (and counted).
    if (type == "misc") {
      ++counts.unknown_model;
      return;
    }
    if (type.empty()) throw InputError(path, line, "gpu_type", fmt::format("empty GPU type on a machine with {} GPUs", gpus));
    if (f[c_name].empty()) throw InputError(path, line, "machine", "empty machine name");
    check_model_name(type, path, line, "gpu_type");
    nodes.push_back({std::string(f[c_name]), type, gpus, line});
  });
  return nodes;
}

std::vector<InventoryNode> read_spot(const std::string& path, std::string_view text, Counts& counts) {
  return read_headed(path, text, counts, {"node_name", "gpu_capacity_num", "gpu_model", "node-"});
}

const char* format_name(InventoryFormat format) {
  switch (format) {
    case InventoryFormat::AlibabaOpenb: return "alibaba-openb";
    case InventoryFormat::AlibabaPai: return "alibaba-pai";
    case InventoryFormat::AlibabaSpot: return "alibaba-spot";
  }
  return "inventory";
}

// The column holding node names, for errors about a name (the PAI header names it "machine").
const char* name_column(InventoryFormat format) {
  switch (format) {
    case InventoryFormat::AlibabaOpenb: return "sn";
    case InventoryFormat::AlibabaPai: return "machine";
    case InventoryFormat::AlibabaSpot: return "node_name";
  }
  return "name";
}

}  // namespace

std::optional<std::pair<InventoryFormat, std::string>> detect_node_inventory(const std::string& arg) {
  for (InventoryFormat f : {InventoryFormat::AlibabaOpenb, InventoryFormat::AlibabaPai, InventoryFormat::AlibabaSpot}) {
    const std::string prefix = std::string(format_name(f)) + ":";
    if (arg.rfind(prefix, 0) == 0) return std::pair{f, arg.substr(prefix.size())};
  }
  std::error_code ec;
  if (arg.empty() || !std::filesystem::is_regular_file(arg, ec)) return std::nullopt;
  if (std::filesystem::path(arg).extension() == ".csv" && std::filesystem::exists(pai_header_path(arg), ec))
    return std::pair{InventoryFormat::AlibabaPai, arg};
  std::ifstream in(arg);
  std::string line;
  std::getline(in, line);
  const std::string_view l = trim(strip_utf8_bom(line));
  if (l.starts_with("sn,") && l.find(",model") != std::string_view::npos) return std::pair{InventoryFormat::AlibabaOpenb, arg};
  if (l.starts_with("gpu_model,gpu_capacity_num")) return std::pair{InventoryFormat::AlibabaSpot, arg};
  return std::nullopt;
}

ImportedCluster import_node_inventory(InventoryFormat format, const std::string& path) {
  const std::string file_text = read_file(path);
  std::string header_file;
  if (format == InventoryFormat::AlibabaPai) {
    const std::string header_path = pai_header_path(path);
    std::error_code ec;
    if (!std::filesystem::exists(header_path, ec))
      throw InputError(path, 0, "",
                       fmt::format("a PAI machine list has no header line; its column names are read from {}, which "
                                   "does not exist",
                                   header_path));
    header_file = read_file(header_path);
  }
  return import_node_inventory(format, path, file_text, header_file);
}

ImportedCluster import_node_inventory(InventoryFormat format, const std::string& path, std::string_view file_text,
                                      std::string_view pai_header) {
  const std::string_view text = strip_utf8_bom(file_text);  // spreadsheet tools add one, as for traces
  Counts counts;
  std::vector<InventoryNode> rows;
  switch (format) {
    case InventoryFormat::AlibabaOpenb: rows = read_openb(path, text, counts); break;
    case InventoryFormat::AlibabaPai: rows = read_pai(path, text, pai_header, counts); break;
    case InventoryFormat::AlibabaSpot: rows = read_spot(path, text, counts); break;
  }
  if (rows.empty()) throw InputError(path, 0, "", "the inventory lists no node with GPUs");

  // GPU types in order of first appearance; racks hold nodes of one type, at most
  // kInventoryNodesPerRack each, filled in file order.
  std::vector<GpuType> types;
  std::map<std::string, GpuTypeId> type_ids;
  std::vector<int> nodes_of_type;
  std::vector<std::vector<RackId>> racks_of_type;
  std::vector<Rack> racks;
  std::vector<Node> nodes;
  std::map<std::string, std::size_t> name_line;
  std::set<std::string> unknown;
  for (const InventoryNode& r : rows) {
    if (auto [it, fresh] = name_line.emplace(r.name, r.line); !fresh)
      throw InputError(path, r.line, name_column(format),
                       fmt::format("node name '{}' already used on line {}", r.name, it->second));
    auto [it, fresh] = type_ids.emplace(r.model, static_cast<GpuTypeId>(types.size()));
    const ModelFacts* facts = known_model(r.model);
    if (fresh) {
      types.push_back(GpuType{r.model, facts ? facts->memory_gb : 0.0, 1.0});
      nodes_of_type.push_back(0);
      racks_of_type.emplace_back();
      if (!facts) unknown.insert(r.model);
    }
    const auto t = static_cast<std::size_t>(it->second);
    if (nodes_of_type[t] % kInventoryNodesPerRack == 0) {
      racks_of_type[t].push_back(static_cast<RackId>(racks.size()));
      racks.emplace_back(fmt::format("{}-rack{}", r.model, racks_of_type[t].size() - 1));
    }
    ++nodes_of_type[t];
    Node n{r.name, it->second, r.gpus, racks_of_type[t].back(), 0};
    n.interconnect = facts ? facts->kind : InterconnectKind::Pcie;
    n.interconnect_gbytes_per_s = facts && facts->gbytes_per_s > 0.0 ? facts->gbytes_per_s
                                                                      : default_interconnect_gbytes_per_s(n.interconnect);
    n.interconnect_latency_us = default_interconnect_latency_us(n.interconnect);
    nodes.push_back(std::move(n));
  }

  const std::string tag = format_name(format);
  ImportedCluster out{Cluster(std::filesystem::path(path).stem().string(), std::move(types), std::move(racks),
                              std::move(nodes), path),
                      {}};
  std::vector<std::string> per_type;
  for (std::size_t t = 0; t < out.cluster.gpu_types().size(); ++t)
    per_type.push_back(fmt::format("{} {}", out.cluster.gpu_types()[t].name, out.cluster.gpus_of_type(static_cast<GpuTypeId>(t))));
  out.notes.push_back(fmt::format("{} cluster: {} nodes with {} GPUs ({}) on {} racks; {} nodes without GPUs skipped",
                                  tag, out.cluster.nodes().size(), out.cluster.total_gpus(), fmt::join(per_type, ", "),
                                  out.cluster.racks().size(), counts.cpu_only));
  if (counts.unknown_model > 0)
    out.notes.push_back(fmt::format("{} cluster: {} MISC machines (GPU model not recorded) skipped", tag, counts.unknown_model));
  if (!unknown.empty())
    out.notes.push_back(fmt::format("{} cluster: GPU models {} are undisclosed: memory unknown, PCIe assumed", tag,
                                    fmt::join(unknown, ", ")));
  return out;
}

}  // namespace hetsim
