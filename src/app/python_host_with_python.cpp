// PolicyHost with Python: an embedded interpreter whose `hetsim` package uses the bindings compiled
// into this executable (the embedded module below), so the CLI's policies and views are its own
// C++ types, never those of a separately built extension.
#include <pybind11/embed.h>

#include <filesystem>
#include <optional>
#include <string>

#include "hetsim/python/bridge.hpp"
#include "hetsim/util/error.hpp"
#include "python_host.hpp"

namespace py = pybind11;

PYBIND11_EMBEDDED_MODULE(_hetsim_embedded, m) { hetsim::python::define_module(m); }

namespace hetsim::app {
namespace {

// The folder holding the `hetsim` package: relative to this executable, the build tree's python/
// first, then the install tree's (HETSIM_PYTHON_DIRS, set by CMake), else whatever PYTHONPATH gives.
std::optional<std::filesystem::path> package_folder() {
  std::error_code ec;
  const std::filesystem::path exe_dir = std::filesystem::canonical("/proc/self/exe", ec).parent_path();
  if (ec) return std::nullopt;
  std::string dirs = HETSIM_PYTHON_DIRS;
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::filesystem::path dir = exe_dir / dirs.substr(start, end - start);
    if (std::filesystem::is_regular_file(dir / "hetsim" / "__init__.py")) return dir.lexically_normal();
    start = end + 1;
  }
  return std::nullopt;
}

// A Python error while loading `file`, with its traceback, as an input error on that file.
[[noreturn]] void throw_load_error(const std::string& file, py::error_already_set& e) {
  std::size_t line = 0;
  for (py::handle tb = e.trace(); tb && !tb.is_none(); tb = tb.attr("tb_next")) line = tb.attr("tb_lineno").cast<std::size_t>();
  const std::string trace =
      py::str("").attr("join")(py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace())).cast<std::string>();
  throw InputError(file, line, "--policy-file", "cannot load Python policies:\n" + trace.substr(0, trace.find_last_not_of('\n') + 1));
}

}  // namespace

struct PolicyHost::Impl {
  // Destroyed in reverse order: the GIL comes back, the classes are released, the interpreter ends.
  std::optional<py::scoped_interpreter> interpreter;
  PolicyRegistry registry;
  std::vector<std::string> names;
  std::optional<py::gil_scoped_release> released;

  void load(const std::vector<std::string>& files);
};

void PolicyHost::Impl::load(const std::vector<std::string>& files) {
  // No Python signal handlers: Ctrl-C stops the command as it does without Python policies.
  interpreter.emplace(false);
  py::module_ sys = py::module_::import("sys");
  sys.attr("argv") = py::make_tuple("hetsim");
  if (auto dir = package_folder()) sys.attr("path").attr("insert")(0, dir->string());
  sys.attr("modules")["hetsim._hetsim"] = py::module_::import("_hetsim_embedded");
  py::module_ hetsim;
  try {
    hetsim = py::module_::import("hetsim");
  } catch (py::error_already_set& e) {
    throw InputError("", 0, "--policy-file",
                     std::string("the hetsim Python package was not found next to this executable or on PYTHONPATH: ") +
                         e.what());
  }
  for (const std::string& file : files) {
    const std::string path = file.substr(0, file.find(':', file.rfind(".py") == std::string::npos ? 0 : file.rfind(".py")));
    py::object entries;
    try {
      entries = hetsim.attr("describe_policy_file")(file);
    } catch (py::error_already_set& e) {
      throw_load_error(path, e);
    }
    for (py::handle entry : entries) names.push_back(python::add_python_policy(registry, entry.cast<py::dict>()));
  }
}

PolicyHost::PolicyHost(const PolicyRegistry& base, const std::vector<std::string>& files)
    : impl_(std::make_unique<Impl>()) {
  impl_->registry = base;
  if (files.empty()) return;
  impl_->load(files);
  impl_->released.emplace();  // runs take the GIL only inside Python calls (compare runs threads)
}

PolicyHost::~PolicyHost() = default;
const PolicyRegistry& PolicyHost::registry() const { return impl_->registry; }
const std::vector<std::string>& PolicyHost::names() const { return impl_->names; }

}  // namespace hetsim::app
