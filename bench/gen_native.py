#!/usr/bin/env python3
"""Writes a deterministic synthetic native trace (docs/trace-format.md) for bench/scaling.sh.

  gen_native.py burst N TABLE OUT  N Gavel-typed jobs all submitted at t=0 (the same-instant burst),
                                   job types and iterations from Gavel's throughput table TABLE
  gen_native.py poisson N GAP OUT  N duration-only jobs, Poisson arrivals with a mean gap of GAP s

GPU counts and durations follow hetsim's built-in synthetic workload (src/workload/synthetic.cpp):
1/2/4/8 GPUs with probability 0.70/0.15/0.10/0.05, durations log-uniform in [300 s, 4 h], whole
seconds; a burst job's iterations are that duration at its type's single-GPU v100 rate. Python's
random.Random is the same Mersenne Twister on every platform, so a seed gives the same file
everywhere. Standard library only.
"""
import json
import math
import random
import sys


def gpus_of(u):
    return 1 if u < 0.70 else 2 if u < 0.85 else 4 if u < 0.95 else 8


def v100_single_gpu_rates(table_path):
    """{job type: steps/s on one v100} from a Gavel table, keys like "('<type>', 1)"."""
    rates = {}
    for key, value in json.load(open(table_path))["v100"].items():
        job_type, scale_factor = key[2:-1].rsplit(key[1] + ",", 1)
        if int(scale_factor) == 1 and value["null"] > 0:
            rates[job_type] = value["null"]
    return rates


def write(out, n, gap_s, seed, rates=None):
    rng = random.Random(seed)
    lo, hi = math.log(300.0), math.log(4.0 * 3600.0)
    types = sorted(rates) if rates else []
    t = 0.0
    with open(out, "w") as f:
        f.write("job_id,submit_s,num_gpus,iterations,job_type\n" if rates else "job_id,submit_s,num_gpus,duration_s\n")
        for i in range(n):
            if i > 0 and gap_s > 0:
                t += -math.log(1.0 - rng.random()) * gap_s
            gpus = gpus_of(rng.random())
            duration = round(math.exp(lo + (hi - lo) * rng.random()))
            if rates:
                job_type = types[rng.randrange(len(types))]
                f.write(f"job-{i},{round(t)},{gpus},{round(duration * rates[job_type])},{job_type}\n")
            else:
                f.write(f"job-{i},{round(t)},{gpus},{duration}\n")


def main(argv):
    if len(argv) == 5 and argv[1] == "burst":
        write(argv[4], int(argv[2]), 0.0, seed=1, rates=v100_single_gpu_rates(argv[3]))
    elif len(argv) == 5 and argv[1] == "poisson":
        write(argv[4], int(argv[2]), float(argv[3]), seed=2)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
