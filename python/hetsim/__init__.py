"""hetsim from Python: runs, comparisons and sweeps on the C++ engine, and policies written in Python.

    import hetsim
    r = hetsim.run(cluster="gavel-108", trace="t.trace", throughputs="tp.json", policy="srtf")
    r.jobs      # pandas DataFrame, the columns of jobs.csv
    r.summary   # dict, summary.json

Settings are the keys of experiment specs (docs/experiment-spec.md: `hetsim list` names, the
same checks and messages as `hetsim run`); docs/python.md documents the API.
"""
from ._api import CompareResult, RunResult, SweepResult, compare, run, sweep
from ._policy import AllocationPolicy, Decision, Param, Policy, describe_policy_file
from ._hetsim import InputError, InvariantViolation

__all__ = [
    "AllocationPolicy", "CompareResult", "Decision", "InputError", "InvariantViolation", "Param", "Policy", "RunResult",
    "SweepResult", "compare", "describe_policy_file", "run", "sweep",
]
