#!/usr/bin/env python3
"""Selects the first N jobs of the Philly log (POLLUX-PHILLY, ../shared/data/pollux/traces/philly.csv)
and writes them twice, for a side-by-side run:
  OUT/philly-N.csv   the same format (hetsim's philly reader), rows in submission order;
  OUT/tiresias-N.csv the job trace of the Tiresias simulator (SymbioticLab/Tiresias, simulator/):
                     job_id,num_gpu,submit_time,iterations,model_name,duration,interval
and the jobs' GPU-service for the simulator's gittins scheduler:
  OUT/gput-N.csv     one `duration` column, duration x num_gpu (GPU-seconds) per job, in job order;
                     put in the simulator's folder as yarn-gput1000.csv, its parse_job_dist() file
                     (hetsim's tiresias-gittins computes the same from the run's jobs by default)
"First N jobs": rows with an integer duration >= 1 s and 1 <= num_gpus <= GPUS, ordered by
submission timestamp (ties: file order), the N earliest. Submit times are seconds after the
earliest selected submission (hetsim's philly reader counts from the earliest row of its file, the
same instant). Durations are whole seconds in the log; the Tiresias simulator truncates with
int(float()), so a fractional one is refused here rather than rounded differently by each side.
iterations and interval are unused by the Tiresias schedulers; model_name only sizes the
simulated PS traffic, which no scheduler reads (resnet50 for every job)."""
import argparse
import csv
import datetime
import os
import sys


def fail(msg):
    print("convert_philly.py: " + msg, file=sys.stderr)
    sys.exit(2)


def read_rows(path, max_gpus):
    rows = []
    try:
        f = open(path, newline="")
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    with f:
        reader = csv.DictReader(f)
        for name in ("timestamp", "duration", "num_gpus"):
            if name not in (reader.fieldnames or []):
                fail("%s:1: no column '%s'" % (path, name))
        for line_no, row in enumerate(reader, start=2):
            try:
                stamp = datetime.datetime.strptime(row["timestamp"], "%Y-%m-%d %H:%M:%S")
                duration = float(row["duration"])
                gpus = int(row["num_gpus"])
            except (ValueError, TypeError) as e:
                fail("%s:%d: bad timestamp/duration/num_gpus: %s" % (path, line_no, e))
            if duration != int(duration):
                fail("%s:%d: duration %r is not whole seconds" % (path, line_no, row["duration"]))
            if int(duration) < 1 or gpus < 1 or gpus > max_gpus:
                continue
            rows.append((stamp, line_no, row, int(duration), gpus))
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--philly", required=True, help="POLLUX-PHILLY csv")
    ap.add_argument("--jobs", type=int, default=3000)
    ap.add_argument("--max-gpus", type=int, default=256)
    ap.add_argument("--out", required=True, help="output folder")
    args = ap.parse_args()
    if args.jobs < 1:
        fail("--jobs must be >= 1")
    rows = read_rows(args.philly, args.max_gpus)[: args.jobs]
    if len(rows) < args.jobs:
        fail("%s: only %d jobs pass the filter, %d asked" % (args.philly, len(rows), args.jobs))
    os.makedirs(args.out, exist_ok=True)
    t0 = rows[0][0]
    with open(os.path.join(args.out, "philly-%d.csv" % args.jobs), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["timestamp", "duration", "num_gpus", "gpu_time", "cluster"])
        for stamp, _, row, duration, gpus in rows:
            w.writerow([row["timestamp"], row["duration"], gpus, row["gpu_time"], row["cluster"]])
    with open(os.path.join(args.out, "tiresias-%d.csv" % args.jobs), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["job_id", "num_gpu", "submit_time", "iterations", "model_name", "duration", "interval"])
        for i, (stamp, _, row, duration, gpus) in enumerate(rows):
            submit_s = int((stamp - t0).total_seconds())
            w.writerow([i, gpus, submit_s, 1, "resnet50", duration, 0])
    with open(os.path.join(args.out, "gput-%d.csv" % args.jobs), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["duration"])
        for stamp, _, row, duration, gpus in rows:
            w.writerow([duration * gpus])


if __name__ == "__main__":
    main()
