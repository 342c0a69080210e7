// The extension module hetsim._hetsim (python/hetsim/ wraps it; docs/python.md).
#include <pybind11/pybind11.h>

#include "hetsim/python/bridge.hpp"

PYBIND11_MODULE(_hetsim, m) { hetsim::python::define_module(m); }
