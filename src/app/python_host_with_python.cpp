// The Python host: an embedded interpreter whose `hetsim` package uses the bindings compiled into
// this module (the embedded module below), so the policies and views are hetsim's C++ types, never
// those of a separately built extension. Built as a shared module (libhetsim_python_host.so) that the
// CLI loads with dlopen only when a Python policy is named (python_host_loader.cpp): the CLI itself
// does not link libpython, whose loading was part of every run's start-up (issue 19).
#include <pybind11/embed.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>

#include "hetsim/python/bridge.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/version.hpp"
#include "python_host_module.hpp"

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

// What the CLI's PolicyHost holds while Python policies are loaded.
struct PythonHost {
  // Destroyed in reverse order: the GIL comes back, the classes are released, the interpreter ends.
  std::optional<py::scoped_interpreter> interpreter;
  PolicyRegistry registry;
  std::vector<std::string> names;
  std::optional<py::gil_scoped_release> released;

  void load(const std::vector<std::string>& files);
};

void PythonHost::load(const std::vector<std::string>& files) {
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

}  // namespace hetsim::app

extern "C" {

HETSIM_PYTHON_HOST_API std::size_t hetsim_python_host_version(char* out, std::size_t size) {
  const std::string text = hetsim::version_text();
  const std::size_t n = std::min(text.size(), size > 0 ? size - 1 : 0);
  if (size > 0) {
    text.copy(out, n);
    out[n] = '\0';
  }
  return text.size();
}

HETSIM_PYTHON_HOST_API hetsim::app::PythonHost* hetsim_python_host_open(const hetsim::PolicyRegistry* base,
                                                                        const std::vector<std::string>* files) {
  auto host = std::make_unique<hetsim::app::PythonHost>();
  host->registry = *base;
  host->load(*files);
  host->released.emplace();  // runs take the GIL only inside Python calls (compare runs threads)
  return host.release();
}

HETSIM_PYTHON_HOST_API const hetsim::PolicyRegistry* hetsim_python_host_registry(const hetsim::app::PythonHost* host) {
  return &host->registry;
}

HETSIM_PYTHON_HOST_API const std::vector<std::string>* hetsim_python_host_names(const hetsim::app::PythonHost* host) {
  return &host->names;
}

HETSIM_PYTHON_HOST_API void hetsim_python_host_close(hetsim::app::PythonHost* host) { delete host; }

}  // extern "C"
