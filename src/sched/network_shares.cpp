#include "hetsim/sched/network_shares.hpp"

#include <algorithm>
#include <deque>

namespace hetsim {

void NetworkShares::add(JobIndex j, NetworkDemand demand) {
  remove(j);
  Entry e;
  e.use = demand.use_bytes_per_s();
  e.demand = std::move(demand);
  for (const LinkBytes& l : e.use) {
    users_[l.link].insert(j);
    dirty_links_.push_back(l.link);
  }
  dirty_jobs_.insert(j);
  jobs_.emplace(j, std::move(e));
}

void NetworkShares::remove(JobIndex j) {
  const auto it = jobs_.find(j);
  if (it == jobs_.end()) return;
  for (const LinkBytes& l : it->second.use) {
    auto u = users_.find(l.link);
    u->second.erase(j);
    if (u->second.empty()) users_.erase(u);
    dirty_links_.push_back(l.link);
  }
  dirty_jobs_.erase(j);
  jobs_.erase(it);
}

std::vector<JobIndex> NetworkShares::group_of(const std::set<JobIndex>& seeds, const std::vector<LinkId>& links) const {
  std::set<JobIndex> seen;
  std::set<LinkId> links_seen;
  std::deque<LinkId> todo;
  auto visit_job = [&](JobIndex j) {
    if (!seen.insert(j).second) return;
    for (const LinkBytes& l : jobs_.at(j).use)
      if (links_seen.insert(l.link).second) todo.push_back(l.link);
  };
  for (JobIndex j : seeds)
    if (jobs_.count(j)) visit_job(j);
  for (LinkId l : links)
    if (links_seen.insert(l).second) todo.push_back(l);
  while (!todo.empty()) {
    const LinkId l = todo.front();
    todo.pop_front();
    if (auto u = users_.find(l); u != users_.end())
      for (JobIndex j : u->second) visit_job(j);
  }
  return {seen.begin(), seen.end()};
}

std::vector<double> NetworkShares::solve(const std::vector<const std::vector<LinkBytes>*>& uses) const {
  std::vector<std::vector<LinkBytes>> users;
  users.reserve(uses.size());
  for (const auto* u : uses) users.push_back(*u);
  return max_min_speeds(users, [this](LinkId l) { return topology_.link_bytes_per_s(l); });
}

std::vector<NetworkShares::Change> NetworkShares::rebalance() {
  std::vector<Change> changes;
  if (dirty_links_.empty() && dirty_jobs_.empty()) return changes;
  // Each connected group is solved on its own, jobs in index order, so a job's speed depends only
  // on the jobs it shares links with (not on the rounding of unrelated groups). The groups to
  // solve are those of the jobs that joined and of the jobs still on links that someone left.
  std::set<JobIndex> seeds = dirty_jobs_;
  for (LinkId l : dirty_links_)
    if (auto u = users_.find(l); u != users_.end()) seeds.insert(u->second.begin(), u->second.end());
  dirty_links_.clear();
  dirty_jobs_.clear();
  std::set<JobIndex> done;
  for (JobIndex seed : seeds) {
    if (done.count(seed)) continue;
    const std::vector<JobIndex> group = group_of({seed}, {});
    std::vector<const std::vector<LinkBytes>*> uses;
    for (JobIndex j : group) uses.push_back(&jobs_.at(j).use);
    const std::vector<double> speeds = solve(uses);
    for (std::size_t i = 0; i < group.size(); ++i) {
      done.insert(group[i]);
      Entry& e = jobs_.at(group[i]);
      if (speeds[i] == e.speed) continue;
      e.speed = speeds[i];
      changes.push_back(Change{group[i], e.speed, e.demand.rate_at_speed(e.speed)});
    }
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.job < b.job; });
  return changes;
}

double NetworkShares::speed(JobIndex j) const {
  const auto it = jobs_.find(j);
  return it == jobs_.end() ? 1.0 : it->second.speed;
}

double NetworkShares::link_load_bytes_per_s(LinkId link) const {
  double load = 0.0;
  if (auto u = users_.find(link); u != users_.end())
    for (JobIndex j : u->second) {
      const Entry& e = jobs_.at(j);
      for (const LinkBytes& l : e.use)
        if (l.link == link) load += e.speed * l.bytes;
    }
  return load;
}

JoinEffect NetworkShares::join_effect(const NetworkDemand& demand) const {
  JoinEffect out;
  const std::vector<LinkBytes> use = demand.use_bytes_per_s();
  std::vector<LinkId> links;
  for (const LinkBytes& l : use) links.push_back(l.link);
  const std::vector<JobIndex> group = group_of({}, links);
  std::vector<const std::vector<LinkBytes>*> uses{&use};
  for (JobIndex j : group) uses.push_back(&jobs_.at(j).use);
  const std::vector<double> speeds = solve(uses);
  out.speed = speeds[0];
  for (std::size_t i = 0; i < group.size(); ++i) {
    const Entry& e = jobs_.at(group[i]);
    if (speeds[i + 1] >= e.speed) continue;
    const double now = e.demand.rate_at_speed(e.speed);
    if (now > 0.0) out.others_rate_loss += 1.0 - e.demand.rate_at_speed(speeds[i + 1]) / now;
  }
  return out;
}

}  // namespace hetsim
