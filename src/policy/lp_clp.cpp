// LinearProgram's COIN-OR Clp back end: the LP half of solve() when the program was built with
// Backend::Clp. Clp itself lives in a module (libhetsim_clp.so, src/clp/clp_module.cpp) loaded with
// dlopen at the first Clp solve, so that runs which never ask for `solver=clp` do not load Clp,
// CoinUtils, LAPACK, BLAS and gfortran at start-up (issue 19; clp_module_api.hpp says why). The
// module keeps the ClpSimplex model for as long as the LinearProgram, with its last basis.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "clp_module_api.hpp"
#include "hetsim/policy/lp.hpp"

namespace hetsim {

namespace {

constexpr const char* kClpModuleName = "libhetsim_clp.so";

// The module's entry points, or why it could not be loaded.
struct ClpModule {
  HetsimClpNew make = nullptr;
  HetsimClpFree free = nullptr;
  HetsimClpSolve solve = nullptr;
  std::string error;  // non-empty when the module is unusable
};

// Where the module may be: next to the program or shared object this code is linked into (the
// CLI in the build tree), in lib/hetsim beside its bin/ (the install tree), then the build tree's
// own copy (HETSIM_CLP_MODULE_BUILD_PATH: tests, benchmarks and the Python module run from there).
std::vector<std::filesystem::path> module_candidates() {
  std::vector<std::filesystem::path> out;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&module_candidates), &info) != 0 && info.dli_fname) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::canonical(info.dli_fname, ec);
    if (!ec) {
      out.push_back(self.parent_path() / kClpModuleName);
      out.push_back((self.parent_path() / ".." / "lib" / "hetsim" / kClpModuleName).lexically_normal());
    }
  }
#ifdef HETSIM_CLP_MODULE_BUILD_PATH
  const std::filesystem::path build(HETSIM_CLP_MODULE_BUILD_PATH);
  if (std::find(out.begin(), out.end(), build) == out.end()) out.push_back(build);
#endif
  return out;
}

ClpModule load_clp_module() {
  ClpModule m;
  std::string tried;
  for (const std::filesystem::path& path : module_candidates()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path.string();
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      m.error = fmt::format("cannot load {}: {}", path.string(), why ? why : "unknown error");
      return m;
    }
    auto version = reinterpret_cast<HetsimClpApiVersion>(dlsym(handle, "hetsim_clp_api_version"));
    m.make = reinterpret_cast<HetsimClpNew>(dlsym(handle, "hetsim_clp_new"));
    m.free = reinterpret_cast<HetsimClpFree>(dlsym(handle, "hetsim_clp_free"));
    m.solve = reinterpret_cast<HetsimClpSolve>(dlsym(handle, "hetsim_clp_solve"));
    if (!version || !m.make || !m.free || !m.solve || version() != kHetsimClpApiVersion)
      m.error = fmt::format("{} is not this build's Clp module (rebuild hetsim)", path.string());
    return m;  // the module stays loaded for the life of the process
  }
  m.error = fmt::format("the Clp module {} was not found (looked in {})", kClpModuleName, tried);
  return m;
}

// Loaded once per process, at the first Clp solve: a loaded library is process-wide state by
// nature, and C++ guarantees this initialisation is thread-safe (compare --jobs runs in threads).
const ClpModule& clp_module() {
  static const ClpModule module = load_clp_module();
  return module;
}

}  // namespace

std::string clp_module_error() { return clp_module().error; }

struct LinearProgram::ClpSolver {
  void* model = nullptr;  // the module's ClpSimplex and its bookkeeping
  ~ClpSolver() {
    if (model) clp_module().free(model);
  }
};

void LinearProgram::ClpDeleter::operator()(ClpSolver* s) const { delete s; }

LpResult LinearProgram::solve_clp() {
  const auto t0 = std::chrono::steady_clock::now();
  LpResult result;
  const ClpModule& module = clp_module();
  if (!module.error.empty()) {
    result.status = LpResult::Status::Failed;
    result.message = "solver=clp is unavailable: " + module.error;
    return result;
  }
  if (!clp_) clp_.reset(new ClpSolver);
  if (!clp_->model && !(clp_->model = module.make())) {
    result.status = LpResult::Status::Failed;
    result.message = "Clp could not create a model (out of memory)";
    return result;
  }
  const int n = variables();
  HetsimClpProblem p;
  p.cols = n;
  p.rows = constraints();
  p.minimize = sense_ == Sense::Minimize ? 1 : 0;
  p.lower = lower_.data();
  p.upper = upper_.data();
  p.cost = cost_.data();
  p.row_lower = row_lower_.data();
  p.row_upper = row_upper_.data();
  p.nz_row = nz_row_.data();
  p.nz_col = nz_col_.data();
  p.nz_val = nz_val_.data();
  p.nonzeros = nz_val_.size();
  p.changed_cols = changed_cols_.data();
  p.changed_col_count = changed_cols_.size();
  p.changed_rows = changed_rows_.data();
  p.changed_row_count = changed_rows_.size();
  p.objective_changed = objective_changed_ ? 1 : 0;
  std::vector<double> x(static_cast<std::size_t>(n));
  HetsimClpOutcome out;
  out.x = x.data();
  module.solve(clp_->model, &p, &out);
  changed_cols_.clear();
  changed_rows_.clear();
  objective_changed_ = false;

  if (out.status == 0) {
    result.status = LpResult::Status::Optimal;
    result.x = std::move(x);
    result.objective = out.objective;
  } else if (out.status == 1) {
    result.status = LpResult::Status::Infeasible;
    result.message = "no primal feasible solution (Clp)";
  } else if (out.status == 2) {
    result.status = LpResult::Status::Unbounded;
    result.message = "no dual feasible solution (unbounded or infeasible; Clp)";
  } else if (out.status == -1) {
    result.status = LpResult::Status::Failed;
    result.message = out.message;
  } else {
    result.status = LpResult::Status::Failed;
    result.message = "Clp stopped with status " + std::to_string(out.status) + " (secondary " +
                     std::to_string(out.secondary_status) + ")";
  }
  result.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace hetsim
