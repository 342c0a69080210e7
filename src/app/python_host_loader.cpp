// PolicyHost when hetsim was built with Python: the interpreter lives in a shared module
// (libhetsim_python_host.so, python_host_with_python.cpp) loaded with dlopen only when Python
// policies are named. Runs of built-in policies never load libpython (issue 19: its loading and
// relocation were a few milliseconds of every run's start-up).
#include <dlfcn.h>

#include <filesystem>
#include <fmt/format.h>
#include <string>

#include "hetsim/util/error.hpp"
#include "hetsim/version.hpp"
#include "python_host.hpp"
#include "python_host_module.hpp"

namespace hetsim::app {
namespace {

constexpr const char* kModuleName = "libhetsim_python_host.so";

// The module next to this executable (the build tree), else in the install tree's lib/hetsim
// (HETSIM_PYTHON_HOST_DIRS, relative to the executable's folder, set by CMake).
std::filesystem::path module_path() {
  std::error_code ec;
  const std::filesystem::path exe_dir = std::filesystem::canonical("/proc/self/exe", ec).parent_path();
  const std::string dirs = HETSIM_PYTHON_HOST_DIRS;
  std::filesystem::path first;
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::filesystem::path candidate = (exe_dir / dirs.substr(start, end - start) / kModuleName).lexically_normal();
    if (first.empty()) first = candidate;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    start = end + 1;
  }
  return first;
}

template <class Fn>
Fn entry(void* module, const char* name, const std::filesystem::path& path) {
  void* symbol = dlsym(module, name);
  if (!symbol)
    throw InputError(path.string(), 0, "--policy-file", fmt::format("not a hetsim Python host module (no {})", name));
  return reinterpret_cast<Fn>(symbol);
}

}  // namespace

struct PolicyHost::Impl {
  PolicyRegistry registry;  // the built-in policies only (no Python files)
  PythonHost* python = nullptr;
  HetsimPythonHostRegistry python_registry = nullptr;
  HetsimPythonHostNames python_names = nullptr;
  HetsimPythonHostClose close = nullptr;
  std::vector<std::string> no_names;

  ~Impl() {
    if (python) close(python);  // the module stays loaded: its code may still be on the stack of exit handlers
  }
};

PolicyHost::PolicyHost(const PolicyRegistry& base, const std::vector<std::string>& files)
    : impl_(std::make_unique<Impl>()) {
  if (files.empty()) {
    impl_->registry = base;
    return;
  }
  const std::filesystem::path path = module_path();
  // RTLD_GLOBAL: Python's extension modules (numpy's) take libpython's symbols from the global scope.
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!module) {
    const char* why = dlerror();
    throw InputError(path.string(), 0, "--policy-file",
                     fmt::format("cannot load the Python host module that runs Python policies: {}",
                                 why ? why : "unknown error"));
  }
  char version[256];
  entry<HetsimPythonHostVersion>(module, "hetsim_python_host_version", path)(version, sizeof version);
  if (version_text() != version)
    throw InputError(path.string(), 0, "--policy-file",
                     fmt::format("the Python host module is from another build ({}; this hetsim is {}): rebuild or "
                                 "reinstall both",
                                 version, version_text()));
  auto open = entry<HetsimPythonHostOpen>(module, "hetsim_python_host_open", path);
  impl_->python_registry = entry<HetsimPythonHostRegistry>(module, "hetsim_python_host_registry", path);
  impl_->python_names = entry<HetsimPythonHostNames>(module, "hetsim_python_host_names", path);
  impl_->close = entry<HetsimPythonHostClose>(module, "hetsim_python_host_close", path);
  impl_->python = open(&base, &files);
}

PolicyHost::~PolicyHost() = default;

const PolicyRegistry& PolicyHost::registry() const {
  return impl_->python ? *impl_->python_registry(impl_->python) : impl_->registry;
}

const std::vector<std::string>& PolicyHost::names() const {
  return impl_->python ? *impl_->python_names(impl_->python) : impl_->no_names;
}

}  // namespace hetsim::app
