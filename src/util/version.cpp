#include "hetsim/version.hpp"

namespace hetsim {

// version() and git_describe() live in the file CMake generates under the build folder.
std::string version_text() {
  std::string text(version());
  if (!git_describe().empty()) text += " (git " + std::string(git_describe()) + ")";
  return text;
}

}  // namespace hetsim
