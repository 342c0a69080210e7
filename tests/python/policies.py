"""Python policies the tests use: a FIFO twin of the C++ `fifo` and policies that misbehave."""
import numpy as np

import hetsim


class Fifo(hetsim.Policy):
    """strict FIFO, head of the queue blocks (Python twin of fifo with gpu_type=first)"""

    name = "py-fifo"

    def schedule(self, view):
        free = view.free_by_type.tolist()
        waiting = ~view.running
        jobs, demand = view.jobs[waiting].tolist(), view.demand[waiting].tolist()
        rates = view.rates[waiting].tolist()
        start, types, counts = [], [], []
        for job, d, r in zip(jobs, demand, rates):
            # The first type in cluster order with room and a positive rate, as fifo's 'first'.
            pick = next((t for t in range(len(free)) if free[t] >= d and r[t] > 0), -1)
            if pick < 0:
                break  # the head blocks the queue
            free[pick] -= d
            start.append(job)
            types.append(pick)
            counts.append(d)
        return hetsim.Decision(jobs=start, gpu_types=types, gpu_counts=counts)


class Raises(hetsim.Policy):
    """raises on its first pass"""

    def schedule(self, view):
        return 1 / 0


class UnknownJob(hetsim.Policy):
    """asks for a job index that does not exist, then schedules nothing"""

    def schedule(self, view):
        return hetsim.Decision(jobs=[10**6], gpu_types=[0], gpu_counts=[1])


class TooMany(hetsim.Policy):
    """asks for more GPUs of type 0 than the cluster has"""

    def schedule(self, view):
        waiting = view.jobs[~view.running]
        return hetsim.Decision(jobs=waiting[:1], gpu_types=[0], gpu_counts=[view.gpus_by_type[0] + 1])


class GpuTwice(hetsim.Policy):
    """gives the same exact GPU twice in one request"""

    def schedule(self, view):
        waiting = view.jobs[~view.running]
        if len(waiting) == 0 or view.free_by_type[0] < 2:
            return None
        return hetsim.Decision(jobs=waiting[:1], gpu_types=[0], gpu_counts=[2], gpus=[[0, 0]])


class FloatJobs(hetsim.Policy):
    """returns NaN as a job index"""

    def schedule(self, view):
        return hetsim.Decision(jobs=[np.nan], gpu_types=[0], gpu_counts=[1])


class HugeJobs(hetsim.Policy):
    """returns a whole job index far beyond any job"""

    def schedule(self, view):
        return hetsim.Decision(jobs=[2**62], gpu_types=[0], gpu_counts=[1])


class Mismatch(hetsim.Policy):
    """returns arrays of different lengths"""

    def schedule(self, view):
        return hetsim.Decision(jobs=[0, 1], gpu_types=[0], gpu_counts=[1, 1])


class Nothing(hetsim.Policy):
    """never gives any job a GPU"""

    def schedule(self, view):
        return None


class NanShares(hetsim.AllocationPolicy):
    """an allocation policy whose X holds NaN"""

    def allocate(self, view):
        x = np.ones((len(view.jobs), len(view.type_names)))
        x[0, 0] = np.nan
        return x


class WrongShape(hetsim.AllocationPolicy):
    """an allocation policy whose X has one column too few"""

    def allocate(self, view):
        return np.zeros((len(view.jobs), len(view.type_names) - 1))


class ZeroShares(hetsim.AllocationPolicy):
    """an allocation policy that never gives any job a share (and, as Gavel's FIFO, leaves
    zero-priority jobs unscheduled, so no job ever runs)"""

    skip_zero_priority = True

    def allocate(self, view):
        return np.zeros((len(view.jobs), len(view.type_names)))


class WithParams(hetsim.Policy):
    """declares parameters like the C++ registry"""

    params = [hetsim.Param("alpha", "1.5", "a number in [0, 10]", range=(0, 10)), hetsim.Param("mode", "a", "text")]
    seen = []

    def schedule(self, view):
        WithParams.seen.append((self.params["alpha"], self.params["mode"], self.seed))
        return None


class ProbeNetwork(hetsim.Policy):
    """starts job 0 on GPUs 0, 1 (dgx-0) and 4, 5 (dgx-1) and records (in the class: runs build
    their own instance), once it runs, what a job on the other four GPUs of those nodes would get
    from the shared network"""

    shared = []
    joins = []

    def schedule(self, view):
        ProbeNetwork.shared.append(view.shared_network)
        if view.running.any():
            ProbeNetwork.joins.append(view.network_join(1, [2, 3, 6, 7]))
        pending = [j for j, r in zip(view.jobs, view.running) if not r]
        if 0 in pending:
            return hetsim.Decision(jobs=[0], gpu_types=[0], gpu_counts=[4], gpus=[[0, 1, 4, 5]])
        return None
