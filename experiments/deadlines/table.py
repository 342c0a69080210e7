"""Markdown table of the deadlines sweep (experiments/deadlines/run.sh): per trace, the fraction of
jobs with a deadline that met it under each policy (deadlines_met / deadline_jobs, in per cent;
jobs rejected or unfinished count as missed), and how many jobs the policy rejected."""
import csv
import os
import sys
from collections import defaultdict

POLICIES = ["fifo", "srtf", "gavel-maxmin", "edf", "elasticflow"]


def load(paths):
    value = defaultdict(dict)  # (trace, policy) -> metric -> value, over every results.csv given
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                trace = os.path.splitext(os.path.basename(row["trace"]))[0]
                value[(trace, row["policy"])][row["metric"]] = row["value"]
    return value


def cell(metrics):
    if not metrics:
        return "not run"
    if "deadlines_met_fraction" not in metrics:
        return "failed"
    met = 100.0 * float(metrics["deadlines_met_fraction"])
    rejected = int(float(metrics.get("rejected", "0")))
    return f"{met:.1f}% ({rejected} rej.)"


def main(paths):
    value = load(paths)
    traces = sorted({t for t, _ in value}, key=lambda t: (t != "195job", t))
    print("| trace | jobs | " + " | ".join(POLICIES) + " |")
    print("|---|---:|" + "---:|" * len(POLICIES))
    for t in traces:
        jobs = next(int(float(m["deadline_jobs"])) for (tt, _), m in value.items() if tt == t and "deadline_jobs" in m)
        print(f"| {t} | {jobs:,} | " + " | ".join(cell(value.get((t, p), {})) for p in POLICIES) + " |")


if __name__ == "__main__":
    main(sys.argv[1:] or ["out/deadlines-elasticflow/results.csv", "out/deadlines-elasticflow-gavel/results.csv"])
