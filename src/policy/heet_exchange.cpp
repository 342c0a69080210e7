// heet's matching step in O(jobs x types) per round (issue 19 item 3: "rounds that cost what
// changes"). Slots of one GPU type are interchangeable, so the minimum-weight full matching of jobs
// and slots is a transportation problem: jobs x types with a capacity per type. Starting from where
// the jobs run now (last round's answer, nearly optimal again), it cancels negative cycles of the
// exchange graph whose nodes are the types, "unassigned" (U) and "free capacity" (F); with <= 4 types
// the simple cycles are few enough to enumerate. A flow with no negative residual cycle is a
// minimum-cost one (Klein 1967, cycle cancelling; Ahuja, Magnanti, Orlin, "Network Flows" ch. 9).
//
// Why it gives the Hungarian search's answer (heet_match_types), ties included: the answer is
// returned only when every simple cycle costs more than `margin` (far above the search's rounding).
// Any other type assignment differs from this one by moves that decompose into simple cycles of
// this graph, each costing at least the cycle's edge minima, so it costs more than `margin` above
// this one: the optimum is unique and the search, optimal up to rounding, returns it too. Where a
// cycle is within the margin (equal jobs, ties of any kind) or a job would have to take a type
// where its weight is infinite, the caller falls back to the search.
#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsim/policy/heet_plan.hpp"

namespace hetsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::size_t kMaxTypes = 4;  // 6 nodes: 409 simple cycles; more types use the search

// One round's exchange graph: node k < types = the k-th type with slots, U = types, F = types + 1.
class ExchangeGraph {
 public:
  ExchangeGraph(const std::vector<double>& cost, std::size_t width, std::vector<std::size_t> type_of_node,
                std::vector<int> cap, bool unassign)
      : cost_(cost), width_(width), type_(std::move(type_of_node)), cap_(std::move(cap)), unassign_(unassign),
        nodes_(type_.size() + 2), load_(type_.size(), 0), node_of_(cost.size() / width, type_.size()) {}

