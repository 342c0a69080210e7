// Output files: a write that fails (full disk, simulated with /dev/full, whose writes fail with
// ENOSPC) is an input error naming the file (exit 2) in every writer, never a silently truncated
// file with exit 0; a sweep point whose outputs cannot be written fails instead of being DONE.
// And CSV cells that could hold a comma or quote are quoted.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <chrono>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "cli_support.hpp"
#include "hetsim/metrics/summary.hpp"
#include "hetsim/util/csv.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/output_file.hpp"
#include "temp_dir.hpp"

using Catch::Contains;
using hetsim::test::run_cli;
namespace fs = std::filesystem;

namespace {

constexpr const char* kFull = "/dev/full";
constexpr const char* kEnospc = "cannot write file: No space left on device";

bool have_dev_full() {
  std::error_code ec;
  if (fs::is_character_file(kFull, ec)) return true;
  WARN("SKIPPED: no /dev/full on this system");
  return false;
}

// Makes `link` (creating its folder) a symbolic link to /dev/full: writers open it as usual and
// every write fails, as on a full disk.
void link_to_full(const fs::path& link) {
  fs::create_directories(link.parent_path());
  fs::remove(link);
  fs::create_symlink(kFull, link);
}

// The InputError `f` throws (REQUIREs that it throws one).
template <typename F>
hetsim::InputError input_error_of(F f) {
  try {
    f();
  } catch (const hetsim::InputError& e) {
    return e;
  }
  FAIL("no InputError thrown");
  throw;  // unreachable
}

}  // namespace

TEST_CASE("write_file_checked: bytes on success, open, write and flush failures name the file and errno",
          "[outputs]") {
  hetsim::test::TempDir dir("outputs-helper");
  const fs::path ok = dir.path / "ok.csv";
  hetsim::write_file_checked(ok, "--out", [](std::ostream& out) { out << "a,b\n1,2\n"; });
  CHECK(hetsim::test::slurp(ok) == "a,b\n1,2\n");
  hetsim::write_text_checked(ok, "--out", "x");  // truncates
  CHECK(hetsim::test::slurp(ok) == "x");

  // A folder that does not exist: the open fails.
  const fs::path missing = dir.path / "no-such-folder" / "f.csv";
  auto e = input_error_of([&] { hetsim::write_text_checked(missing, "--out", "x"); });
  CHECK(e.file() == missing.string());
  CHECK(e.field() == "--out");
  CHECK(e.message() == "cannot write file: No such file or directory");

  if (!have_dev_full()) return;
  // Small text stays in the stream buffer: the failure only shows at the flush.
  e = input_error_of([] { hetsim::write_text_checked(kFull, "--timeline", "{}"); });
  CHECK(e.file() == kFull);
  CHECK(e.field() == "--timeline");
  CHECK(e.message() == kEnospc);
  CHECK(std::string(e.what()) == "/dev/full: field '--timeline': cannot write file: No space left on device");
  // A large output fails while it is written.
  e = input_error_of([] {
    hetsim::write_file_checked(kFull, "--dot", [](std::ostream& out) {
      for (int i = 0; i < 100000; ++i) out << "0123456789\n";
    });
  });
  CHECK(e.message() == kEnospc);
}

TEST_CASE("write_file_checked: the final name holds the whole new file or the old one, never a part",
          "[outputs]") {
  hetsim::test::TempDir dir("outputs-atomic");
  const fs::path f = dir.path / "jobs.csv";
  hetsim::write_text_checked(f, "--out", "old\n");
  // The writer fails half way (as a full disk would): the old bytes stay, no temporary is left.
  CHECK_THROWS_AS(hetsim::write_file_checked(f, "--out",
                                             [](std::ostream& out) {
                                               out << "half";
                                               throw hetsim::InputError("x", 0, "", "disk full");
                                             }),
                  hetsim::InputError);
  CHECK(hetsim::test::slurp(f) == "old\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++entries;
  CHECK(entries == 1);
  // A symbolic link stays one: the file it points to is replaced.
  const fs::path target = dir.path / "real.csv", link = dir.path / "link.csv";
  hetsim::write_text_checked(target, "--out", "a");
  fs::create_symlink(target, link);
  hetsim::write_text_checked(link, "--out", "b");
  CHECK(fs::is_symlink(link));
  CHECK(hetsim::test::slurp(target) == "b");
}

TEST_CASE("cli: output paths are checked before the simulation runs", "[outputs][cli]") {
  hetsim::test::TempDir dir("outputs-early");
  const std::string file = dir.write("plain", "x");
  auto r = run_cli("run --out " + file + "/sub");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains(file + "/sub: field '--out': cannot create directory"));
  CHECK_THAT(r.output, !Contains("jobs read"));  // nothing was simulated
  r = run_cli("run --timeline " + dir.str() + "/no-such-folder/t.json");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("no-such-folder/t.json: field '--timeline': its folder " + dir.str() +
                                "/no-such-folder does not exist"));
  CHECK_THAT(r.output, !Contains("jobs read"));
  r = run_cli("compare -q --policies fifo,srtf --out " + file);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains(file + ": field '--out': "));
}

