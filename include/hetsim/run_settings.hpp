#pragma once
/// A run's settings as summary.json records them: enough to run it again from that file alone.
#include <nlohmann/json.hpp>

#include "hetsim/run.hpp"

namespace hetsim {

/// Every setting of `spec` as an experiment-spec key (run_keys.hpp) with its value, in the order
/// of run_keys(), then "param.<name>" and "model_param.<name>" in name order: a sweep spec's
/// settings object could hold it as it is. A key that only applies with another setting (the
/// profiling keys without profiling "cf", the goodput-model keys without a workload, the
/// generator keys without a generator, until_s without a horizon, the input files not given) is
/// left out, as the run left it. Paths are reduced to file names (an inventory prefix such as
/// "alibaba-openb:" kept), as summary.json's `trace`: outputs carry no folder of the machine.
nlohmann::ordered_json run_settings(const RunSpec& spec);

}  // namespace hetsim
