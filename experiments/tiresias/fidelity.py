#!/usr/bin/env python3
"""Tiresias fidelity: runs hetsim's tiresias-* policies on the first 3,000 Philly jobs on 32 nodes x
8 GPUs (cluster-256.json) and compares the mean JCT and makespan with the figures of Tiresias' own
simulator (reference.json; how they were made is written there).

Usage: experiments/tiresias/fidelity.py [--hetsim build/release/hetsim] [--data ../shared/data]
                                        [--out out/tiresias-fidelity] [--tolerance 0.001]
                                        [--simulator DIR]
--simulator: the simulator's folder (Tiresias simulator/), for the gittins row that uses its own
distribution file, yarn-gput1000.csv (not part of hetsim); without it that row is skipped.
Exit 0 when every policy is within the tolerance, 1 otherwise, 2 on bad input."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hetsim", default=os.path.join(ROOT, "build/release/hetsim"))
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data"))
    ap.add_argument("--out", default=os.path.join(ROOT, "out/tiresias-fidelity"))
    ap.add_argument("--tolerance", type=float, default=0.001)
    ap.add_argument("--simulator", default="", help="Tiresias simulator/ folder (for its yarn-gput1000.csv)")
    args = ap.parse_args()
    with open(os.path.join(HERE, "reference.json")) as f:
        ref = json.load(f)
    philly = os.path.join(args.data, "pollux/traces/philly.csv")
    if not os.path.exists(philly):
        print("fidelity.py: %s is absent (see docs/EXPERIMENTS.md, Tiresias fidelity)" % philly, file=sys.stderr)
        return 2
    jobs = ref["jobs"]
    subprocess.run([sys.executable, os.path.join(HERE, "convert_philly.py"), "--philly", philly, "--jobs", str(jobs),
                    "--max-gpus", str(ref["gpus"]), "--out", args.out], check=True)
    trace = os.path.join(args.out, "philly-%d.csv" % jobs)
    print("| hetsim policy | simulator --schedule | hetsim jct_mean_s | simulator | difference | hetsim makespan_s | simulator | difference |")
    print("|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for name, cell in ref["policies"].items():
        policy = cell.get("policy", name)
        params = cell.get("hetsim_params", {})
        if any("{simulator}" in v for v in params.values()) and not args.simulator:
            print("| `%s` | `%s` | skipped: needs --simulator (its yarn-gput1000.csv) | | | | | |" % (name, cell["schedule"]))
            continue
        out = os.path.join(args.out, name.replace("/", "-"))
        cmd = [args.hetsim, "run", "--cluster", os.path.join(HERE, "cluster-256.json"), "--trace", trace, "--format",
               "philly", "--policy", policy, "--out", out, "-q"]
        for key, value in params.items():
            cmd += ["--param", "%s=%s" % (key, value.replace("{simulator}", args.simulator))]
        subprocess.run(cmd, check=True)
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        row = ["`%s`" % name, "`%s`" % cell["schedule"]]
        for key in ("jct_mean_s", "makespan_s"):
            mine, theirs = summary[key], cell[key]
            diff = (mine - theirs) / theirs
            if key == "jct_mean_s":
                worst = max(worst, abs(diff))
            row += ["%.3f" % mine, "%.3f" % theirs, "%+.4f%%" % (100 * diff)]
        print("| " + " | ".join(row) + " |")
    print("\nlargest mean-JCT difference: %.4f%% (tolerance %.4f%%)" % (100 * worst, 100 * args.tolerance))
    return 0 if worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
