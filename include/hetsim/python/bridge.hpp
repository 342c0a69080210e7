#pragma once
/// The bridge between the C++ engine and policies written in Python (docs/python.md): Python policy
/// classes become registry entries whose policies call into Python once per scheduling pass with a
/// batched numpy view, and the `hetsim._hetsim` module that the `hetsim` package wraps.
/// Built only when CMake finds Python and pybind11 (the README's setup installs both).
#include <pybind11/pybind11.h>
#include <string>

#include "hetsim/policy/registry.hpp"

namespace hetsim::python {

/// Adds one Python policy to `registry` from its entry (a dict made by hetsim._policy.describe_policy:
/// cls, name, class_name, kind "event" or "allocation", summary, source, params, origin, round_s).
/// Its policies hold the GIL only while they call Python. Needs the GIL. Throws InputError naming
/// the class's file when the name is already registered. Returns the registered name.
std::string add_python_policy(PolicyRegistry& registry, const pybind11::dict& entry);

/// Defines the contents of `hetsim._hetsim` in `m`: InputError, the view types, and the entry points
/// _run, _compare, _sweep and _spec_policy_files behind hetsim.run/compare/sweep.
void define_module(pybind11::module_& m);

}  // namespace hetsim::python
