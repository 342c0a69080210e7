// ElasticFlow throughput profiles (throughputs_<GPU>/<model>.csv) as a throughput model: cells,
// interpolation, the flat tail past the last measurement, unmeasured cells, admission reasons,
// bad files, the GPU-type constraint wrapper, and the real A100/T4 folders.
#include <string>

#include "hetsim/perf/elasticflow_table.hpp"
#include "hetsim/perf/model_factory.hpp"
#include "hetsim/perf/profile_tables.hpp"
#include "hetsim/perf/type_constraint.hpp"
#include "hetsim/run.hpp"
#include "hetsim/util/error.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using Catch::Contains;
using namespace hetsim;

namespace {

Cluster two_type_cluster() {
  return Cluster("c", {GpuType{"a100", 40.0, 1.0}, GpuType{"t4", 16.0, 1.0}}, {Rack{"r"}},
                 {Node{"a", 0, 8, 0, 0}, Node{"t", 1, 4, 0, 0}});
}

Cluster t4_only_cluster() { return Cluster("t", {GpuType{"t4", 16.0, 1.0}}, {Rack{"r"}}, {Node{"t", 0, 4, 0, 0}}); }

JobSpec iter_job(const std::string& model, int batch, int gpus) {
  JobSpec j;
  j.id = model + "-job";
  j.job_type = model;
  j.global_batch_size = batch;
  j.requested_gpus = j.min_gpus = j.max_gpus = gpus;
  j.unit = WorkUnit::Iterations;
  j.work = 100;
  return j;
}

}  // namespace

TEST_CASE("elasticflow-table: cells, interpolation and limits", "[perf][elasticflow]") {
  test::TempDir dir("ef-table");
  dir.write("throughputs_A100/bert.csv",
            "global_batch_size,1,2,4,8\n"
            "64,6,8,10,\n"
            "128,3,nan,9,12\n");
  dir.write("throughputs_T4/bert.csv", "global_batch_size,2,4\n64,0.5,0\n");
  const Cluster c = two_type_cluster();
  auto t = ElasticFlowThroughputTable::load(dir.str(), c);
  CHECK(t->name() == "elasticflow-table");
  const JobSpec b64 = iter_job("bert", 64, 1);
  CHECK(t->rate(b64, {0, 1, true}) == 6.0);
  CHECK(t->rate(b64, {0, 4, true}) == 10.0);
  CHECK(t->rate(b64, {0, 3, true}) == Approx(9.0));   // halfway between 8 (2 GPUs) and 10 (4 GPUs)
  CHECK(t->rate(b64, {0, 8, true}) == 10.0);          // 8 not measured: the 4-GPU rate, no more speed-up
  CHECK(t->rate(b64, {0, 64, false}) == 10.0);
  const JobSpec b128 = iter_job("bert", 128, 2);
  CHECK(t->rate(b128, {0, 2, true}) == Approx(5.0));  // nan at 2: a third of the way from 1 (3) to 4 (9)
  CHECK(t->rate(b64, {1, 1, true}) == 0.0);           // below T4's smallest measured count
  CHECK(t->rate(b64, {1, 2, true}) == 0.5);
  CHECK(t->rate(b64, {1, 4, true}) == 0.5);           // 0 = not measured; flat past 2
  CHECK(t->rate(iter_job("gpt2", 64, 1), {0, 1, true}) == 0.0);

  CHECK_FALSE(t->check_job(b64, c));
  // The message names what the table has instead: the batch sizes per type, or the smallest
  // measured GPU count at the job's batch size.
  CHECK_THAT(*t->check_job(iter_job("bert", 32, 1), c),
             Contains("global batch size 32") && Contains("a100 has it at batch sizes 64, 128 only; t4 has it at batch sizes 64 only"));
  const Cluster t4 = t4_only_cluster();
  CHECK_THAT(*ElasticFlowThroughputTable::load(dir.str(), t4)->check_job(b64, t4),
             Contains("on 1 GPU(s)") && Contains("(t4 measures it at batch size 64 from 2 GPU(s))"));
  CHECK_THAT(*t->check_job(iter_job("gpt2", 64, 1), c), Contains("(no type of the cluster has this model)"));
  JobSpec by_time = b64;
  by_time.unit = WorkUnit::ReferenceSeconds;
  CHECK_THAT(*t->check_job(by_time, c), Contains("itp-ef"));

  // Selected by the folder, also through the factory.
  CHECK(load_throughput_model(dir.str(), c)->name() == "elasticflow-table");
  CHECK(make_throughput_model("elasticflow-table", (dir.path / "throughputs_A100").string(), {}, c)->name() ==
        "elasticflow-table");
}

