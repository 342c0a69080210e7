#!/usr/bin/env python3
"""Philly-derived workload for Heet's simulation-scale experiment, written as a hetsim native trace.

Jobs are drawn from the Microsoft Philly job log as flattened by Pollux (pollux/traces/philly.csv:
duration, num_gpus), keeping jobs of 60 s to 8 h; arrivals are Poisson at RATE jobs per hour; each
job gets one of the Heet prototype's six job types (model x global batch, uniformly); its work in
epochs is its Philly duration divided by the profiled epoch time of that job type on min(num_gpus,
4) V100s (so a job "lasts" its Philly duration on its requested V100s); its request is min(num_gpus,
4) GPUs (Heet's hosts have 4). All choices are ours (the Heet paper's generator is not public).
Deterministic for a given seed (Python's Mersenne Twister).

usage: make_workload.py PHILLY_CSV PROFILES_JSON RATE_PER_HOUR NUM_JOBS SEED OUT_CSV
"""
import csv
import json
import math
import random
import sys


def main() -> None:
    philly, profiles, rate, num_jobs, seed, out = sys.argv[1:7]
    rate, num_jobs, seed = float(rate), int(num_jobs), int(seed)
    rows = []
    with open(philly, newline="") as f:
        for r in csv.DictReader(f):
            d, g = float(r["duration"]), int(float(r["num_gpus"]))
            if 60.0 <= d <= 8 * 3600.0 and g >= 1:
                rows.append((d, g))
    epoch = json.load(open(profiles))["epoch_time_s"]["v100"]
    types = [(m, int(b)) for m in sorted(epoch) for b in sorted(epoch[m], key=int)]
    rng = random.Random(seed)
    t = 0.0
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["job_id", "submit_s", "num_gpus", "epochs", "job_type", "batch_size"])
        for i in range(num_jobs):
            t += -math.log(1.0 - rng.random()) * 3600.0 / rate
            d, g = rows[rng.randrange(len(rows))]
            model, batch = types[rng.randrange(len(types))]
            n = min(g, 4)
            epochs = max(1, round(d / epoch[model][str(batch)][str(n)]))
            w.writerow([f"p{i}", f"{t:.3f}", n, epochs, model, batch])


if __name__ == "__main__":
    main()