TEST_CASE("inputs: a device is refused, a pipe is read", "[outputs][cli]") {
  auto r = run_cli("run -q --trace /dev/zero");  // read without end before
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("/dev/zero: is a device, not a file (pass a file, or a pipe)"));
  r = run_cli("run -q --cluster /dev/zero");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("/dev/zero: is a device"));
  // A FIFO, fed by a thread once hetsim has opened it (a non-blocking open succeeds only then).
  hetsim::test::TempDir dir("inputs-pipe");
  const fs::path fifo = dir.path / "trace.csv";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] {
    for (int i = 0; i < 1000; ++i) {  // up to 10 s
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) {
        const std::string text = "job_id,submit_s,num_gpus,duration_s\na,0,1,10\n";
        CHECK(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
        ::close(fd);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  r = run_cli("run --trace " + fifo.string());
  writer.join();
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("completed                            1"));
}

TEST_CASE("cli: run --out, run --timeline, compare --out and topology --dot on a full disk exit 2 naming the file",
          "[outputs][cli]") {
  if (!have_dev_full()) return;
  hetsim::test::TempDir dir("outputs-cli");

  auto r = run_cli("run -q --timeline /dev/full");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("/dev/full: field '--timeline': cannot write file: No space left on device"));

  // The utilisation CSV next to a writable timeline.
  const fs::path timeline = dir.path / "t.json";
  link_to_full(dir.path / "t.utilization.csv");
  r = run_cli("run -q --timeline " + timeline.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains((dir.path / "t.utilization.csv").string() + ": field '--timeline': " + kEnospc));
  // The timeline's files go together: the two that could be written are not left without the third.
  CHECK(!fs::exists(timeline));
  CHECK(!fs::exists(dir.path / "t.allocations.csv"));
  CHECK(std::none_of(fs::directory_iterator(dir.path), fs::directory_iterator(),
                     [](const fs::directory_entry& e) { return e.path().filename().string().find(".tmp-") != std::string::npos; }));

  // jobs.csv fits, summary.json does not.
  const fs::path out = dir.path / "run";
  link_to_full(out / "summary.json");
  r = run_cli("run -q --out " + out.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains((out / "summary.json").string() + ": field '--out': " + kEnospc));

  const fs::path cmp = dir.path / "cmp";
  link_to_full(cmp / "compare.json");
  r = run_cli("compare -q --policies fifo,srtf --out " + cmp.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains((cmp / "compare.json").string() + ": field '--out': " + kEnospc));
  // compare.csv, written before it, is complete: header and one row per policy.
  const std::string csv = hetsim::test::slurp(cmp / "compare.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);

  r = run_cli("topology --cluster default --dot /dev/full");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("/dev/full: field '--dot': " + std::string(kEnospc)));
}

