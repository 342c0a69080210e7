#!/usr/bin/env python3
"""Figures from a `hetsim sweep` output folder (docs/EXPERIMENTS.md).

    python3 scripts/plot.py out/gavel108-load                 # figures in out/gavel108-load/figures/
    python3 scripts/plot.py OUT --baseline fifo --x generator.jobs_per_hour --where seed=0

Reads OUT/points.csv, OUT/results.csv and each point's jobs.csv and utilization.csv, and writes:
  jct_cdf.png       CDF of job completion time per policy (all completed jobs of the selected points)
  jct_vs_load.png   average JCT vs the load axis, mean over the other axes (seeds), min-max bars
  jct_ratio.png     average JCT of each policy divided by the baseline's, per load value
  utilization.png   busy GPUs over time per policy, for one point per policy
Each policy keeps one colour in every figure (and the same colour across experiments for the
built-in policy names). Needs Debian's python3-matplotlib and python3-pandas (scripts/setup.sh).
"""
import argparse
import os
import sys

try:
    import matplotlib
    import pandas as pd
except ImportError:
    # A python3 first on PATH (pyenv, venv) may lack Debian's packages: retry with the system one.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("plot.py: needs matplotlib and pandas (apt-get install python3-matplotlib python3-pandas)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Fixed colours for policy names, so a policy looks the same in every experiment's figures.
KNOWN_COLOURS = {
    "fifo": "#1f77b4", "srtf": "#ff7f0e", "fifo-perf": "#2ca02c", "gavel-maxmin": "#d62728",
    "gavel-ftf": "#9467bd", "gavel-throughput": "#8c564b", "gavel-makespan": "#e377c2",
    "sia": "#7f7f7f", "afs": "#bcbd22", "pollux": "#17becf", "heet": "#000000",
}
SPARE_COLOURS = ["#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d",
                 "#31a354", "#756bb1", "#636363", "#6baed6", "#fd8d3c"]


def colours_for(policies):
    """One colour per policy label: known names first, then spare colours in spec order."""
    out, spare = {}, iter(SPARE_COLOURS * 4)
    for p in policies:
        base = p.split("(")[0]
        out[p] = KNOWN_COLOURS.get(p) or (KNOWN_COLOURS.get(base) if base == p else None) or next(spare)
    return out


