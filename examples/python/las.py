"""Least attained service in Python, the twin of the C++ `las` policy (src/policy/las.cpp).

LAS (foreground-background): the jobs with the fewest GPU-seconds so far go first (Nuyens and
Wierman, "The Foreground-Background queue: A survey", Performance Evaluation 2008; GPU-seconds as
the service, as in Tiresias, NSDI'19). The same rules as the C++ policy, so jobs.csv is byte-identical:
the order and each job's GPU-type preference come from vectorised sorts; only the walk that hands
out GPUs is a Python loop over plain lists, and it stops when the cluster is fully promised.

    hetsim run --policy-file examples/python/las.py --cluster gavel-108 --trace T --throughputs TP
"""
import numpy as np

import hetsim


class LeastAttainedService(hetsim.Policy):
    """preemptive least attained service (Python twin of las)"""

    name = "py-las"
    source = "LAS / foreground-background (Nuyens and Wierman, Perf. Eval. 2008), GPU-seconds as in Tiresias (NSDI'19)"

    def __init__(self, params=None, seed=0):
        super().__init__(params, seed)
        self._prefs = {}  # job index -> its GPU types by descending rate (a job's rates never change)

    def _new_pref(self, job, rates):
        """Types by descending rate, ties to the lowest index (the C++ loop's strict `rate > best`),
        leaving out types where the job cannot run."""
        rates = rates.tolist()
        pref = self._prefs[job] = sorted((t for t, r in enumerate(rates) if r > 0), key=lambda t: -rates[t])
        return pref

    def schedule(self, view):
        # Ascending attained service, ties by arrival order (rows are in arrival order; the sort is stable).
        order = np.argsort(view.attained_gpu_s, kind="stable")
        rates = view.rates
        left = view.gpus_by_type.tolist()
        left_total = sum(left)
        prefs = self._prefs
        kept, alloc_jobs, alloc_types, alloc_counts = set(), [], [], []
        walk = zip(order.tolist(), view.jobs[order].tolist(), view.demand[order].tolist(),
                   view.running[order].tolist(), view.gpu_type[order].tolist())
        for row, job, d, running, current in walk:
            if left_total == 0:
                break
            if running and left[current] >= d:  # keeps its GPUs
                left[current] -= d
                left_total -= d
                kept.add(job)
                continue
            pref = prefs.get(job)
            if pref is None:
                pref = self._new_pref(job, rates[row])
            for t in pref:  # the fastest type with room
                if left[t] >= d:
                    break
            else:
                continue  # fits nowhere: smaller jobs behind it may still fit
            left[t] -= d
            left_total -= d
            if running:
                kept.add(job)  # a move: allocated on its new type, not preempted
            alloc_jobs.append(job)
            alloc_types.append(t)
            alloc_counts.append(d)
        preempt = [j for j in view.jobs[view.running].tolist() if j not in kept]
        return hetsim.Decision(preempt=preempt, jobs=alloc_jobs, gpu_types=alloc_types, gpu_counts=alloc_counts)