TEST_CASE("cli: a sweep point whose outputs cannot be written fails (no DONE), unwritable results exit 2, merge too",
          "[outputs][cli][sweep]") {
  if (!have_dev_full()) return;
  hetsim::test::TempDir dir("outputs-sweep");
  const std::string spec = dir.write(
      "tiny.json", R"({"name": "tiny", "cluster": "default", "policies": ["fifo"], "sweep": {"seed": [0, 1]}})");
  const fs::path out = dir.path / "out";
  const fs::path bad_point = out / "points" / "fifo__seed=1";
  link_to_full(bad_point / "summary.json");

  auto r = run_cli("sweep -q " + spec + " --out " + out.string());
  CHECK(r.exit_code == 4);  // kPointsFailed: the other point completed
  CHECK_THAT(r.output, Contains("1 points failed"));
  CHECK(fs::exists(out / "points" / "fifo__seed=0" / "DONE"));
  CHECK_FALSE(fs::exists(bad_point / "DONE"));
  CHECK_THAT(hetsim::test::slurp(bad_point / "FAILED"),
             Contains((bad_point / "summary.json").string() + ": field '--out': " + kEnospc));
  const std::string failures = hetsim::test::slurp(out / "failures.csv");
  CHECK_THAT(failures, Contains("fifo__seed=1,fifo,1,") && Contains(kEnospc));
  const std::string results = hetsim::test::slurp(out / "results.csv");
  CHECK_THAT(results, Contains("fifo__seed=0"));
  CHECK_THAT(results, !Contains("fifo__seed=1"));
  CHECK_THAT(r.output, !Contains("invalid JSON"));

  // The results table itself cannot be written: exit 2 naming it.
  link_to_full(out / "results.csv");
  r = run_cli("sweep -q " + spec + " --out " + out.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains((out / "results.csv").string() + ": field '--out': " + kEnospc));

  // merge writes the same tables (the point folders it copies hold no link to /dev/full).
  fs::remove(bad_point / "summary.json");
  const fs::path merged = dir.path / "merged";
  link_to_full(merged / "failures.csv");
  r = run_cli("merge " + spec + " --out " + merged.string() + " " + out.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains((merged / "failures.csv").string() + ": field '--out': " + kEnospc));
}

TEST_CASE("csv_cell quotes commas, quotes and line breaks, jobs.csv quotes gpu_types", "[outputs][csv]") {
  CHECK(hetsim::csv_cell("a100|v100") == "a100|v100");
  CHECK(hetsim::csv_cell("") == "");
  CHECK(hetsim::csv_cell("v,1") == "\"v,1\"");
  CHECK(hetsim::csv_cell("x\"y") == "\"x\"\"y\"");
  CHECK(hetsim::csv_cell("a\nb") == "\"a\nb\"");
  CHECK(hetsim::csv_cell("a\rb") == "\"a\rb\"");

  hetsim::JobRecord rec;
  rec.job_id = "j,1";
  rec.gpu_types = "v,1|x\"y";
  rec.status = hetsim::JobStatus::Rejected;
  rec.reason = "r";
  std::ostringstream s;
  hetsim::write_jobs_csv(s, {rec});
  const std::string text = s.str();
  const std::string row = text.substr(text.find('\n') + 1);
  CHECK(row.rfind("\"j,1\",", 0) == 0);
  CHECK_THAT(row, Contains(",\"v,1|x\"\"y\","));
}

TEST_CASE("summary.json of a trace whose file name is not UTF-8 is written, the bad byte replaced") {
  hetsim::RunSummary summary;
  hetsim::RunInfo info{"default", std::string("traces/x\xff.csv"), "native", "fifo", "consolidate", "duration", 0, "event"};
  std::ostringstream out;
  REQUIRE_NOTHROW(hetsim::write_summary_json(out, summary, info));
  // The trace is named by its file name (no machine paths in outputs), the bad byte as U+FFFD.
  CHECK_THAT(out.str(), Catch::Contains("\"x\xef\xbf\xbd.csv\""));
  CHECK_THAT(out.str(), !Catch::Contains("traces/"));
}

TEST_CASE("cli: --timeline on a file --out writes is refused before the run, however the path is spelt",
          "[outputs][cli]") {
  hetsim::test::TempDir dir("outputs-clash");
  const std::string out = dir.str() + "/out";
  const auto refused = [&](const std::string& timeline, const std::string& cwd, const std::string& out_arg,
                           const std::string& out_file) {
    INFO("--out " << out_arg << " --timeline " << timeline);
    const auto r = run_cli("run --out " + out_arg + " --timeline " + timeline, cwd);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("hetsim: error: " + timeline + ": field '--timeline': --timeline would write the same "
                                  "file as --out (" + out_file + "); give --timeline another path"));
    CHECK_THAT(r.output, !Contains("jobs read"));  // nothing was simulated
    CHECK(!fs::exists(out));                        // nor any folder made
  };
  refused(out + "/summary.json", "", out, out + "/summary.json");
  refused(out + "/./jobs.csv", "", out, out + "/jobs.csv");
  refused(out + "/../out/summary.json", "", out, out + "/summary.json");
  refused(out + "/summary.json", dir.str(), "out", "out/summary.json");  // relative --out, absolute --timeline
  refused("./out/jobs.csv", dir.str(), out, out + "/jobs.csv");          // and the other way round
  // Beside the --out files, in the same folder, is fine.
  const auto r = run_cli("run -q --out " + out + " --timeline " + out + "/timeline.json");
  CHECK(r.exit_code == 0);
  for (const char* f : {"jobs.csv", "summary.json", "timeline.json", "timeline.allocations.csv", "timeline.utilization.csv"})
    CHECK(fs::is_regular_file(fs::path(out) / f));
}

