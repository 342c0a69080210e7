#pragma once
// Private helper of the profile loaders: collects (job, gpu, config) -> value cells in any order
// and builds a ProfileTensor with sorted, deterministic axes. Repeated cells are averaged.
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "hetsim/perf/profile_tensor.hpp"

namespace hetsim {

class TensorBuilder {
 public:
  /// Adds one measurement (value > 0); a repeated cell is averaged with the earlier ones.
  void add(const std::string& job, const std::string& gpu, const std::string& config, int config_gpus, double value);
  /// Records a measured "cannot run" cell (throughput 0).
  void add_cannot_run(const std::string& job, const std::string& gpu, const std::string& config, int config_gpus);
  /// The tensor: jobs and GPUs sorted by name, configurations by GPU count, then label.
  ProfileTensor build(std::string source, std::string unit) const;

 private:
  using Cell = std::tuple<std::string, std::string, std::string>;
  std::map<Cell, std::pair<double, int>> cells_;
  std::set<Cell> zeros_;
  std::set<std::string> jobs_;
  std::set<std::string> gpus_;
  std::map<std::string, int> configs_;
};

}  // namespace hetsim
