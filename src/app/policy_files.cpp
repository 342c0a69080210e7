// The --policy-file option and a spec's policy_files, shared by run, compare, sweep and check.
#include <nlohmann/json.hpp>

#include "hetsim/experiment/spec.hpp"
#include "hetsim/util/error.hpp"
#include "hetsim/util/json_file.hpp"
#include "python_host.hpp"

namespace hetsim::app {

void add_policy_file_option(CLI::App* cmd, std::vector<std::string>& files) {
  cmd->add_option("--policy-file", files,
                  "Python policy file FILE[:ClassName] (repeatable): its hetsim.Policy / hetsim.AllocationPolicy "
                  "classes become policies named by their `name` (docs/python.md); `run` uses the first unless "
                  "--policy names another");
}

std::vector<std::string> with_spec_policy_files(const std::string& spec_path, std::vector<std::string> files) {
  nlohmann::ordered_json doc;
  try {
    doc = read_json_file(spec_path);
  } catch (const InputError&) {
    return files;  // load_experiment_spec reports it with the file and line
  }
  for (std::string& f : spec_policy_files(doc, spec_path)) files.push_back(std::move(f));
  return files;
}

}  // namespace hetsim::app
