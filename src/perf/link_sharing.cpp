// Max-min fair sharing of links by progressive filling (SimGrid's LMM bottleneck sharing; Bertsekas
// & Gallager, Data Networks, sec. 6.5.2). See include/hetsim/perf/link_sharing.hpp.
#include "hetsim/perf/link_sharing.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace hetsim {

double NetworkDemand::rate_at_speed(double speed) const {
  const double comm_s = latency_s + transfer_s / speed;
  const double step_s = compute_s + comm_s - overlap * std::min(compute_s, comm_s);
  return step_s > 0.0 ? static_cast<double>(gpu_count) / step_s : 0.0;
}

std::vector<LinkBytes> NetworkDemand::use_bytes_per_s() const {
  std::vector<LinkBytes> out;
  if (!(transfer_s > 0.0)) return out;
  for (const LinkBytes& l : link_bytes)
    if (l.bytes > 0.0) out.push_back(LinkBytes{l.link, l.bytes / transfer_s});
  return out;
}

namespace {

struct SharedLink {
  double capacity = 0.0;
  double used = 0.0;
  std::vector<std::pair<std::size_t, double>> users;  // (user, bytes/s at speed 1)
};

// A link whose room is within this fraction of its capacity is full (the filling step that fills
// it leaves rounding residue of that order).
constexpr double kFullTolerance = 1e-12;

}  // namespace

std::vector<double> max_min_speeds(std::span<const std::vector<LinkBytes>> users,
                                   const std::function<double(LinkId)>& capacity_bytes_per_s) {
  std::vector<double> speed(users.size(), 1.0);
  std::vector<char> frozen(users.size(), 1);
  std::map<LinkId, SharedLink> links;  // ordered: the filling visits links in id order
  for (std::size_t i = 0; i < users.size(); ++i)
    for (const LinkBytes& use : users[i]) {
      if (!(use.bytes > 0.0)) continue;
      SharedLink& l = links[use.link];
      l.capacity = capacity_bytes_per_s(use.link);
      l.users.emplace_back(i, use.bytes);
      frozen[i] = 0;
    }
  std::size_t left = static_cast<std::size_t>(std::count(frozen.begin(), frozen.end(), 0));
  double level = 0.0;
  std::vector<double> growth;
  while (left > 0) {
    const std::size_t left_before = left;
    // How fast each link fills while the unfrozen speeds rise together, and how far they can rise.
    double delta = 1.0 - level;
    growth.assign(links.size(), 0.0);
    std::size_t k = 0;
    for (auto& [id, l] : links) {
      for (const auto& [u, use] : l.users)
        if (!frozen[u]) growth[k] += use;
      if (growth[k] > 0.0) delta = std::min(delta, std::max(0.0, l.capacity - l.used) / growth[k]);
      ++k;
    }
    level += delta;
    k = 0;
    for (auto& [id, l] : links) {
      l.used += delta * growth[k];
      const bool full = growth[k] > 0.0 && l.capacity - l.used <= kFullTolerance * l.capacity;
      if (full)
        for (const auto& [u, use] : l.users)
          if (!frozen[u]) {
            frozen[u] = 1;
            speed[u] = level;
            --left;
          }
      ++k;
    }
    // Every step fills a link or reaches speed 1; should rounding ever defeat both, stop at this
    // level rather than loop.
    if (level >= 1.0 || left == left_before) {
      for (std::size_t u = 0; u < users.size(); ++u)
        if (!frozen[u]) {
          frozen[u] = 1;
          speed[u] = std::min(1.0, level);
          --left;
        }
    }
  }
  return speed;
}

}  // namespace hetsim
