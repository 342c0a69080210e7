#pragma once
/// hetsim's identity: the version of project() in CMakeLists.txt and, for a build from a git
/// checkout, `git describe --always --dirty` at build time (cmake/version_file.cmake).
#include <string>
#include <string_view>

namespace hetsim {

/// The release version, e.g. "0.2.0".
std::string_view version();
/// `git describe --always --dirty` of the checkout the binary was built from; empty without git.
std::string_view git_describe();
/// What `hetsim --version` prints after "hetsim " and summary.json records as hetsim_version:
/// "0.2.0 (git 1a2b3c4-dirty)", or "0.2.0" without git. One binary always gives the same text,
/// so equal runs still write byte-identical files.
std::string version_text();

}  // namespace hetsim
