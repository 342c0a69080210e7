// PolicyHost when CMake found no Python development files: the built-in policies only.
#include "hetsim/util/error.hpp"
#include "python_host.hpp"

namespace hetsim::app {

struct PolicyHost::Impl {
  PolicyRegistry registry;
  std::vector<std::string> names;
};

PolicyHost::PolicyHost(const PolicyRegistry& base, const std::vector<std::string>& files)
    : impl_(std::make_unique<Impl>(Impl{base, {}})) {
  if (!files.empty())
    throw InputError("", 0, "--policy-file",
                     "this hetsim was built without Python (python3-dev and pybind11-dev were missing): run "
                     "bash scripts/setup.sh and rebuild to use Python policies");
}

PolicyHost::~PolicyHost() = default;
const PolicyRegistry& PolicyHost::registry() const { return impl_->registry; }
const std::vector<std::string>& PolicyHost::names() const { return impl_->names; }

}  // namespace hetsim::app
