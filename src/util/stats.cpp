#include "hetsim/util/stats.hpp"

#include <algorithm>
#include <cmath>

namespace hetsim {

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  double pos = q / 100.0 * static_cast<double>(values.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  double frac = pos - static_cast<double>(lo);
  // The two order statistics around pos, without sorting (a million JCTs, three percentiles).
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(lo), values.end());
  const double at_lo = values[lo];
  const double at_hi = lo + 1 < values.size()
                           ? *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(lo) + 1, values.end())
                           : at_lo;
  return at_lo + (at_hi - at_lo) * frac;
}

}  // namespace hetsim