TEST_CASE("cli: a --timeline that cannot be written is named as given, not by its hidden temporary", "[outputs][cli]") {
  // A file name of 245 bytes fits (the limit is 255), its temporary ".NAME.tmp-..." does not: the
  // check before the run fails on the temporary, and must still name the user's file.
  hetsim::test::TempDir dir("outputs-name");
  const std::string timeline = dir.str() + "/" + std::string(240, 't') + ".json";
  const auto r = run_cli("run -q --timeline " + timeline);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("hetsim: error: " + timeline + ": field '--timeline': cannot write file: File name too long"));
  CHECK_THAT(r.output, !Contains(".tmp-"));
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("cli: an output on a file the run reads (trace, cluster, throughputs) is refused, the input untouched",
          "[outputs][cli]") {
  hetsim::test::TempDir dir("outputs-on-inputs");
  const std::string src = std::string(HETSIM_SOURCE_DIR) + "/traces/";
  const std::string trace = dir.write("in/jobs.csv", hetsim::test::slurp(src + "native.csv"));
  const std::string cluster = dir.write("in/cluster.json", hetsim::test::slurp(src + "cluster-2rack.json"));
  const std::string table = dir.write("in/table.json", hetsim::test::slurp(src + "gavel-throughputs.json"));
  const auto refused = [&](const std::string& args, const std::string& option, const std::string& file,
                           const std::string& input_option, const std::string& input) {
    INFO(args);
    const std::string before = hetsim::test::slurp(input);
    const auto r = run_cli("run -q " + args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("hetsim: error: " + file + ": field '" + option + "': " + option +
                                  " would overwrite the file " + input_option + " reads (" + input + "); give " +
                                  option + " another path"));
    CHECK(hetsim::test::slurp(input) == before);
  };
  const std::string in = dir.str() + "/in";
  refused("--cluster " + cluster + " --trace " + trace + " --timeline " + trace, "--timeline", trace, "--trace", trace);
  refused("--cluster " + cluster + " --trace " + trace + " --timeline " + in + "/./cluster.json", "--timeline",
          in + "/./cluster.json", "--cluster", cluster);
  refused("--cluster " + cluster + " --trace " + trace + " --out " + in, "--out", in + "/jobs.csv", "--trace", trace);
  refused("--generate 5 --throughputs " + table + " --out " + dir.str() + "/o --timeline " + table, "--timeline", table,
          "--throughputs", table);
  // tiresias-gittins reads its samples_csv when the policy is made: a --timeline on it replaced it.
  const std::string samples = dir.write("in/samples.csv", "duration\n100\n200\n5000\n");
  refused("--cluster " + cluster + " --trace " + trace + " --policy tiresias-gittins --param samples_csv=" + samples +
              " --timeline " + samples,
          "--timeline", samples, "--param samples_csv", samples);
  const std::string past = dir.write("past/jobs.csv", "duration\n100\n200\n");
  refused("--cluster " + cluster + " --trace " + trace + " --policy tiresias-gittins --param samples_csv=" + past +
              " --out " + dir.str() + "/past",
          "--out", dir.str() + "/past/jobs.csv", "--param samples_csv", past);
}

