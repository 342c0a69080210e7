#!/usr/bin/env python3
"""Table and SVG plots of the Heet experiment (experiments/heet/run.sh).

usage: report.py RESULTS_CSV OUT_DIR
Means are over seeds; ratios are a baseline's figure over heet's (>1 = heet is better), to heet
under oracle profiles and to heet under collaborative filtering from 25% profiled cells, for each
restart setting: 0 s, 30 s per (re)start for every policy (heet's default), and heet restarting every
job every round (restart=every-round, 30 s each) against the baselines' 30 s rows. Plots are plain
SVG written here (no plotting library needed).
"""
import csv
import statistics
import sys
from collections import defaultdict

COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d"]


BASELINES = ["srsf", "afs", "heet-gavel-baseline", "gavel-maxmin"]
RESTARTS = [("0", "restart cost 0 s"), ("30", "restart cost 30 s per (re)start (heet's default)"),
            ("every", "heet restarts every job every round (30 s each); baselines at 30 s")]


def load(path):
    groups = defaultdict(list)  # (scale, rate, variant, restart) -> [(jct, makespan)]
    for r in csv.DictReader(open(path)):
        variant = r["policy"] if r["profiling"] == "oracle" else f"{r['policy']}-cf{round(100 * float(r['profiling']))}"
        groups[(r["scale"], int(r["rate_per_h"]), variant, r["restart"])].append(
            (float(r["jct_mean_s"]), float(r["makespan_s"])))
    return groups


def mean_of(g, key, k):
    rows = g.get(key)
    return statistics.mean(x[k] for x in rows) if rows else None


def restart_of(variant, restart):
    """Restart setting whose runs a row of the 'restart' table uses (baselines have no every-round)."""
    return "30" if restart == "every" and variant in BASELINES else restart


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "-"


def scale_tables(g, scale, lines, ratios):
    rates = sorted({k[1] for k in g if k[0] == scale})
    if not rates:
        return
    title = "Testbed: heet-12, prototype trace" if scale == "testbed" else "Simulation: heet-120, Philly-derived"
    for restart, what in RESTARTS:
        lines += [f"## {title}; {what}", "",
                  "| rate (jobs/h) | policy | seeds | JCT mean (s) | JCT / heet | JCT / heet-cf25 | makespan (s) | "
                  "makespan / heet | makespan / heet-cf25 |", "|---|---|---|---|---|---|---|---|---|"]
        variants = ["heet", "heet-cf10", "heet-cf25", "heet-cf50"] + BASELINES
        for r in rates:
            label = "trace" if scale == "testbed" else str(r)
            hj, hm = mean_of(g, (scale, r, "heet", restart), 0), mean_of(g, (scale, r, "heet", restart), 1)
            cj, cm = mean_of(g, (scale, r, "heet-cf25", restart), 0), mean_of(g, (scale, r, "heet-cf25", restart), 1)
            for v in variants:
                key = (scale, r, v, restart_of(v, restart))
                if key not in g:
                    continue
                j, m = mean_of(g, key, 0), mean_of(g, key, 1)
                lines.append(f"| {label} | {v} | {len(g[key])} | {j:.1f} | {ratio(j, hj)} | {ratio(j, cj)} | {m:.1f} | "
                             f"{ratio(m, hm)} | {ratio(m, cm)} |")
                if v in BASELINES:
                    ratios[(scale, restart, v)].append((j / hj, m / hm, j / cj if cj else None, m / cm if cm else None))
        lines.append("")


def summary(ratios, lines):
    lines += ["## Summary: baselines against heet (mean of the rates' ratios; 'up to' = largest rate's)", "",
              "| scale | restart | baseline | JCT / heet | up to | makespan / heet | up to | JCT / heet-cf25 | "
              "makespan / heet-cf25 |", "|---|---|---|---|---|---|---|---|---|"]
    for scale in ["testbed", "sim"]:
        for restart, _ in RESTARTS:
            rows = [(v, ratios[(scale, restart, v)]) for v in BASELINES if ratios.get((scale, restart, v))]
            if not rows:
                continue
            strongest = min(rows, key=lambda vr: statistics.mean(x[0] for x in vr[1]))[0]
            for v, rs in rows:
                cf = [x for x in rs if x[2] is not None]
                name = f"**{v}** (strongest)" if v == strongest else v
                lines.append(
                    f"| {scale} | {restart} | {name} | {statistics.mean(x[0] for x in rs):.2f} | {max(x[0] for x in rs):.2f} | "
                    f"{statistics.mean(x[1] for x in rs):.2f} | {max(x[1] for x in rs):.2f} | "
                    f"{statistics.mean(x[2] for x in cf):.2f} | {statistics.mean(x[3] for x in cf):.2f} |"
                    if cf else f"| {scale} | {restart} | {name} | {statistics.mean(x[0] for x in rs):.2f} | "
                    f"{max(x[0] for x in rs):.2f} | {statistics.mean(x[1] for x in rs):.2f} | {max(x[1] for x in rs):.2f} | - | - |")
    lines.append("")


