// The collaborative-filtering planning model and the profiling cost in the mechanism.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "hetsim/perf/cf_model.hpp"
#include "hetsim/util/error.hpp"
#include "sim_fixtures.hpp"
#include "test_support.hpp"

using namespace hetsim;

namespace {

// Two GPU types, one model at one batch size, 1-2 GPUs; "b/2" on t4 is missing from the profile.
std::string write_profile() {
  const auto path = std::filesystem::temp_directory_path() / "hetsim_test_cf_profile.json";
  std::ofstream(path) << R"({"epoch_time_s": {
    "v100": {"m": {"64": {"1": 10, "2": 6}, "512": {"1": 20, "2": 11}}},
    "t4":   {"m": {"64": {"1": 30, "2": 18}, "512": {"1": 60}}}}})";
  return path.string();
}

Cluster two_types() {
  return Cluster("t", {GpuType{"v100", 16, 1}, GpuType{"t4", 16, 1}}, {Rack{"r"}},
                 {Node{"a", 0, 2, 0, 0}, Node{"b", 1, 2, 0, 0}});
}

JobSpec heet_job(const std::string& model, int batch) {
  JobSpec j;
  j.id = std::string(1, 'x');
  j.job_type = model;
  j.global_batch_size = batch;
  j.requested_gpus = j.min_gpus = j.max_gpus = 1;
  j.unit = WorkUnit::Epochs;
  j.work = 1;
  return j;
}

}  // namespace

TEST_CASE("The CF model predicts missing profile cells and says which") {
  const Cluster c = two_types();
  CfModelOptions o;
  o.profiled_fraction = 1.0;  // every measured cell known: only the missing one is predicted
  CfThroughputModel m(load_heet_tensor(write_profile()), c, o);
  REQUIRE(m.missing_predicted() == std::vector<std::string>{"m@512 / t4 / 2"});
  CHECK(m.predicted_cells() == std::vector<std::string>{"m@512 / t4 / 2"});
  // Known cells come back as measured.
  CHECK(m.rate(heet_job("m", 64), AllocationShape{1, 2, true}) == Approx(1.0 / 18));
  // The predicted cell is a positive rate between the t4 one-GPU rate and twice it (the other rows
  // speed up 1.67-1.82x from 1 to 2 GPUs).
  const double p = m.rate(heet_job("m", 512), AllocationShape{1, 2, true});
  CHECK(p > 1.0 / 60);
  CHECK(p < 2.0 / 60);
  CHECK(m.profiling_runs(heet_job("m", 64)) == 4);
}

TEST_CASE("A job type absent from every profile is a clear error") {
  const Cluster c = two_types();
  CfThroughputModel m(load_heet_tensor(write_profile()), c, CfModelOptions{});
  const auto why = m.check_job(heet_job("resnet", 64), c);
  REQUIRE(why);
  CHECK(why->find("absent from every profile") != std::string::npos);
  CHECK_FALSE(m.check_job(heet_job("m", 512), c));
  CfModelOptions bad;
  bad.profiled_fraction = 1.5;
  const ProfileTensor t = load_heet_tensor(write_profile());
  CHECK_THROWS_AS(CfThroughputModel(t, c, bad), hetsim::InputError);
}

TEST_CASE("Profiling time is paid once, at a job's first start") {
  const Cluster c = test::homogeneous_cluster(1, 1);
  MechanismConfig cfg;
  cfg.profiling_s = 60;
  // a starts profiling at 0; b (shorter) arrives at 10 s and preempts it under srtf, profiles
  // 10-70 and trains 70-90; a resumes at 90 without profiling again (its interrupted profiling is
  // lost) and trains 90-190.
  const auto out = test::run_jobs(c, {test::duration_job("a", 0, 1, 100), test::duration_job("b", 10, 1, 20)}, "srtf", cfg);
  CHECK(test::record(out, "b").jct_s() == Approx(80));
  CHECK(test::record(out, "a").jct_s() == Approx(190));
}
