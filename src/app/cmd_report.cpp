// `hetsim report DIR [-o FILE]`: one self-contained HTML page (tables, inline SVG figures, the
// timeline of a run, settings and versions) for a run, compare or sweep folder. The page is made
// by scripts/report.py with matplotlib under Debian's python3: figures are matplotlib's job, and
// the same code draws scripts/plot.py's PDF/PNG figures.
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fmt/core.h>
#include <memory>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "commands.hpp"
#include "hetsim/util/error.hpp"

extern char** environ;

namespace hetsim::app {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string dir;
  std::string out;
};

// report.py: $HETSIM_REPORT_SCRIPT, else the source tree this binary was built from, else the
// install tree (<prefix>/share/hetsim beside <prefix>/bin).
fs::path find_report_script() {
  std::error_code ec;
  if (const char* env = std::getenv("HETSIM_REPORT_SCRIPT"); env && *env) {
    if (!fs::is_regular_file(env, ec)) throw InputError(env, 0, "HETSIM_REPORT_SCRIPT", "no such file");
    return env;
  }
  std::vector<fs::path> candidates{fs::path(HETSIM_SOURCE_DIR) / "scripts" / "report.py"};
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.parent_path().parent_path() / "share" / "hetsim" / "report.py");
  for (const fs::path& p : candidates)
    if (fs::is_regular_file(p, ec)) return p;
  throw InputError(candidates.front().string(), 0, "report",
                   "report.py not found (looked here and in <prefix>/share/hetsim; set HETSIM_REPORT_SCRIPT)");
}

// Debian's python3 has the matplotlib the script needs; another python3 first on PATH may not.
std::string python_interpreter() {
  if (const char* env = std::getenv("HETSIM_PYTHON"); env && *env) return env;
  std::error_code ec;
  return fs::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";
}

// Runs the script without a shell (no quoting of user paths) and returns its exit code.
int run_script(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
    throw InputError(args[0], 0, "report", "cannot start the Python interpreter (install python3-matplotlib: "
                                           "bash scripts/setup.sh; or set HETSIM_PYTHON)");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return kInternalError;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return kInternalError;
}

}  // namespace

Action add_report_command(CLI::App& app) {
  auto opts = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write one self-contained HTML page (summary tables, figures as inline SVG, the timeline of a run, "
                "settings, versions) for a run, compare or sweep output folder; opens offline");
  cmd->add_option("DIR", opts->dir, "Output folder of hetsim run --out, compare --out or sweep --out")->required();
  cmd->add_option("-o,--out", opts->out, "Where to write the page (default DIR/report.html)");
  return [opts]() -> int {
    std::vector<std::string> args{python_interpreter(), find_report_script().string(), "--error-prefix", "hetsim: error"};
    if (!opts->out.empty()) args.push_back("--out=" + opts->out);  // one argument, whatever the path starts with
    args.push_back("--");  // a folder named "-x" is a folder
    args.push_back(opts->dir);
    return run_script(args);
  };
}

}  // namespace hetsim::app