TEST_CASE("cli: compare --out on a file the runs read is refused, the input untouched", "[outputs][cli]") {
  hetsim::test::TempDir dir("outputs-compare-on-inputs");
  const std::string src = std::string(HETSIM_SOURCE_DIR) + "/traces/";
  const std::string native = hetsim::test::slurp(src + "native.csv");
  const std::string cluster = dir.write("cluster.json", hetsim::test::slurp(src + "cluster-2rack.json"));
  const auto refused = [&](const std::string& args, const std::string& file, const std::string& input_option,
                           const std::string& input) {
    INFO(args);
    const std::string before = hetsim::test::slurp(input);
    const auto r = run_cli("compare -q --cluster " + cluster + " " + args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("hetsim: error: " + file + ": field '--out': --out would overwrite the file " +
                                  input_option + " reads (" + input + "); give --out another folder"));
    CHECK(hetsim::test::slurp(input) == before);  // before, the runs' outputs replaced it
  };
  const std::string o = dir.str() + "/o";
  const std::string t1 = dir.write("o/compare.csv", native);
  refused("--trace " + t1 + " --policies fifo,srtf --out " + o, o + "/compare.csv", "--trace", t1);
  const std::string t2 = dir.write("p/srtf/jobs.csv", native);
  refused("--trace " + t2 + " --policies fifo,srtf --out " + dir.str() + "/p", dir.str() + "/p/srtf/jobs.csv", "--trace", t2);
  const std::string trace = dir.write("in/native.csv", native);
  const std::string samples = dir.write("q/tiresias-gittins/utilization.csv", "duration\n100\n200\n");
  refused("--trace " + trace + " --policies fifo,tiresias-gittins --param samples_csv=" + samples + " --out " + dir.str() +
              "/q",
          dir.str() + "/q/tiresias-gittins/utilization.csv", "--param samples_csv", samples);
  // Inputs beside the outputs are fine.
  const auto r = run_cli("compare -q --cluster " + cluster + " --trace " + trace + " --policies fifo --out " + dir.str() + "/in");
  CHECK(r.exit_code == 0);
  CHECK(hetsim::test::slurp(trace) == native);
}

TEST_CASE("cli: sweep --out on a file its points read is refused before any run, the input untouched",
          "[outputs][cli]") {
  hetsim::test::TempDir dir("outputs-sweep-on-inputs");
  const std::string native = hetsim::test::slurp(std::string(HETSIM_SOURCE_DIR) + "/traces/native.csv");
  const std::string spec = dir.write("spec.json", R"({"name": "s", "trace": "o/results.csv", "policies": ["fifo"]})");
  const std::string trace = dir.write("o/results.csv", native);
  auto r = run_cli("sweep -q " + spec + " --out " + dir.str() + "/o");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("field '--out': --out " + dir.str() + "/o would overwrite the file point fifo reads "
                                "(--trace "));
  CHECK(hetsim::test::slurp(trace) == native);  // before, it became the results table
  // A trace under --out/points/ is refused too; one beside the tables is fine.
  const std::string spec2 = dir.write("spec2.json", R"({"name": "s", "trace": "p/points/x.csv", "policies": ["fifo"]})");
  dir.write("p/points/x.csv", native);
  CHECK(run_cli("sweep -q " + spec2 + " --out " + dir.str() + "/p").exit_code == 2);
  const std::string spec3 = dir.write("spec3.json", R"({"name": "s", "trace": "q/native.csv", "policies": ["fifo"]})");
  dir.write("q/native.csv", native);
  r = run_cli("sweep -q " + spec3 + " --out " + dir.str() + "/q");
  CHECK(r.exit_code == 0);
  CHECK(hetsim::test::slurp(dir.str() + "/q/native.csv") == native);
}

TEST_CASE("cli: --timeline on a FIFO nobody reads exits 2 at once, with a reader the FIFO gets the whole timeline",
          "[outputs][cli]") {
  hetsim::test::TempDir dir("outputs-fifo");
  const fs::path fifo = dir.path / "t.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Before, opening the FIFO for writing waited for a reader for ever.
  auto r = run_cli("run -q --timeline " + fifo.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains(fifo.string() + ": field '--timeline': cannot write file: no process reads this FIFO"));
  // A reader that is there first: a blocking open for reading returns once hetsim opens its end.
  std::string read_back;
  std::thread reader([&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    if (fd < 0) return;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) read_back.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the reader is blocked in open()
  r = run_cli("run -q --timeline " + fifo.string());
  reader.join();
  CHECK(r.exit_code == 0);
  CHECK(read_back.rfind("{\"displayTimeUnit\"", 0) == 0);
  CHECK(read_back.size() > 1000);
  CHECK(read_back.back() == '\n');
}
