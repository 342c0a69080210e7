"""Gavel-style weighted max-min fairness in Python, solved with scipy's linprog (HiGHS).

The LP of Gavel's MaxMinFairness_Perf (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling
Policies for Deep Learning Workloads", OSDI'20, sec. 4.1; stanford-futuredata/gavel,
scheduler/policies/max_min_fairness.py), as the built-in gavel-maxmin states it
(src/policy/gavel_maxmin.cpp):

    maximise z  s.t.  sum_t T[i,t] x[i,t] s_i / (w_i P_i) >= z   for every job i
                      sum_t x[i,t] <= 1,  sum_i s_i x[i,t] <= G_t,  0 <= x[i,t] <= [T[i,t] > 0]

with P_i = sum_t T[i,t] G_t / sum G (Gavel's proportional share). A second LP keeps z at its optimum
and maximises the total normalised throughput, so GPUs the minimum does not need are not left idle.
It runs under the round mechanism (`mechanism="gavel"`, rounds of `interval_s`, default 360 s).

    hetsim run --policy-file examples/python/maxmin.py --cluster gavel-24 --trace T --throughputs TP
"""
import numpy as np
from scipy.optimize import linprog

import hetsim


class MaxMinFairness(hetsim.AllocationPolicy):
    """weighted max-min fairness over normalised throughput (scipy linprog), Gavel's rounds"""

    name = "py-maxmin"
    source = "Gavel MaxMinFairness_Perf (Narayanan et al., OSDI'20)"
    params = [hetsim.Param("fill_spare", "true", "true: second LP fills GPUs the minimum leaves idle")]

    def allocate(self, view):
        tput, scale = view.throughput, view.scale_factor.astype(float)
        n, types = tput.shape
        if n == 0:
            return np.zeros((0, types))
        gpus = view.gpus_per_type.astype(float)
        prop = tput @ gpus / gpus.sum()
        coef = np.where(prop > 0, scale / (view.priority_weight * np.where(prop > 0, prop, 1)), 0.0)
        norm = tput * coef[:, None]  # [i, t]: normalised throughput per unit of x[i, t]
        # Variables: x (row-major, n * types), then z.
        per_job = np.kron(np.eye(n), np.ones(types))             # sum_t x[i, t] <= 1
        per_type = _type_rows(scale, types)                      # sum_i s_i x[i, t] <= G_t
        fair = np.hstack([-_block_rows(norm), np.ones((n, 1))])  # z - norm_i . x_i <= 0
        a_ub = np.vstack([np.hstack([per_job, np.zeros((n, 1))]), np.hstack([per_type, np.zeros((types, 1))]), fair])
        b_ub = np.concatenate([np.ones(n), gpus, np.zeros(n)])
        bounds = [(0.0, 1.0 if t > 0 else 0.0) for t in tput.ravel()] + [(None, None)]
        first = linprog(-_unit(n * types + 1, -1), A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
        if first.status != 0:
            raise RuntimeError(f"max-min LP failed: {first.message}")
        x = first.x
        if self.params["fill_spare"] == "true":
            bounds[-1] = (first.x[-1] * (1 - 1e-7), None)  # keep the minimum (within round-off)
            objective = np.concatenate([-norm.ravel(), [0.0]])
            second = linprog(objective, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
            if second.status == 0:
                x = second.x
        return x[:-1].reshape(n, types)


def _unit(size, index):
    v = np.zeros(size)
    v[index] = 1.0
    return v


def _block_rows(norm):
    """Row i holds norm[i, :] in columns i * types ... (i + 1) * types - 1."""
    n, types = norm.shape
    rows = np.zeros((n, n * types))
    for i in range(n):
        rows[i, i * types:(i + 1) * types] = norm[i]
    return rows


def _type_rows(scale, types):
    """Row t holds s_i in column i * types + t for every job i."""
    n = len(scale)
    rows = np.zeros((types, n * types))
    for t in range(types):
        rows[t, t::types] = scale
    return rows
