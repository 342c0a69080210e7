// The fit-check of the step-time models against measured Pollux/Sia step times. Model sizes are
// parameter counts of the architectures the Pollux benchmarks train (petuum/adaptdl, branch
// osdi21-artifact, benchmark/models/*); networks are the vendors' published server specs.
// Sources of each number: docs/models.md, "Fit-check".
#include "hetsim/perf/fit_check.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "hetsim/util/stats.hpp"
#include "hetsim/perf/pollux_fit.hpp"

namespace hetsim {

std::optional<MeasuredSite> measured_site(const std::string& gpu_type) {
  // Bandwidths per direction. NVLink/NVSwitch/PCIe at hetsim's defaults for the kind
  // (docs/cluster-format.md); NICs as published, or 25 Gbit/s where nothing is published.
  if (gpu_type == "t4") return MeasuredSite{"AWS g4dn.12xlarge", 4, InterconnectKind::Pcie, 12.0, 50.0};
  if (gpu_type == "v100") return MeasuredSite{"Azure ND40rs_v2", 8, InterconnectKind::NvLink, 150.0, 100.0};
  if (gpu_type == "a100") return MeasuredSite{"NVIDIA DGX-A100", 8, InterconnectKind::NvSwitch, 300.0, 1600.0};
  if (gpu_type == "quadro6000") return MeasuredSite{"4x Quadro RTX 6000 (PCIe)", 4, InterconnectKind::Pcie, 12.0, 25.0};
  if (gpu_type == "rtx2080ti") return MeasuredSite{"8x RTX 2080 Ti (PCIe)", 8, InterconnectKind::Pcie, 12.0, 25.0};
  return std::nullopt;
}

std::optional<double> pollux_gradient_bytes(const std::string& application) {
  // fp32 parameters x 4 bytes; counts derived in docs/models.md.
  static const std::pair<const char*, double> kParams[] = {
      {"cifar10", 11'173'962.0},      // ResNet-18 for CIFAR-10 (kuangliu/pytorch-cifar, Pollux's default)
      {"imagenet", 25'557'032.0},     // torchvision ResNet-50
      {"bert", 109'482'240.0},        // bert-base-uncased (BERT-base, "110M", Devlin et al. 2019)
      {"deepspeech2", 41'187'968.0},  // DeepSpeech2: 2 conv + 5 bidirectional GRU x 800, 29 labels
      {"yolov3", 61'626'049.0},       // YOLOv3 (61.95M with 80 classes) with 20-class VOC heads
      {"ncf", 1'602'657.0},           // NeuMF, factor 32, 3 MLP layers, MovieLens-1M (6040 x 3706)
  };
  for (const auto& [name, params] : kParams)
    if (application == name) return 4.0 * params;
  return std::nullopt;
}

// A compute profile whose single-GPU time and gradient size are set per predicted row: the
// analytic model asks for them through the job, but here they depend on the row's local batch.
class AnalyticStepPredictor::RowProfile final : public ComputeProfile {
 public:
  explicit RowProfile(double bytes) : bytes_(bytes) {}
  std::string source() const override { return "single-GPU rows of the fit-check's training half"; }
  double step_time_s(const JobSpec&, GpuTypeId) const override { return step_s_; }
  std::optional<double> gradient_bytes(const JobSpec&) const override { return bytes_; }
  void set_step_s(double s) { step_s_ = s; }

