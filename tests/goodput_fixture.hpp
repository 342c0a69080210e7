#pragma once
// The goodput tests' shared setup: one cifar10 job on pollux-64 under the Pollux step-time table.
#include <memory>
#include <optional>

#include "hetsim/cluster/cluster_spec.hpp"
#include "hetsim/perf/goodput_model.hpp"
#include "test_support.hpp"

namespace hetsim::test {

struct CifarGoodput {
  Cluster cluster;
  Workload workload;  ///< the one job, its work attached
  std::unique_ptr<GoodputModel> model;
};

/// cifar10 asking for 4 GPUs at global batch 512 on pollux-64, epochs not rounded to whole seconds
/// (rate_at is then the goodput itself); nullopt (with a WARN) where the Pollux traces are absent.
inline std::optional<CifarGoodput> cifar_goodput() {
  auto root = shared_data("pollux/traces");
  if (!root) return std::nullopt;
  CifarGoodput f{*make_preset("pollux-64"), {}, nullptr};
  JobSpec j;
  j.id = "cifar";
  j.job_type = "cifar10";
  j.requested_gpus = 4;
  j.global_batch_size = 512;
  f.workload.jobs = {j};
  f.model = load_goodput_model(f.cluster, f.workload, {*root}, "pollux-table");
  f.model->set_whole_second_epochs(false);
  attach_goodput_work(f.workload, *f.model, false);
  return f;
}

}  // namespace hetsim::test