def parse_where(items):
    where = {}
    for item in items or []:
        if "=" not in item:
            sys.exit(f"plot.py: --where expects AXIS=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        where[k] = v
    return where


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sweep_dir", help="output folder of `hetsim sweep` (holds results.csv)")
    ap.add_argument("--out", help="figure folder (default: SWEEP_DIR/figures)")
    ap.add_argument("--baseline", help="policy the ratios divide by (default: the first policy)")
    ap.add_argument("--x", help="load axis (default: generator.jobs_per_hour, else the first numeric axis but seed)")
    ap.add_argument("--where", action="append", help="AXIS=VALUE: only these points in the CDF and utilisation plots")
    args = ap.parse_args()

    d = args.sweep_dir
    points = pd.read_csv(os.path.join(d, "points.csv"), dtype=str)
    results = pd.read_csv(os.path.join(d, "results.csv"), dtype={"point": str, "policy": str})
    fig_dir = args.out or os.path.join(d, "figures")
    os.makedirs(fig_dir, exist_ok=True)
    axes = [c for c in points.columns if c not in ("index", "point", "policy")]
    policies = list(dict.fromkeys(points["policy"]))
    colour = colours_for(policies)
    baseline = args.baseline or policies[0]
    if baseline not in policies:
        sys.exit(f"plot.py: baseline {baseline!r} is not one of {policies}")

    def numeric(col):
        return pd.to_numeric(points[col], errors="coerce").notna().all()

    x = args.x
    if x is None:
        candidates = [a for a in axes if a != "seed" and numeric(a)]
        x = "generator.jobs_per_hour" if "generator.jobs_per_hour" in axes else (candidates[0] if candidates else None)
    if x is not None and x not in axes:
        sys.exit(f"plot.py: --x {x!r} is not an axis of this sweep ({', '.join(axes) or 'none'})")

    where = parse_where(args.where)
    for k in where:
        if k not in axes:
            sys.exit(f"plot.py: --where {k!r} is not an axis of this sweep ({', '.join(axes) or 'none'})")
    done = set(results["point"])
    selected = points[points["point"].isin(done)]
    for k, v in where.items():
        selected = selected[selected[k] == v]
    written = []

    # 1. JCT CDF per policy.
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for p in policies:
        jcts = []
        for pt in selected[selected["policy"] == p]["point"]:
            jobs = pd.read_csv(os.path.join(d, "points", pt, "jobs.csv"))
            jcts.extend(jobs.loc[jobs["status"] == "completed", "jct_s"] / 3600.0)
        if not jcts:
            continue
        s = pd.Series(sorted(jcts))
        ax.step(s, (s.index + 1) / len(s), where="post", label=p, color=colour[p])
    ax.set_xscale("log")
    ax.set_xlabel("job completion time (hours, log scale)")
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1)
    ax.grid(True, alpha=0.3)
    sel = ", ".join(f"{k}={v}" for k, v in where.items()) or "all points"
    ax.set_title(f"JCT CDF ({sel})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(fig_dir, "jct_cdf.png"), dpi=120)
    plt.close(fig)
    written.append("jct_cdf.png")

    jct = results[results["metric"] == "jct_mean_s"].copy()
    jct["jct_h"] = jct["value"].astype(float) / 3600.0
    if x is not None and len(jct):
        jct["x"] = pd.to_numeric(jct[x].astype(str), errors="coerce")
        # 2. Average JCT vs load: mean over the remaining axes (seeds), min-max as error bars.
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for p in policies:
            g = jct[jct["policy"] == p].groupby("x")["jct_h"]
            if g.ngroups == 0:
                continue
            mean, lo, hi = g.mean(), g.min(), g.max()
            ax.errorbar(mean.index, mean.values, yerr=[mean - lo, hi - mean], label=p, color=colour[p],
                        marker="o", capsize=3)
        ax.set_xlabel("input job rate (jobs/hour)" if x == "generator.jobs_per_hour" else x)
        ax.set_ylabel("average JCT (hours)")
        ax.grid(True, alpha=0.3)
        ax.set_title("Average JCT vs load (mean over seeds; bars: min-max)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(fig_dir, "jct_vs_load.png"), dpi=120)
        plt.close(fig)
        written.append("jct_vs_load.png")

    # 3. JCT ratio to the baseline: per matching point (same axis values), then averaged per x value.
    if len(jct):
        keys = axes
        base = jct[jct["policy"] == baseline].set_index(keys)["value"].astype(float) if keys else None
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        groups = sorted(jct["x"].dropna().unique()) if x is not None else [None]
        width = 0.8 / max(len(policies), 1)
        for i, p in enumerate(policies):
            rows = jct[jct["policy"] == p]
            if keys:
                ratio = rows.set_index(keys)["value"].astype(float) / base
                ratio = ratio.reset_index()
            else:
                ratio = pd.DataFrame({"value": [float(rows["value"].iloc[0]) /
                                                float(jct[jct["policy"] == baseline]["value"].iloc[0])]})
            if x is not None:
                ratio["x"] = pd.to_numeric(ratio[x].astype(str), errors="coerce")
                means = [ratio[ratio["x"] == g]["value"].mean() for g in groups]
            else:
                means = [ratio["value"].mean()]
            pos = [j + (i - (len(policies) - 1) / 2) * width for j in range(len(groups))]
            ax.bar(pos, means, width=width, label=p, color=colour[p])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([f"{g:g}" for g in groups] if x is not None else ["all"])
        ax.set_xlabel(("input job rate (jobs/hour)" if x == "generator.jobs_per_hour" else x) if x else "")
        ax.set_ylabel(f"average JCT / {baseline}'s (ratio)")
        ax.set_title(f"JCT relative to {baseline} (lower is better)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(fig_dir, "jct_ratio.png"), dpi=120)
        plt.close(fig)
        written.append("jct_ratio.png")

    # 4. Utilisation over time: the first selected point of each policy.
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    shown = []
    for p in policies:
        pts = list(selected[selected["policy"] == p]["point"])
        path = os.path.join(d, "points", pts[0], "utilization.csv") if pts else None
        if not path or not os.path.exists(path):
            continue
        u = pd.read_csv(path)
        ax.step(u["time_s"] / 3600.0, 100.0 * u["utilization"], where="post", label=p, color=colour[p], linewidth=1)
        shown.append(pts[0])
    ax.set_xlabel("simulated time (hours)")
    ax.set_ylabel("busy GPUs (% of cluster)")
    ax.set_ylim(0, 105)
    ax.grid(True, alpha=0.3)
    title = shown[0].split("__", 1)[1] if shown and "__" in shown[0] else "single point"
    ax.set_title(f"Utilisation over time ({title.replace('__', ', ')})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(fig_dir, "utilization.png"), dpi=120)
    plt.close(fig)
    written.append("utilization.png")

    for w in written:
        print(os.path.join(fig_dir, w))


if __name__ == "__main__":
    main()