 private:
  double bytes_;
  double step_s_ = 0.0;
};

AnalyticStepPredictor::AnalyticStepPredictor(const MeasuredSite& site, int nodes, double gradient_bytes,
                                             const std::vector<StepSample>& single_gpu, AnalyticConfig config) {
  if (single_gpu.empty()) throw std::invalid_argument("analytic fit-check: no single-GPU rows");
  if (!(gradient_bytes > 0.0)) throw std::invalid_argument("analytic fit-check: gradient bytes must be > 0");
  if (nodes < 1 || site.gpus_per_node < 1) throw std::invalid_argument("analytic fit-check: empty site");
  std::map<double, std::pair<double, int>> by_batch;  // batch -> (sum of times, count)
  for (const StepSample& s : single_gpu) {
    if (s.num_replicas != 1) throw std::invalid_argument("analytic fit-check: a compute row has several replicas");
    auto& [sum, count] = by_batch[s.local_bsz];
    sum += s.step_time_s;
    ++count;
  }
  for (const auto& [b, acc] : by_batch) compute_.emplace_back(b, acc.first / acc.second);

  std::vector<Node> node_list;
  for (int i = 0; i < nodes; ++i) {
    Node n(fmt::format("n{}", i), 0, site.gpus_per_node, 0);
    n.interconnect = site.interconnect;
    n.interconnect_gbytes_per_s = site.interconnect_gbytes_per_s;
    n.interconnect_latency_us = default_interconnect_latency_us(site.interconnect);
    n.nic_gbps = site.nic_gbps;
    node_list.push_back(std::move(n));
  }
  cluster_ = std::make_unique<Cluster>(site.name, std::vector<GpuType>{GpuType{"gpu"}}, std::vector<Rack>{Rack{"rack0"}},
                                       std::move(node_list), "fit-check:" + site.name);
  auto profile = std::make_unique<RowProfile>(gradient_bytes);
  profile_ = profile.get();
  model_ = std::make_unique<AnalyticModel>(*cluster_, std::move(profile), config);
}

AnalyticStepPredictor::~AnalyticStepPredictor() = default;

double AnalyticStepPredictor::compute_s(double b) const {
  if (compute_.size() == 1 || b <= compute_.front().first) return compute_.front().second;
  auto hi = std::lower_bound(compute_.begin(), compute_.end(), b,
                             [](const std::pair<double, double>& p, double v) { return p.first < v; });
  if (hi == compute_.end()) hi = compute_.end() - 1;  // beyond the largest batch: extend the last segment
  const auto lo = hi - 1;
  const double t = lo->second + (hi->second - lo->second) * (b - lo->first) / (hi->first - lo->first);
  return b > compute_.back().first ? std::max(t, compute_.back().second) : t;
}

std::optional<StepBreakdown> AnalyticStepPredictor::predict(const StepSample& row) const {
  std::vector<int> per_node;
  if (!row.placement.empty()) {
    for (char c : row.placement) per_node.push_back(c - '0');
  } else {
    if (row.num_nodes < 1 || row.num_replicas < row.num_nodes) return std::nullopt;
    for (int i = 0; i < row.num_nodes; ++i)
      per_node.push_back(row.num_replicas / row.num_nodes + (i < row.num_replicas % row.num_nodes ? 1 : 0));
  }
  const auto& nodes = cluster_->nodes();
  if (per_node.size() > nodes.size()) return std::nullopt;
  std::vector<GpuId> gpus;
  for (std::size_t i = 0; i < per_node.size(); ++i) {
    if (per_node[i] < 0 || per_node[i] > nodes[i].gpu_count) return std::nullopt;
    for (int g = 0; g < per_node[i]; ++g) gpus.push_back(nodes[i].first_gpu + g);
  }
  if (gpus.empty()) return std::nullopt;
  profile_->set_step_s(compute_s(row.local_bsz));
  JobSpec job;
  job.job_type = "fit-check";
  return model_->step(job, gpus);
}

namespace {

// Rows of a profile in the order the split counts them: placements, then scalability.
std::vector<StepSample> all_rows(const StepProfile& prof) {
  std::vector<StepSample> rows = prof.placements;
  rows.insert(rows.end(), prof.scalability.begin(), prof.scalability.end());
  return rows;
}

void analytic_errors(const std::string& app, const std::string& type, const std::vector<StepSample>& train,
                     const std::vector<StepSample>& test, FitCheckRow& out) {
  const auto bytes = pollux_gradient_bytes(app);
  const auto site = measured_site(type);
  if (!bytes) {
    out.analytic_note = "no gradient size";
    return;
  }
  if (!site) {
    out.analytic_note = "no measured site";
    return;
  }
  std::vector<StepSample> single;
  int nodes = 1;
  for (const StepSample& s : train)
    if (s.num_replicas == 1) single.push_back(s);
  for (const StepSample& s : test) nodes = std::max(nodes, s.num_nodes);
  if (single.empty()) {
    out.analytic_note = "no single-GPU training rows";
    return;
  }
  const AnalyticStepPredictor predictor(*site, nodes, *bytes, single);
  std::size_t unplaced = 0;
  for (const StepSample& s : test) {
    const auto b = predictor.predict(s);
    if (!b) {
      ++unplaced;
      continue;
    }
    out.analytic_errors.push_back(std::fabs(b->step_s - s.step_time_s) / s.step_time_s);
  }
  if (unplaced) out.analytic_note = fmt::format("{} rows do not fit the site", unplaced);
  out.analytic_median_rel_err = percentile(out.analytic_errors, 50);
  out.analytic_p90_rel_err = percentile(out.analytic_errors, 90);
}

}  // namespace

std::vector<FitCheckRow> fit_check(const std::map<std::string, PolluxApplication>& apps) {
  std::vector<FitCheckRow> out;
  for (const auto& [name, app] : apps) {
    for (const auto& [type, prof] : app.profiles()) {
      const std::vector<StepSample> rows = all_rows(prof);
      std::vector<StepSample> train, test;
      for (std::size_t i = 0; i < rows.size(); ++i) (i % 2 == 0 ? train : test).push_back(rows[i]);
      if (train.empty() || test.empty()) continue;
      FitCheckRow r;
      r.app = name;
      r.gpu_type = type;
      r.train_rows = train.size();
      r.test_rows = test.size();
      r.data_parallel = std::none_of(rows.begin(), rows.end(),
                                     [](const StepSample& s) { return s.sync_time_s >= s.step_time_s; });
      const PolluxPerfParams p = fit_pollux_params(train);
      for (const StepSample& s : test) {
        const double pred = p.predict(s.num_nodes, s.num_replicas, s.local_bsz).step_s;
        r.errors.push_back(std::fabs(pred - s.step_time_s) / s.step_time_s);
      }
      r.median_rel_err = percentile(r.errors, 50);
      r.p90_rel_err = percentile(r.errors, 90);
      if (r.data_parallel) analytic_errors(name, type, train, test, r);
      else r.analytic_note = "not data parallel";
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace hetsim