TEST_CASE("elasticflow-table: bad files name file, line and column", "[perf][elasticflow]") {
  const Cluster c = two_type_cluster();
  auto error_of = [&](const std::string& text) {
    test::TempDir dir("ef-bad");
    dir.write("throughputs_A100/m.csv", text);
    try {
      ElasticFlowThroughputTable::load(dir.str(), c);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("batch,1,2\n"), Contains("m.csv:1: field 'global_batch_size'"));
  CHECK_THAT(error_of("global_batch_size,1,x\n"), Contains("m.csv:1: field 'GPU count'"));
  CHECK_THAT(error_of("global_batch_size,1,2\n64,1\n"), Contains("m.csv:2") && Contains("expected 3"));
  CHECK_THAT(error_of("global_batch_size,1,2\n64,1,fast\n"), Contains("m.csv:2: field '2'"));
  CHECK_THAT(error_of("global_batch_size,1,2\n64,1,-3\n"), Contains("m.csv:2: field '2'"));
  CHECK_THAT(error_of("global_batch_size,1,2\n0,1,2\n"), Contains("m.csv:2: field 'global_batch_size'"));
  test::TempDir empty("ef-empty");
  CHECK_THROWS_WITH(ElasticFlowThroughputTable::load(empty.str(), c), Contains("throughputs_<GPU>"));
}

TEST_CASE("type constraints: disallowed types have rate 0 and unknown types reject", "[perf][constraint]") {
  const Cluster c = two_type_cluster();
  JobSpec j;
  j.id = "j";
  j.requested_gpus = j.min_gpus = j.max_gpus = 2;
  j.work = 10;
  j.allowed_gpu_types = {"T4"};
  TypeConstrainedModel m(std::make_unique<DurationModel>(c), c);
  CHECK(m.name() == "duration");
  CHECK(m.rate(j, {0, 2, true}) == 0.0);
  CHECK(m.rate(j, {1, 2, true}) == 1.0);
  const GpuId mixed[] = {7, 8};  // last a100 and first t4
  CHECK(m.rate_on(j, c, mixed) == 0.0);
  const GpuId t4s[] = {8, 9};
  CHECK(m.rate_on(j, c, t4s) == 1.0);
  CHECK_FALSE(m.check_job(j, c));
  j.allowed_gpu_types = {"v100m16", "a10"};
  CHECK_THAT(*m.check_job(j, c), Contains("v100m16|a10") && Contains("none of which"));
  j.allowed_gpu_types.clear();
  CHECK(m.rate(j, {0, 2, true}) == 1.0);
}

TEST_CASE("elasticflow-table: the real A100 and T4 profiles", "[perf][elasticflow][data]") {
  auto dir = test::shared_data("elasticflow-profiles");
  if (!dir) return;
  const Cluster c = two_type_cluster();
  auto t = ElasticFlowThroughputTable::load(*dir, c);
  // throughputs_A100/resnet50.csv, batch 128: 1 GPU 3.6553729658054332, 8 GPUs 16.53414011075494.
  CHECK(t->rate(iter_job("resnet50", 128, 1), {0, 1, true}) == Approx(3.6553729658054332));
  CHECK(t->rate(iter_job("resnet50", 128, 8), {0, 8, false}) == Approx(16.53414011075494));
  // throughputs_T4/deepspeech2.csv, batch 320 has nan at 64 GPUs: the 32-GPU rate holds.
  CHECK(t->rate(iter_job("deepspeech2", 320, 64), {1, 64, false}) == Approx(0.8778011335925542));
  CHECK(t->rate(iter_job("resnet50", 128, 1), {1, 1, true}) == 0.0);  // no resnet50 in the T4 folder
}

TEST_CASE("run: ElasticFlow's 195-job trace by iterations matches its durations", "[perf][elasticflow][data]") {
  auto trace = test::shared_data("elasticflow-itp/elasticflow-traces/195job.csv");
  auto profiles = test::shared_data("elasticflow-profiles");
  if (!trace || !profiles) return;
  // ElasticFlow's testbed: 16 servers of 8 A100s.
  test::TempDir dir("ef-run");
  const std::string cluster = dir.write(
      "a100.json", R"({"gpu_types": [{"name": "a100"}], "nodes": [{"gpu_type": "a100", "gpus": 8, "count": 16}]})");
  PolicyRegistry registry = make_default_registry();
  RunSpec by_iterations;
  by_iterations.cluster = cluster;
  by_iterations.trace = *trace;
  by_iterations.format = TraceFormat::ItpEf;
  by_iterations.throughputs = *profiles;
  RunSpec by_duration = by_iterations;
  by_duration.format = TraceFormat::Itp;
  by_duration.throughputs.clear();
  const RunOutput a = run_simulation(by_iterations, registry);
  const RunOutput b = run_simulation(by_duration, registry);
  CHECK(a.info.throughput_model == "elasticflow-table");
  CHECK(b.info.throughput_model == "duration");
  CHECK(a.summary.completed == 195);
  CHECK(b.summary.completed == 195);
  // num_iteration was generated as duration x the A100 rate at the job's GPU count, so both
  // readings of the trace give the same schedule up to rounding of the iteration counts.
  CHECK(a.summary.jct_mean_s == Approx(b.summary.jct_mean_s.value()).epsilon(1e-4));
  CHECK(a.summary.input_notes.size() == 1);  // the deadline note
}
