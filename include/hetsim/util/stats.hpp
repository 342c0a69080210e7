#pragma once
/// Small statistics shared by metrics/ (JCT percentiles) and perf/ (fit errors), so neither
/// module includes the other.
#include <vector>

namespace hetsim {

/// Linear-interpolation percentile (q in [0,100]) of unsorted values; 0 for an empty set.
double percentile(std::vector<double> values, double q);

}  // namespace hetsim
