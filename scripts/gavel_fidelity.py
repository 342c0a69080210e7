#!/usr/bin/env python3
"""Gavel fidelity: hetsim's round-based time-sharing mechanism on every physical-cluster trace of
Gavel, against the average JCT and makespan Gavel's own simulator reports
(experiments/gavel/reference.json). Prints one row per trace and policy; exits 1 if any figure is
more than --tolerance (default 2%) away. Needs a Release build and ../shared/data."""
import argparse, json, os, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--data", default=os.environ.get("HETSIM_SHARED_DATA", os.path.join(root, "..", "shared", "data")))
ap.add_argument("--hetsim", default=os.path.join(root, "build", "release", "hetsim"))
ap.add_argument("--tolerance", type=float, default=2.0, help="percent")
args = ap.parse_args()
ref = json.load(open(os.path.join(root, "experiments", "gavel", "reference.json")))
table = os.path.join(args.data, "gavel", "simulation_throughputs.json")
worst, failed = 0.0, False
print(f"{'trace':<20} {'policy':<10} {'JCT hetsim':>12} {'JCT Gavel':>12} {'diff':>8} {'makespan hetsim':>16} {'makespan Gavel':>15} {'diff':>8}")
for trace, policies in ref["runs"].items():
    path = os.path.join(args.data, "gavel", "traces", "physical_cluster", trace + ".trace")
    if not os.path.exists(path):
        sys.exit(f"gavel_fidelity: {path} not found (set HETSIM_SHARED_DATA)")
    for policy, (jct_ref, makespan_ref) in policies.items():
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([args.hetsim, "run", "--cluster", ref["cluster"], "--trace", path, "--throughputs", table,
                            "--policy", policy, "--mechanism", "gavel", "--interval", "360", "--seed", "0", "-q",
                            "--out", out], check=True)
            s = json.load(open(os.path.join(out, "summary.json")))
        d_jct = 100 * (s["jct_mean_s"] - jct_ref) / jct_ref
        d_mk = 100 * (s["makespan_s"] - makespan_ref) / makespan_ref
        worst = max(worst, abs(d_jct), abs(d_mk))
        failed |= abs(d_jct) > args.tolerance or abs(d_mk) > args.tolerance
        print(f"{trace:<20} {policy:<10} {s['jct_mean_s']:12.3f} {jct_ref:12.3f} {d_jct:+7.3f}% "
              f"{s['makespan_s']:16.3f} {makespan_ref:15.3f} {d_mk:+7.3f}%")
print(f"largest difference {worst:.3f}% (tolerance {args.tolerance}%)")
sys.exit(1 if failed else 0)
