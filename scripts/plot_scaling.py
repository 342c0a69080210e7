#!/usr/bin/env python3
"""Speed-up against nodes from `hetsim scaling --out DIR` (DIR/scaling.csv): one line per
synchronisation scheme, one panel per background setting (alone, with background jobs).

usage: python3 scripts/plot_scaling.py results/scaling.csv docs/figures/isorc_scaling.png [--title TEXT]
"""
import argparse
import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"ps": "s-", "ring": "o-", "hierarchical": "^-", "auto": "D--"}


def read_rows(path):
    # (background, scheme) -> [(nodes, speedup)] in file order, and the compute-only bound: the
    # speed-up if synchronisation were free, gpus / compute_s over the 1-node throughput. Nodes
    # of slower GPU types add less than one node's worth, so this bound, not n, is the ideal.
    series = defaultdict(list)
    bound = {}
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    one_node = {(r["background"], r["scheme"]): float(r["throughput_iters_per_s"]) for r in rows if r["nodes"] == "1"}
    for row in rows:
        series[(int(row["background"]), row["scheme"])].append((int(row["nodes"]), float(row["speedup"])))
        base = one_node[(row["background"], row["scheme"])]
        bound.setdefault(int(row["nodes"]), int(row["gpus"]) / float(row["compute_s"]) / base)
    return series, bound


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    series, bound = read_rows(args.csv)
    settings = sorted({bg for bg, _ in series})
    schemes = list(dict.fromkeys(s for _, s in series))
    fig, axes = plt.subplots(1, len(settings), figsize=(5.2 * len(settings), 4.2), sharey=True, squeeze=False)
    for ax, bg in zip(axes[0], settings):
        for scheme in schemes:
            points = series.get((bg, scheme))
            if not points:
                continue
            nodes, speedup = zip(*points)
            ax.plot(nodes, speedup, STYLE.get(scheme, "x-"), label=scheme, markersize=4)
        ns = sorted(bound)
        ax.plot(ns, [bound[n] for n in ns], ":", color="grey", label="compute only (free sync)")
        ax.set_title("alone" if bg == 0 else f"with {bg} background ring jobs")
        ax.set_xlabel("nodes (4 GPUs each)")
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("speed-up over 1 node (throughput)")
    axes[0][-1].legend(loc="upper left", fontsize=8)
    if args.title:
        fig.suptitle(args.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
