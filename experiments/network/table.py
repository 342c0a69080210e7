"""Markdown tables of the oversubscription sweep (experiments/network/run.sh): per policy, uplink
oversubscription and placement, mean JCT averaged over the traces with the network alone and
shared, and in how many traces each placement had the lowest mean JCT of the four (ties count
for each placement tied)."""
import csv
import re
import sys
from collections import defaultdict
from statistics import mean

PLACEMENTS = ["consolidate", "spread", "topology-aware", "network-aware"]


def load(path):
    jct = {}  # (policy, ratio, trace, placement, network) -> mean JCT (s)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["metric"] != "jct_mean_s":
                continue
            ratio = int(re.search(r"(\d+)to1", row["cluster"]).group(1))
            trace = re.search(r"([0-9a-f]+)\.trace", row["trace"]).group(1)
            jct[(row["policy"], ratio, trace, row["placement"], row["network"])] = float(row["value"])
    return jct


def wins(jct, policy, ratio, traces, network):
    count = defaultdict(int)  # placements tied for the lowest JCT all count
    for t in traces:
        best = min(jct[(policy, ratio, t, p, network)] for p in PLACEMENTS)
        for p in PLACEMENTS:
            count[p] += jct[(policy, ratio, t, p, network)] == best
    return count


def main(path):
    jct = load(path)
    traces = sorted({k[2] for k in jct})
    for policy in sorted({k[0] for k in jct}, reverse=True):
        print(f"\n{policy}, mean over {len(traces)} traces ({', '.join(traces)}); JCT in seconds\n")
        print("| uplinks | placement | JCT alone | JCT shared | shared / alone | best alone | best shared |")
        print("|---|---|---|---|---|---|---|")
        for ratio in sorted({k[1] for k in jct}):
            won = {n: wins(jct, policy, ratio, traces, n) for n in ("alone", "shared")}
            for p in PLACEMENTS:
                alone = mean(jct[(policy, ratio, t, p, "alone")] for t in traces)
                shared = mean(jct[(policy, ratio, t, p, "shared")] for t in traces)
                print(f"| {ratio}:1 | {p} | {alone:,.0f} | {shared:,.0f} | {shared / alone:.2f} | "
                      f"{won['alone'][p]}/{len(traces)} | {won['shared'][p]}/{len(traces)} |")


if __name__ == "__main__":
    main(sys.argv[1])
