"""Least attained service in Python, the twin of the C++ `las` policy (src/policy/las.cpp).

LAS (foreground-background): the jobs with the fewest GPU-seconds so far go first (Nuyens and
Wierman, "The Foreground-Background queue: A survey", Performance Evaluation 2008; GPU-seconds as
the service, as in Tiresias, NSDI'19). The same rules as the C++ policy, so jobs.csv is byte-identical:
the order comes from one vectorised sort; only the walk that hands out GPUs loops, and it stops
when the cluster is fully promised.

    hetsim run --policy-file examples/python/las.py --cluster gavel-108 --trace T --throughputs TP
"""
import numpy as np

import hetsim


class LeastAttainedService(hetsim.Policy):
    """preemptive least attained service (Python twin of las)"""

    name = "py-las"
    source = "LAS / foreground-background (Nuyens and Wierman, Perf. Eval. 2008), GPU-seconds as in Tiresias (NSDI'19)"

    def schedule(self, view):
        # Ascending attained service, ties by arrival order (view.jobs is ascending, lexsort is stable).
        order = np.lexsort((view.jobs, view.attained_gpu_s)).tolist()
        jobs, demand = view.jobs.tolist(), view.demand.tolist()
        running, gpu_type = view.running.tolist(), view.gpu_type.tolist()
        rates = view.rates.tolist()
        left = view.gpus_by_type.tolist()
        left_total = sum(left)
        kept = set()
        alloc_jobs, alloc_types, alloc_counts = [], [], []
        for i in order:
            if left_total == 0:
                break
            d = demand[i]
            if running[i] and left[gpu_type[i]] >= d:  # keep its GPUs
                left[gpu_type[i]] -= d
                left_total -= d
                kept.add(jobs[i])
                continue
            pick, best = -1, 0.0
            for t, rate in enumerate(rates[i]):  # fastest type with room, ties to the lowest index
                if left[t] >= d and rate > best:
                    pick, best = t, rate
            if pick < 0:
                continue
            left[pick] -= d
            left_total -= d
            if running[i]:
                kept.add(jobs[i])  # a move: allocated on its new type, not preempted
            alloc_jobs.append(jobs[i])
            alloc_types.append(pick)
            alloc_counts.append(d)
        preempt = [j for j, r in zip(jobs, running) if r and j not in kept]
        return hetsim.Decision(preempt=preempt, jobs=alloc_jobs, gpu_types=alloc_types, gpu_counts=alloc_counts)