  std::size_t u() const { return type_.size(); }
  std::size_t f() const { return type_.size() + 1; }
  int slack(std::size_t k) const { return cap_[k] - load_[k]; }
  void put(std::size_t j, std::size_t node) {  // its old node's load already released
    node_of_[j] = node;
    if (node < u()) ++load_[node];
  }
  void move(std::size_t j, std::size_t node) {
    if (node_of_[j] < u()) --load_[node_of_[j]];
    put(j, node);
  }
  // Breadth-first over the types: j takes a type where its weight is finite, each type on the path
  // handing its lowest-indexed job with a finite weight on the next type, until one has room.
  bool augment(std::size_t j) {
    const std::size_t none = u();
    std::vector<std::size_t> parent(u(), none), mover(u(), 0), queue;
    std::vector<char> seen(u(), 0);
    for (std::size_t k = 0; k < u(); ++k)
      if (std::isfinite(cost_at(j, k))) seen[k] = 1, mover[k] = j, queue.push_back(k);
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const std::size_t k = queue[q];
      if (slack(k) > 0) {
        for (std::size_t at = k; at != none; at = parent[at]) move(mover[at], at);
        return true;
      }
      for (std::size_t b = 0; b < u(); ++b) {
        if (seen[b]) continue;
        for (std::size_t i = 0; i < node_of_.size(); ++i)
          if (node_of_[i] == k && std::isfinite(cost_at(i, b))) {
            seen[b] = 1, parent[b] = k, mover[b] = i, queue.push_back(b);
            break;
          }
      }
    }
    return false;
  }
  double cost_at(std::size_t j, std::size_t node) const { return node < u() ? cost_[j * width_ + type_[node]] : 0.0; }
  std::size_t node_of(std::size_t j) const { return node_of_[j]; }

  // best_[a][b]: cheapest move of one job from node a to node b, and which job (lowest index on ties).
  void edges() {
    const std::size_t n = nodes_;
    best_.assign(n * n, kInf);
    who_.assign(n * n, 0);
    for (std::size_t j = 0; j < node_of_.size(); ++j) {
      const std::size_t a = node_of_[j];
      const double here = cost_at(j, a);
      for (std::size_t b = 0; b < u(); ++b) {
        if (b == a) continue;
        const double m = cost_at(j, b) - here;
        if (m < best_[a * n + b]) best_[a * n + b] = m, who_[a * n + b] = j;
      }
      if (unassign_ && a < u() && -here < best_[a * n + u()]) best_[a * n + u()] = -here, who_[a * n + u()] = j;
    }
    for (std::size_t k = 0; k < u(); ++k) {
      if (slack(k) > 0) best_[k * n + f()] = 0.0;  // a job may move into free capacity
      best_[f() * n + k] = 0.0;                    // the type it left gains free capacity
    }
  }

  // The cheapest simple cycle (nodes in order) and its cost; cost +inf when there is none.
  double cheapest_cycle(std::vector<std::size_t>& cycle) const {
    double best = kInf;
    std::vector<std::size_t> path;
    std::vector<char> on(nodes_, 0);
    for (std::size_t s = 0; s < nodes_; ++s) {
      path.assign(1, s);
      on[s] = 1;
      extend(s, 0.0, path, on, best, cycle);
      on[s] = 0;
    }
    return best;
  }

  void cancel(const std::vector<std::size_t>& cycle) {
    const std::size_t n = nodes_;
    std::vector<std::pair<std::size_t, std::size_t>> moves;  // (job, to): chosen before any move
    for (std::size_t i = 0; i < cycle.size(); ++i) {
      const std::size_t a = cycle[i], b = cycle[(i + 1) % cycle.size()];
      if (a != f() && b != f()) moves.push_back({who_[a * n + b], b});
    }
    for (const auto& [j, b] : moves) {
      if (node_of_[j] < u()) --load_[node_of_[j]];
      put(j, b);
    }
  }

 private:
  // Depth-first over simple cycles whose smallest node is path.front() (each cycle once).
  void extend(std::size_t at, double sum, std::vector<std::size_t>& path, std::vector<char>& on, double& best,
              std::vector<std::size_t>& cycle) const {
    const std::size_t n = nodes_, s = path.front();
    for (std::size_t b = s; b < n; ++b) {
      const double w = best_[at * n + b];
      if (w == kInf) continue;
      if (b == s) {
        // k -> F -> k moves no job: not an alternative assignment.
        const bool moves_a_job = path.size() > 2 || (path.size() == 2 && path[1] != f());
        if (moves_a_job && sum + w < best) best = sum + w, cycle = path;
        continue;
      }
      if (on[b]) continue;
      on[b] = 1;
      path.push_back(b);
      extend(b, sum + w, path, on, best, cycle);
      path.pop_back();
      on[b] = 0;
    }
  }

  const std::vector<double>& cost_;  // [job * width_ + type]
  std::size_t width_;
  std::vector<std::size_t> type_;
  std::vector<int> cap_;
  bool unassign_;
  std::size_t nodes_;
  std::vector<int> load_;
  std::vector<std::size_t> node_of_;
  std::vector<double> best_;
  std::vector<std::size_t> who_;
};

}  // namespace

bool heet_match_types_exchange(const std::vector<std::vector<double>>& cost, const std::vector<int>& slot_type,
                               const std::vector<GpuTypeId>& start, std::vector<GpuTypeId>& type) {
  std::size_t width = 0;
  for (const auto& row : cost) width = std::max(width, row.size());
  // A type beyond a short row is NaN, which declines as the ragged table did.
  std::vector<double> flat(cost.size() * width, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t j = 0; j < cost.size(); ++j) std::copy(cost[j].begin(), cost[j].end(), flat.begin() + static_cast<std::ptrdiff_t>(j * width));
  return heet_match_types_exchange(flat, width, slot_type, start, type);
}

