// Sia's measured placements (siasosp23/artifacts, sia-simulator/traces/; Jayaram Subramanya et al.,
// "Sia: Heterogeneity-aware, goodput-optimized ML-cluster scheduling", SOSP'23) as a profile
// tensor. Column order differs between files, so every file is read by header name.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <vector>

#include "hetsim/perf/profile_tensor.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/parse.hpp"
#include "tensor_builder.hpp"

namespace hetsim {
namespace {

namespace fs = std::filesystem;

// One placements CSV into the builder; returns rows read.
std::size_t read_placements(const std::string& path, std::string_view text, const std::string& app,
                            const std::string& gpu, TensorBuilder& b) {
  std::size_t line_no = 0, pos = 0, rows = 0;
  int col_bsz = -1, col_step = -1, col_place = -1;
  std::size_t ncols = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty()) {
      if (end == text.size()) break;
      continue;
    }
    auto fields = split(line, ',');
    if (col_bsz < 0 && col_step < 0 && col_place < 0) {
      ncols = fields.size();
      for (std::size_t c = 0; c < fields.size(); ++c) {
        std::string_view f = trim(fields[c]);
        if (f == "local_bsz") col_bsz = static_cast<int>(c);
        if (f == "step_time") col_step = static_cast<int>(c);
        if (f == "placement") col_place = static_cast<int>(c);
      }
      for (auto [col, name] : {std::pair{col_bsz, "local_bsz"}, {col_step, "step_time"}, {col_place, "placement"}})
        if (col < 0) throw InputError(path, line_no, name, "missing column in the header");
      continue;
    }
    if (fields.size() != ncols)
      throw InputError(path, line_no, "", fmt::format("expected {} fields as in the header, got {}", ncols, fields.size()));
    const long long bsz = parse_int(fields[static_cast<std::size_t>(col_bsz)], SourcePos{path, line_no, "local_bsz"});
    const double step = parse_double(fields[static_cast<std::size_t>(col_step)], SourcePos{path, line_no, "step_time"});
    const std::string placement(trim(fields[static_cast<std::size_t>(col_place)]));
    int gpus = 0;
    for (char c : placement) {
      if (c < '0' || c > '9') throw InputError(path, line_no, "placement", "expected digits (GPUs per node)");
      gpus += c - '0';
    }
    if (placement.empty() || gpus <= 0) throw InputError(path, line_no, "placement", "no GPUs in placement");
    // An int row key and a product with the GPU count follow: bounded as Pollux's step rows are.
    if (bsz < 1 || bsz > 1'000'000)
      throw InputError(path, line_no, "local_bsz", fmt::format("expected a whole number from 1 to 1000000, got {}", bsz));
    if (!(step > 0.0)) throw InputError(path, line_no, "step_time", "must be positive");
    b.add(row_key(app, static_cast<int>(bsz)), gpu, placement, gpus, static_cast<double>(gpus * bsz) / step);
    ++rows;
  }
  return rows;
}

std::size_t read_placements_file(const fs::path& file, const std::string& app, const std::string& gpu,
                                 TensorBuilder& b) {
  return read_placements(file.string(), read_file(file.string()), app, gpu, b);
}

}  // namespace

ProfileTensor load_sia_placements(const std::string& path, std::string_view text, const std::string& app,
                                  const std::string& gpu) {
  TensorBuilder b;
  if (read_placements(path, text, app, gpu, b) == 0) throw InputError(path, 0, "", "no placement rows");
  return b.build(path, "samples/s");
}

ProfileTensor load_sia_tensor(const std::string& dir, const std::string& t4_dir) {
  if (!fs::is_directory(dir)) throw InputError(dir, 0, "", "not a directory of Sia application folders");
  static constexpr std::pair<const char*, const char*> kFiles[] = {
      {"placements-dgx-ext.csv", "a100"}, {"placements-azure.csv", "v100"}, {"placements-quad.csv", "quadro"},
      {"placements-rtx.csv", "rtx2080ti"}};
  std::vector<fs::path> apps;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) apps.push_back(e.path());
  std::sort(apps.begin(), apps.end());
  TensorBuilder b;
  std::size_t rows = 0;
  for (const fs::path& app_dir : apps) {
    const std::string app = app_dir.filename().string();
    for (const auto& [file, gpu] : kFiles)
      if (fs::exists(app_dir / file)) rows += read_placements_file(app_dir / file, app, gpu, b);
    if (!t4_dir.empty() && fs::exists(fs::path(t4_dir) / app / "placements.csv"))
      rows += read_placements_file(fs::path(t4_dir) / app / "placements.csv", app, "t4", b);
  }
  if (rows == 0) throw InputError(dir, 0, "", "no placements-*.csv rows found under any application folder");
  return b.build(dir, "samples/s");
}

}  // namespace hetsim
