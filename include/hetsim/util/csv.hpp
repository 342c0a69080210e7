#pragma once
/// Writing CSV cells the RFC 4180 way, shared by every CSV hetsim writes (jobs.csv,
/// utilization.csv, compare.csv, a sweep's results/points/failures tables).
#include <string>

namespace hetsim {

/// `text` as one CSV cell: unchanged when it holds no comma, double quote, CR or LF; otherwise
/// wrapped in double quotes with each inner quote doubled (`a,"b` -> `"a,""b"`).
std::string csv_cell(const std::string& text);

}  // namespace hetsim