bool heet_match_types_exchange(const std::vector<double>& cost, std::size_t width, const std::vector<int>& slot_type,
                               const std::vector<GpuTypeId>& start, std::vector<GpuTypeId>& type) {
  if (width == 0 || cost.size() % width != 0) return false;
  const std::size_t jobs = cost.size() / width;
  std::vector<int> cap_of_type;
  for (int t : slot_type) {
    if (t < 0 || static_cast<std::size_t>(t) >= width) return false;
    cap_of_type.resize(std::max(cap_of_type.size(), static_cast<std::size_t>(t) + 1), 0);
    ++cap_of_type[static_cast<std::size_t>(t)];
  }
  // A type where every job's weight is infinite takes only missing edges: the search fills its
  // slots with stand-in weights, all reported unmatched, so the graph leaves it out (below).
  std::vector<std::size_t> type_of_node;
  std::vector<int> cap, node_of_type(cap_of_type.size(), -1);
  for (std::size_t t = 0; t < cap_of_type.size(); ++t) {
    bool any_finite = false;
    for (std::size_t j = 0; j < jobs && !any_finite; ++j) any_finite = std::isfinite(cost[j * width + t]);
    if (cap_of_type[t] > 0 && any_finite) {
      node_of_type[t] = static_cast<int>(type_of_node.size());
      type_of_node.push_back(t);
      cap.push_back(cap_of_type[t]);
    }
  }
  if (jobs == 0 || type_of_node.empty() || type_of_node.size() > kMaxTypes) return false;
  // An infinite weight is a missing edge: no move uses it (c - here = inf is never a cheapest
  // edge). The search's stand-in weight for it exceeds any matching of real edges, so it matches
  // as many jobs by real edges as possible (the start below does too) and among those the
  // cheapest: this solver's optimum over real edges.
  double scale = 0.0;
  bool missing = false;
  for (std::size_t j = 0; j < jobs; ++j)
    for (std::size_t t = 0; t < cap_of_type.size(); ++t) {
      if (cap_of_type[t] == 0) continue;
      const double c = cost[j * width + t];
      if (std::isnan(c)) return false;
      if (std::isinf(c)) {
        if (c < 0.0) return false;
        missing = true;
        continue;
      }
      scale = std::max(scale, std::abs(c));
    }
  // Jobs may wait (node U) whenever some do: exchanges through U keep the number matched.
  ExchangeGraph g(cost, width, type_of_node, cap, true);
  // Start: jobs stay on their type while it has room and their weight there is finite; the rest
  // take the cheapest type with room where their weight is finite, else an augmenting path makes
  // room (Kuhn 1955: each job tried once gives a maximum matching of finite edges).
  std::vector<std::size_t> rest;
  for (std::size_t j = 0; j < jobs; ++j) {
    const GpuTypeId t = j < start.size() ? start[j] : -1;
    const int k = t >= 0 && static_cast<std::size_t>(t) < node_of_type.size() ? node_of_type[static_cast<std::size_t>(t)] : -1;
    if (k >= 0 && g.slack(static_cast<std::size_t>(k)) > 0 && std::isfinite(g.cost_at(j, static_cast<std::size_t>(k))))
      g.move(j, static_cast<std::size_t>(k));
    else
      rest.push_back(j);
  }
  for (std::size_t j : rest) {
    std::size_t pick = g.u();
    for (std::size_t k = 0; k < cap.size(); ++k)
      if (g.slack(k) > 0 && std::isfinite(g.cost_at(j, k)) && (pick == g.u() || g.cost_at(j, k) < g.cost_at(j, pick))) pick = k;
    if (pick < g.u()) g.move(j, pick);
    if (pick == g.u()) g.augment(j);
  }
  // The start now matches as many jobs by real edges as can be (each job tried once, no augmenting
  // path is left: Berge 1957); the cycles below keep that number.
  // The search is optimal up to rounding of a few ulps per step over its O(jobs^2) steps, on
  // weights up to jobs x the largest when a stand-in weight is present; the margin stays well
  // above that.
  const double n = static_cast<double>(jobs);
  const double margin = scale * std::max(1e-9, 1e-14 * n * n * (missing ? n : 1.0));
  std::vector<std::size_t> cycle;
  for (std::size_t iter = 0; iter < 4 * jobs + 16; ++iter) {
    g.edges();
    const double c = g.cheapest_cycle(cycle);
    if (c > margin) {
      type.assign(jobs, -1);
      for (std::size_t j = 0; j < jobs; ++j)
        if (g.node_of(j) < g.u()) type[j] = static_cast<GpuTypeId>(type_of_node[g.node_of(j)]);
      return true;
    }
    if (c >= -margin) return false;  // a tie or near tie: only the search knows its pick
    g.cancel(cycle);
  }
  return false;
}

}  // namespace hetsim
