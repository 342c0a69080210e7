# The `hetsim` Python package (python/hetsim/*.py around the pybind11 extension hetsim._hetsim) and
# the bridge the CLI embeds for --policy-file. Included from the top-level CMakeLists.txt.
#
# Debian's interpreter, not whichever python3 is first on PATH: a pyenv or venv Python lacks
# Debian's numpy, pandas and scipy (python3-* packages), which the package and its tests use.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python the hetsim module is built for")
endif()
find_package(Python3 COMPONENTS Interpreter Development)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.6 CONFIG QUIET)

set(HETSIM_WITH_PYTHON OFF)
if(Python3_Development_FOUND AND pybind11_FOUND)
  set(HETSIM_WITH_PYTHON ON)
else()
  message(STATUS "hetsim: Python module and --policy-file NOT built (python3-dev and pybind11-dev missing: "
                 "bash scripts/setup.sh installs them)")
  return()
endif()

set(HETSIM_PYTHON_BUILD_DIR ${CMAKE_BINARY_DIR}/python)
set(HETSIM_PYTHON_INSTALL_DIR lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/dist-packages
    CACHE STRING "Where `cmake --install` puts the hetsim package, relative to the prefix (Debian's python3 searches it)")

# The bridge: views, policy adapters and the module's entry points, shared by the extension module
# and the CLI's embedded interpreter (position-independent for the module).
add_library(hetsim_python_bridge STATIC
  ${PROJECT_SOURCE_DIR}/src/python/views.cpp
  ${PROJECT_SOURCE_DIR}/src/python/adapters.cpp
  ${PROJECT_SOURCE_DIR}/src/python/api.cpp)
# Hidden visibility, as pybind11 gives its own types (and as the module is built).
set_target_properties(hetsim_python_bridge PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden)
target_link_libraries(hetsim_python_bridge PUBLIC hetsim::hetsim pybind11::pybind11 PRIVATE hetsim_options)

pybind11_add_module(_hetsim MODULE ${PROJECT_SOURCE_DIR}/src/python/module.cpp)
target_link_libraries(_hetsim PRIVATE hetsim_python_bridge hetsim_options)
set_target_properties(_hetsim PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${HETSIM_PYTHON_BUILD_DIR}/hetsim)

# The pure-Python part, copied next to the extension so PYTHONPATH=build/release/python imports it.
file(GLOB HETSIM_PY_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/hetsim/*.py)
set(HETSIM_PY_COPIES)
foreach(file ${HETSIM_PY_FILES})
  get_filename_component(name ${file} NAME)
  set(copy ${HETSIM_PYTHON_BUILD_DIR}/hetsim/${name})
  add_custom_command(OUTPUT ${copy} COMMAND ${CMAKE_COMMAND} -E copy_if_different ${file} ${copy} DEPENDS ${file})
  list(APPEND HETSIM_PY_COPIES ${copy})
endforeach()
add_custom_target(hetsim_python_package ALL DEPENDS ${HETSIM_PY_COPIES})
add_dependencies(_hetsim hetsim_python_package)

install(TARGETS _hetsim LIBRARY DESTINATION ${HETSIM_PYTHON_INSTALL_DIR}/hetsim)
install(FILES ${HETSIM_PY_FILES} DESTINATION ${HETSIM_PYTHON_INSTALL_DIR}/hetsim)
