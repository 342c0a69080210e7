#!/usr/bin/env python3
"""Table and SVG plots of the Heet experiment (experiments/heet/run.sh).

usage: report.py RESULTS_CSV OUT_DIR
Means are over seeds; ratios are to heet under oracle profiles (>1 = worse than heet). Plots are
plain SVG written here (no plotting library needed).
"""
import csv
import statistics
import sys
from collections import defaultdict

COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d"]


def load(path):
    groups = defaultdict(list)  # (scale, rate, variant) -> [(jct, makespan)]
    for r in csv.DictReader(open(path)):
        variant = r["policy"] if r["profiling"] == "oracle" else f"{r['policy']}-cf{round(100 * float(r['profiling']))}"
        groups[(r["scale"], int(r["rate_per_h"]), variant)].append((float(r["jct_mean_s"]), float(r["makespan_s"])))
    return groups


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
             "Means over seeds; ratio = policy / heet (oracle profiles); > 1 means heet is better.", ""]
    for scale in ["testbed", "sim"]:
        rates = sorted({k[1] for k in g if k[0] == scale})
        variants = sorted({k[2] for k in g if k[0] == scale}, key=lambda v: (v != "heet", "-cf" in v, v))
        if not rates:
            continue
        lines += [f"## {'Testbed: heet-12, prototype trace' if scale == 'testbed' else 'Simulation: heet-120, Philly-derived'}", "",
                  "| rate (jobs/h) | policy | seeds | JCT mean (s) | JCT / heet | makespan (s) | makespan / heet |",
                  "|---|---|---|---|---|---|---|"]
        jct_vals, mk_vals = {}, {}
        for r in rates:
            base = g.get((scale, r, "heet"))
            bj = statistics.mean(x[0] for x in base) if base else None
            bm = statistics.mean(x[1] for x in base) if base else None
            for v in variants:
                rows = g.get((scale, r, v))
                if not rows:
                    continue
                j = statistics.mean(x[0] for x in rows)
                m = statistics.mean(x[1] for x in rows)
                label = "trace" if scale == "testbed" else str(r)
                lines.append(f"| {label} | {v} | {len(rows)} | {j:.1f} | {j / bj:.2f} | {m:.1f} | {m / bm:.2f} |")
                jct_vals[(label, v)] = j / bj
                mk_vals[(label, v)] = m / bm
        lines.append("")
        labels = ["trace"] if scale == "testbed" else [str(r) for r in rates]
        oracle = [v for v in variants if "-cf" not in v]
        svg_bars(f"{scale}: average JCT relative to heet", "JCT / heet", labels, oracle, jct_vals, f"{out_dir}/{scale}_jct.svg")
        svg_bars(f"{scale}: makespan relative to heet", "makespan / heet", labels, oracle, mk_vals,
                 f"{out_dir}/{scale}_makespan.svg")
        heet_variants = [v for v in variants if v.startswith("heet")]
        svg_bars(f"{scale}: heet JCT under prediction error (oracle vs CF)", "JCT / heet(oracle)", labels, heet_variants,
                 jct_vals, f"{out_dir}/{scale}_prediction.svg")
    open(f"{out_dir}/table.md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
