#pragma once
// The C entry points of the Python host module (libhetsim_python_host.so, python_host_with_python.cpp),
// which the CLI loads with dlopen when a Python policy is named (python_host_loader.cpp). Both sides
// are built from one tree in one build; the loader checks the version text to refuse a module of
// another build (its C++ types could differ).
#include <cstddef>
#include <string>
#include <vector>

#include "hetsim/policy/registry.hpp"

#define HETSIM_PYTHON_HOST_API __attribute__((visibility("default")))

namespace hetsim::app {
struct PythonHost;  // the interpreter, the registry with the Python classes, their names
}

extern "C" {
/// Copies the module's version_text() into `out` (at most size - 1 characters and a terminating
/// zero); returns its full length.
using HetsimPythonHostVersion = std::size_t (*)(char* out, std::size_t size);
/// Starts the interpreter and loads `files` into a copy of `base`. Throws hetsim::InputError (a file
/// that cannot be loaded or defines no policy class).
using HetsimPythonHostOpen = hetsim::app::PythonHost* (*)(const hetsim::PolicyRegistry* base,
                                                           const std::vector<std::string>* files);
using HetsimPythonHostRegistry = const hetsim::PolicyRegistry* (*)(const hetsim::app::PythonHost* host);
using HetsimPythonHostNames = const std::vector<std::string>* (*)(const hetsim::app::PythonHost* host);
/// Releases the classes and ends the interpreter.
using HetsimPythonHostClose = void (*)(hetsim::app::PythonHost* host);
}
