"""Compare the Python policies of this folder with built-in ones on one trace and plot their JCTs.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/compare_plot.py \\
        --cluster gavel-24 --trace ../shared/data/gavel/traces/physical_cluster/max_min_fairness.trace \\
        --throughputs ../shared/data/gavel/simulation_throughputs.json --out out/py-compare

Writes OUT/compare.csv (and each policy's jobs.csv) through hetsim.compare, and OUT/jct.png: the
JCT distribution of every policy (empirical CDF) beside its mean.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hetsim  # noqa: E402
from las import LeastAttainedService  # noqa: E402
from maxmin import MaxMinFairness  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cluster", default="default")
    ap.add_argument("--trace")
    ap.add_argument("--throughputs")
    ap.add_argument("--out", default="out/py-compare")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel")
    a = ap.parse_args()
    # Event policies run under the event mechanism, allocation policies under Gavel's rounds
    # (mechanism auto): each policy in its own form, on the same inputs.
    result = hetsim.compare(["fifo", "las", LeastAttainedService, "gavel-maxmin", MaxMinFairness],
                            cluster=a.cluster, trace=a.trace, throughputs=a.throughputs, jobs=a.jobs, out=a.out)
    for label, error in result.errors.items():
        print(f"{label} failed: {error}", file=sys.stderr)
    print(result.table[["policy", "jct_mean_s", "jct_p95_s", "makespan_s", "utilization"]].to_string(index=False))
    fig, (cdf, bars) = plt.subplots(1, 2, figsize=(10, 4))
    for label, run in result.runs.items():
        jct_h = np.sort(run.jobs.loc[run.jobs["status"] == "completed", "jct_s"].to_numpy()) / 3600
        cdf.step(jct_h, np.arange(1, len(jct_h) + 1) / max(len(jct_h), 1), where="post", label=label)
    cdf.set_xscale("log")
    cdf.set_xlabel("JCT (h)")
    cdf.set_ylabel("share of jobs")
    cdf.legend()
    bars.bar(result.table["policy"], result.table["jct_mean_s"] / 3600)
    bars.set_ylabel("mean JCT (h)")
    bars.tick_params(axis="x", rotation=30)
    fig.tight_layout()
    path = os.path.join(a.out, "jct.png")
    fig.savefig(path, dpi=100)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