def plots(g, out_dir):
    for scale in ["testbed", "sim"]:
        rates = sorted({k[1] for k in g if k[0] == scale})
        if not rates:
            continue
        labels = ["trace"] if scale == "testbed" else [str(r) for r in rates]
        lab = dict(zip(rates, labels))
        jct, mk, pred, rst = {}, {}, {}, {}
        for r in rates:
            hj, hm = mean_of(g, (scale, r, "heet", "30"), 0), mean_of(g, (scale, r, "heet", "30"), 1)
            h0 = mean_of(g, (scale, r, "heet", "0"), 0)
            for v in ["heet"] + BASELINES:
                if (scale, r, v, "30") in g:
                    jct[(lab[r], v)] = mean_of(g, (scale, r, v, "30"), 0) / hj
                    mk[(lab[r], v)] = mean_of(g, (scale, r, v, "30"), 1) / hm
            for v in ["heet", "heet-cf10", "heet-cf25", "heet-cf50"]:
                if (scale, r, v, "0") in g:
                    pred[(lab[r], v)] = mean_of(g, (scale, r, v, "0"), 0) / h0
            for restart, _ in RESTARTS:
                if (scale, r, "heet", restart) in g:
                    rst[(lab[r], f"restart {restart}")] = mean_of(g, (scale, r, "heet", restart), 0) / h0
        present = lambda vals, names: [n for n in names if any((l, n) in vals for l in labels)]
        svg_bars(f"{scale}: average JCT relative to heet (30 s restarts)", "JCT / heet", labels,
                 present(jct, ["heet"] + BASELINES), jct, f"{out_dir}/{scale}_jct.svg")
        svg_bars(f"{scale}: makespan relative to heet (30 s restarts)", "makespan / heet", labels,
                 present(mk, ["heet"] + BASELINES), mk, f"{out_dir}/{scale}_makespan.svg")
        svg_bars(f"{scale}: heet JCT under prediction error (oracle vs CF, 0 s restarts)", "JCT / heet(oracle)", labels,
                 present(pred, ["heet", "heet-cf10", "heet-cf25", "heet-cf50"]), pred, f"{out_dir}/{scale}_prediction.svg")
        svg_bars(f"{scale}: heet JCT by restart cost", "JCT / heet(0 s)", labels,
                 present(rst, [f"restart {r}" for r, _ in RESTARTS]), rst, f"{out_dir}/{scale}_restart.svg")


def svg_bars(title, ylabel, groups, series, values, path):
    """Grouped bar chart: groups on x, one bar per series; values[(group, series)] -> number."""
    w, h, left, bottom, top = 760, 380, 70, 50, 40
    plot_w, plot_h = w - left - 20, h - top - bottom
    vmax = max([v for v in values.values() if v is not None] + [1e-9]) * 1.1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
           f'<text x="15" y="{top + plot_h / 2}" transform="rotate(-90 15 {top + plot_h / 2})" text-anchor="middle">{ylabel}</text>',
           f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="black"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="black"/>']
    for k in range(6):
        v = vmax * k / 5
        y = top + plot_h - plot_h * k / 5
        out.append(f'<text x="{left - 5}" y="{y + 4}" text-anchor="end">{v:.3g}</text>')
        out.append(f'<line x1="{left}" y1="{y}" x2="{left + plot_w}" y2="{y}" stroke="#ddd"/>')
    gw = plot_w / max(1, len(groups))
    bw = gw * 0.8 / max(1, len(series))
    for gi, g in enumerate(groups):
        out.append(f'<text x="{left + gw * (gi + 0.5)}" y="{top + plot_h + 18}" text-anchor="middle">{g}</text>')
        for si, s in enumerate(series):
            v = values.get((g, s))
            if v is None:
                continue
            bh = plot_h * v / vmax
            x = left + gw * gi + gw * 0.1 + bw * si
            out.append(f'<rect x="{x:.1f}" y="{top + plot_h - bh:.1f}" width="{bw * 0.95:.1f}" height="{bh:.1f}" '
                       f'fill="{COLORS[si % len(COLORS)]}"><title>{s} {g}: {v:.4g}</title></rect>')
    for si, s in enumerate(series):
        x = left + 10 + 120 * si
        out.append(f'<rect x="{x}" y="{h - 18}" width="10" height="10" fill="{COLORS[si % len(COLORS)]}"/>')
        out.append(f'<text x="{x + 14}" y="{h - 9}">{s}</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def main():
    csv_path, out_dir = sys.argv[1], sys.argv[2]
    g = load(csv_path)
    lines = ["# Heet experiment results", "",
             "Means over seeds; ratio = policy / heet under the same restart setting (oracle profiles, or CF from 25%",
             "profiled cells); > 1 means heet is better. Baselines plan with the true throughputs.", ""]
    ratios = defaultdict(list)
    for scale in ["testbed", "sim"]:
        scale_tables(g, scale, lines, ratios)
    summary(ratios, lines)
    plots(g, out_dir)
    open(f"{out_dir}/table.md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
