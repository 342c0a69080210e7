#!/usr/bin/env python3
"""Sia fidelity: runs hetsim's `sia` (and `pollux`) on Sia's 10 saturn (Helios) workloads on the
sia-64 cluster in 60-s rounds with Sia's per-application restart times, and compares
  - the ratio of average JCTs Pollux / Sia with the Sia paper's Table 3 (reference.json), and
  - with --artifact DIR (or SIA_ARTIFACT=DIR): the average JCT of Sia's own simulator
    (siasosp23/artifacts, sia-simulator/) run on the same workloads with the stand-ins of shims/
    for cvxpy, autograd and rich (see README.md), per workload.
CPU seconds of each hetsim run are measured with getrusage (children), as /usr/bin/time would.

Usage: experiments/sia/fidelity.py [--hetsim build/release/hetsim] [--data ../shared/data]
         [--out out/sia-fidelity] [--workloads 1,2,...] [--workload-dir DIR] [--policies sia,pollux]
         [--artifact DIR]
         [--artifact-jobs N]   # the artifact on the first N jobs of each workload only (it is slow)
Exit 0 when every run completed every job, 1 otherwise, 2 on bad input."""
import argparse
import json
import os
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_hetsim(args, policy, workload, out):
    cmd = [args.hetsim, "run", "--cluster", "sia-64", "--workload", workload, "--policy", policy, "--interval", "60",
           "--sia-restart-costs", "--profiles", os.path.join(args.data, "sia/traces"), "--profiles",
           os.path.join(args.data, "pollux/traces"), "--out", out, "-q"]
    before = cpu_s()
    subprocess.run(cmd, check=True)
    used = cpu_s() - before
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return summary, used


def cut_workload(workload, n, out_dir):
    """The first n jobs of a workload (all of it for n = 0), as a file in out_dir."""
    if not n:
        return workload
    os.makedirs(out_dir, exist_ok=True)
    cut = os.path.join(out_dir, "%s-first%d.csv" % (os.path.basename(workload)[:-4], n))
    with open(workload) as src, open(cut, "w") as dst:
        for i, line in enumerate(src):
            if i > n:
                break
            dst.write(line)
    return cut


def run_artifact(args, workload, out_dir):
    """Sia's simulator on one workload file; returns its average JCT (s)."""
    os.makedirs(out_dir, exist_ok=True)
    name = os.path.basename(workload)[:-4]
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "shims"))
    log = os.path.join(out_dir, name + ".out")
    cmd = ["/usr/bin/python3", "-u", "multi_simulator.py", os.path.abspath(workload), "--policy=sia",
           "--policy_p_val=-0.5", "--mip_lambda_a=0.01", "--mip_lambda_n=1.1", "--interval=60",
           "--project_throughput", "--share_max_replicas", "--output=" + os.path.join(out_dir, name + ".log")]
    with open(log, "w") as f:
        subprocess.run(cmd, cwd=args.artifact, env=env, stdout=f, stderr=subprocess.STDOUT, check=True)
    last = None
    with open(log) as f:
        for line in f:
            if line.startswith("Average JCT:"):
                last = float(line.split(":")[1])
    return last


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hetsim", default=os.path.join(ROOT, "build/release/hetsim"))
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data"))
    ap.add_argument("--out", default=os.path.join(ROOT, "out/sia-fidelity"))
    ap.add_argument("--workloads", default="", help="comma-separated numbers; default: every workload-N.csv present")
    ap.add_argument("--policies", default="sia,pollux")
    ap.add_argument("--artifact", default=os.environ.get("SIA_ARTIFACT", ""),
                    help="Sia's sia-simulator/ folder (siasosp23/artifacts); default $SIA_ARTIFACT")
    ap.add_argument("--artifact-jobs", type=int, default=0)
    ap.add_argument("--workload-dir", default="",
                    help="folder of workload-N.csv (default DATA/sia/workloads/saturn, which holds 1-5; the artifact's "
                         "sia-simulator/workloads/saturn has 1-10); profiles always come from DATA")
    args = ap.parse_args()
    with open(os.path.join(HERE, "reference.json")) as f:
        ref = json.load(f)
    policies = args.policies.split(",")
    rows, ok = [], True
    folder = args.workload_dir or os.path.join(args.data, "sia/workloads/saturn")
    numbers = args.workloads.split(",") if args.workloads else sorted(
        (f[len("workload-"):-len(".csv")] for f in os.listdir(folder) if f.startswith("workload-") and f.endswith(".csv"))
        if os.path.isdir(folder) else [], key=int)
    if not numbers:
        print("fidelity.py: no workload-N.csv in %s (see experiments/sia/README.md)" % folder, file=sys.stderr)
        return 2
    for w in numbers:
        workload = os.path.join(folder, "workload-%s.csv" % w)
        if not os.path.exists(workload):
            print("fidelity.py: %s is absent (see experiments/sia/README.md)" % workload, file=sys.stderr)
            return 2
        row = {"workload": w}
        for p in policies:
            out = os.path.join(args.out, p, "workload-%s" % w)
            summary, used = run_hetsim(args, p, workload, out)
            ok = ok and summary["completed"] == summary["jobs_read"]
            row[p] = summary["jct_mean_s"]
            row[p + "_cpu_s"] = used
            row[p + "_completed"] = summary["completed"]
        if args.artifact:
            cut = cut_workload(workload, args.artifact_jobs, os.path.join(args.out, "cut"))
            row["artifact"] = run_artifact(args, cut, os.path.join(args.out, "artifact"))
            summary, _ = run_hetsim(args, "sia", cut, os.path.join(args.out, "sia-cut", "workload-%s" % w))
            row["sia_same_jobs"] = summary["jct_mean_s"]
        rows.append(row)
    head = "| workload | " + " | ".join("hetsim %s JCT (s) | CPU s" % p for p in policies)
    if "sia" in policies and "pollux" in policies:
        head += " | pollux / sia"
    print(head + " |")
    print("|---" * (1 + 2 * len(policies) + ("sia" in policies and "pollux" in policies)) + "|")
    for r in rows:
        cells = [r["workload"]]
        for p in policies:
            cells += ["%.0f" % r[p], "%.1f" % r[p + "_cpu_s"]]
        if "sia" in policies and "pollux" in policies:
            cells.append("%.2f" % (r["pollux"] / r["sia"]))
        print("| " + " | ".join(cells) + " |")
    if "sia" in policies and "pollux" in policies:
        mean = {p: sum(r[p] for r in rows) / len(rows) for p in policies}
        paper = ref["paper_table3_helios_avg_jct_h"]
        print("\nmean over %d workloads: sia %.0f s (%.2f h), pollux %.0f s (%.2f h); pollux / sia = %.2f "
              "(paper, Table 3 Helios: %.1f h / %.1f h = %.2f)" % (len(rows), mean["sia"], mean["sia"] / 3600,
                                                                   mean["pollux"], mean["pollux"] / 3600,
                                                                   mean["pollux"] / mean["sia"], paper["pollux"],
                                                                   paper["sia"], paper["pollux"] / paper["sia"]))
    if args.artifact:
        print("\n| workload | artifact Sia JCT (s) | hetsim sia (same jobs) | error |")
        print("|---|---|---|---|")
        for r in rows:
            mine = r["sia_same_jobs"]
            theirs = r["artifact"]
            print("| %s | %.0f | %.0f | %+.1f%% |" % (r["workload"], theirs, mine, 100.0 * (mine - theirs) / theirs))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
