#!/usr/bin/env python3
"""Cross-simulator fidelity: runs hetsim on the Pollux simulator's 8 workloads and compares the
average JCT with the Pollux simulator's published figures (experiments/pollux/reference.json).

Usage: scripts/pollux_fidelity.py [--hetsim build/release/hetsim] [--data ../shared/data]
         [--policies tiresias,optimus,pollux] [--out out/pollux-fidelity]
         [--reference-jobs DIR]   # folder with <policy>.json = the simulator's summary.json files
                                  # (results-jobload/<policy>-1.0/summary.json) for per-job diffs
Prints a markdown table; exits 1 when a tiresias/optimus cell misses the tolerance.
Standard library only."""
import argparse, csv, json, os, subprocess, sys

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser()
    ap.add_argument("--hetsim", default=os.path.join(root, "build/release/hetsim"))
    ap.add_argument("--data", default=os.path.join(root, "../shared/data"))
    ap.add_argument("--policies", default="tiresias,optimus,pollux")
    ap.add_argument("--out", default=os.path.join(root, "out/pollux-fidelity"))
    ap.add_argument("--reference-jobs", default=None)
    ap.add_argument("--top", type=int, default=3, help="largest per-job differences to list per cell")
    args = ap.parse_args()
    ref = json.load(open(os.path.join(root, "experiments/pollux/reference.json")))
    tol = ref["tolerance"]
    failed = False
    rows = []
    details = []
    for policy in args.policies.split(","):
        ref_jobs = None
        if args.reference_jobs:
            path = os.path.join(args.reference_jobs, policy + ".json")
            if os.path.exists(path):
                ref_jobs = json.load(open(path))["jcts"]
        for n in range(1, 9):
            wl = os.path.join(args.data, "pollux/workloads/workload-%d.csv" % n)
            out = os.path.join(args.out, "%s-%d" % (policy, n))
            subprocess.run([args.hetsim, "run", "--cluster", ref["cluster"], "--workload", wl, "--policy", policy,
                            "--interval", str(ref["interval_s"]), "--out", out, "-q"], check=True)
            summary = json.load(open(os.path.join(out, "summary.json")))
            mine = summary["jct_mean_s"]
            theirs = ref["jct_mean_s"].get(policy, {}).get(str(n))
            diff = (mine - theirs) / theirs if theirs else None
            checked = policy in ("tiresias", "optimus")
            ok = diff is not None and abs(diff) <= tol
            if checked and not ok:
                failed = True
            rows.append((policy, n, mine, theirs, diff, summary["restarts"], ok if checked else None))
            if ref_jobs:
                jobs = {r["job_id"]: float(r["jct_s"]) for r in csv.DictReader(open(os.path.join(out, "jobs.csv"))) if r["jct_s"]}
                theirs_jobs = ref_jobs["workload-%d" % n]
                diffs = sorted(((jobs[k] - v, k, jobs[k], v) for k, v in theirs_jobs.items() if k in jobs),
                               key=lambda d: -abs(d[0]))
                contrib = sum(d[0] for d in diffs) / len(theirs_jobs)
                within = sum(1 for d in diffs if abs(d[0]) <= max(60.0, 0.05 * d[3])) / len(diffs)
                top = ", ".join("%s %+.0f s (%.0f vs %.0f)" % (k, d, a, b) for d, k, a, b in diffs[: args.top])
                details.append("| %s | %d | %.0f%% | %+.1f | %s |" % (policy, n, 100 * within, contrib, top))
    print("| policy | workload | hetsim jct_mean_s | Pollux simulator | difference | hetsim restarts | within %d%% |" % round(100 * tol))
    print("|---|---|---|---|---|---|---|")
    for policy, n, mine, theirs, diff, restarts, ok in rows:
        print("| %s | %d | %.2f | %s | %s | %d | %s |" % (
            policy, n, mine, "%.2f" % theirs if theirs else "-", "%+.2f%%" % (100 * diff) if diff is not None else "-",
            restarts, {True: "yes", False: "NO", None: "(not a target)"}[ok]))
    if details:
        print()
        print("| policy | workload | jobs within max(60 s, 5%) | mean of per-job diffs (s) | largest per-job differences (hetsim vs Pollux) |")
        print("|---|---|---|---|---|")
        for d in details:
            print(d)
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
