#!/usr/bin/env python3
"""One self-contained HTML page from a hetsim output folder (run, compare or sweep).

    python3 scripts/report.py out/gavel                # writes out/gavel/report.html
    python3 scripts/report.py out/cmp -o cmp.html

The page opens offline: inline CSS, the figures of scripts/plot.py as inline SVG, no script, no
external URL. It holds the summary metrics (per policy, per point, mean over seeds), the figures,
the run settings and the versions; for a run folder also a timeline drawn as SVG here: one bar
per job allocation coloured by GPU type (from *.allocations.csv, else jobs.csv), queue length
and busy GPUs per type over time (from *.utilization.csv, else reconstructed from jobs.csv).
The same folder gives the same bytes (no timestamps). Prints the path of the page; a folder
that is not a hetsim output folder or a malformed file exits 2 with `report: PATH: problem`.
"""
import argparse
import html
import io
import math
import os
import platform
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402  (re-runs this script with /usr/bin/python3 when matplotlib is missing)
from output_file import OutputFileError, write_output  # noqa: E402
from plot import FolderError, np, pd, plt  # noqa: E402

TIMELINE_JOB_CAP = 300      # job rows drawn in the timeline
DASH = "\u2014"
SVG_SCALE = 1.8           # figure size on the page: px per pt of the matplotlib figure


def esc(value):
    return html.escape(str(value), quote=True)


# ---------------------------------------------------------------------------------------------
# Number formatting.

def finite(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def fmt_number(x):
    """About three significant digits, thousands separated; a dash for a missing value."""
    if not finite(x):
        return DASH
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    if a == 0:
        return "0"
    if a >= 0.001:
        return f"{x:.3f}"
    return f"{x:.2g}"


def fmt_count(x):
    return f"{int(round(x)):,}" if finite(x) else DASH


def fmt_percent(x):
    return f"{100 * x:.1f}" if finite(x) else DASH


def fmt_seconds_exact(x):
    return f"{x:,.3f} s" if finite(x) else ""


# Columns of the metric tables: (summary key, header, kind); kind time/count/percent.
METRICS = [
    ("jobs_read", "jobs", "count"),
    ("completed", "completed", "count"),
    ("rejected", "rejected", "count"),
    ("unfinished", "unfinished", "count"),
    ("jct_mean_s", "mean JCT", "time"),
    ("jct_p50_s", "median JCT", "time"),
    ("jct_p95_s", "p95 JCT", "time"),
    ("queueing_mean_s", "mean queueing delay", "time"),
    ("makespan_s", "makespan", "time"),
    ("utilization", "utilisation", "percent"),
]
OPTIONAL_METRICS = {"rejected", "unfinished"}   # shown only when some run has one


def metric_columns(runs):
    cols = []
    for key, header, kind in METRICS:
        if key in OPTIONAL_METRICS and not any(finite(r.metric(key)) and r.metric(key) > 0 for r in runs):
            continue
        if kind == "time":
            unit = plot.time_unit(max((r.metric(key) for r in runs if finite(r.metric(key))), default=0))
            cols.append((key, f"{header} ({unit.short})", kind, unit))
        elif kind == "percent":
            cols.append((key, f"{header} (%)", kind, None))
        else:
            cols.append((key, header, kind, None))
    return cols


def cell(value, kind, unit):
    if kind == "time":
        text = fmt_number(value / unit.seconds) if finite(value) else DASH
        return f'<td class="num" title="{esc(fmt_seconds_exact(value))}">{esc(text)}</td>'
    if kind == "percent":
        return f'<td class="num">{esc(fmt_percent(value))}</td>'
    return f'<td class="num">{esc(fmt_count(value))}</td>'


def swatch(colour):
    return f'<span class="swatch" style="background:{esc(colour)}"></span>'


def policy_cell(label):
    return f'<td class="policy">{swatch(plot.policy_colour(label))}{esc(label)}</td>'


# ---------------------------------------------------------------------------------------------
# Tables.

def table_per_run(out, runs, first_headers, first_cells, caption):
    cols = metric_columns(runs)
    head = "".join(f"<th>{esc(h)}</th>" for h in first_headers) + "".join(f"<th>{esc(c[1])}</th>" for c in cols)
    rows = []
    for r in runs:
        rows.append("<tr>" + first_cells(r) + "".join(cell(r.metric(k), kind, unit) for k, _, kind, unit in cols)
                    + "</tr>")
    return (f'<div class="scroll"><table class="metrics"><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def table_by_type(out):
    """Utilisation and busy GPU-hours per GPU type, one row per policy."""
    types = []
    for r in out.runs:
        for t in (r.summary.get("utilization_by_type") or {}):
            if t not in types:
                types.append(t)
    if not types:
        return ""
    head = "<th>policy</th>" + "".join(f"<th>{esc(t)} utilisation (%)</th>" for t in types) + \
        "".join(f"<th>{esc(t)} busy (GPU-h)</th>" for t in types)
    rows = []
    for r in out.runs:
        util = r.summary.get("utilization_by_type") or {}
        busy = r.summary.get("busy_gpu_s_by_type") or {}
        cells = "".join(f'<td class="num">{esc(fmt_percent(util.get(t)))}</td>' for t in types)
        cells += "".join(f'<td class="num">{esc(fmt_number(busy[t] / 3600) if finite(busy.get(t)) else DASH)}</td>'
                         for t in types)
        rows.append(f"<tr>{policy_cell(r.label)}{cells}</tr>")
    return (f'<div class="scroll"><table class="metrics"><caption>By GPU type</caption><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def table_seed_means(out, opts):
    """Sweeps with seeds: mean and error over seeds per (point without seed, policy)."""
    seed = out.seed_axis
    keys = [a for a in out.axes if a != seed]
    groups = {}
    for r in out.runs:
        groups.setdefault(tuple(r.values.get(a) for a in keys), {}).setdefault(r.label, []).append(r)
    cols = metric_columns(out.runs)
    n_seeds = len(out.axis_values(seed))
    head = "".join(f"<th>{esc(plot.axis_label(a))}</th>" for a in keys) + "<th>policy</th><th>seeds</th>" + \
        "".join(f"<th>{esc(c[1])}</th>" for c in cols)
    rows = []
    for k, by_policy in groups.items():
        for p, runs in by_policy.items():
            cells = []
            for key, _, kind, unit in cols:
                mean, err = plot.spread([r.metric(key) for r in runs], opts.errors)
                scale = unit.seconds if kind == "time" else (0.01 if kind == "percent" else 1.0)
                if not finite(mean):
                    cells.append(f'<td class="num">{DASH}</td>')
                    continue
                values = [r.metric(key) for r in runs]
                same = all(v == values[0] for v in values)
                text = fmt_count(mean) if kind == "count" and same else fmt_number(mean / scale)
                pm = f'<span class="pm"> \u00b1 {esc(fmt_number(err / scale))}</span>' \
                    if len(runs) > 1 and finite(err) and not same else ""
                cells.append(f'<td class="num">{esc(text)}{pm}</td>')
            rows.append("<tr>" + "".join(f'<td>{esc(v)}</td>' for v in k) + policy_cell(p) +
                        f'<td class="num">{len(runs)}</td>' + "".join(cells) + "</tr>")
    what = plot.ERROR_KINDS[opts.errors]
    caption = f"Mean over {n_seeds} seeds \u00b1 {what} (Student t)" if opts.errors == "ci95" else \
        f"Mean over {n_seeds} seeds \u00b1 {what}"
    return (f'<div class="scroll"><table class="metrics"><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def failures_html(out):
    if not out.failures:
        return ""
    rows = "".join(f"<tr><td>{esc(p)}</td><td>{esc(e)}</td></tr>" for p, e in out.failures)
    what = "point" if out.kind == "sweep" else "policy"
    return (f'<section id="failures"><h2>Failures</h2><table class="plain"><thead><tr><th>{what}</th>'
            f'<th>error</th></tr></thead><tbody>{rows}</tbody></table></section>')


def summary_section(out, opts):
    parts = []
    if out.kind == "sweep":
        if out.seed_axis and len(out.axis_values(out.seed_axis)) > 1:
            parts.append(table_seed_means(out, opts))
        axes = out.axes
        parts.append(table_per_run(
            out, out.runs, [plot.axis_label(a) for a in axes] + ["policy"],
            lambda r: "".join(f"<td>{esc(r.values.get(a, ''))}</td>" for a in axes) + policy_cell(r.label),
            f"Every point ({len(out.runs)} completed)"))
    else:
        caption = "Per policy" if out.kind == "compare" else "Summary (summary.json)"
        parts.append(table_per_run(out, out.runs, ["policy"], lambda r: policy_cell(r.label), caption))
        parts.append(table_by_type(out))
    note = ('<p class="note">Times are in the unit shown in each header (s, min, h or d, chosen for the column); '
            'hover a time for its exact value in seconds. Utilisation is busy GPU-seconds over the cluster\'s '
            'GPU-seconds from the first submission to the end of the run (docs/outputs.md).</p>')
    return f'<section id="summary"><h2>Summary</h2>{note}{"".join(parts)}</section>'


# ---------------------------------------------------------------------------------------------
# Figures (plot.py's, as inline SVG).

_ID = re.compile(r'\bid="([^"]+)"')


def svg_of(figure, prefix):
    """The figure as an inline <svg> element: ids prefixed (several SVGs share one page), no XML
    prolog, no metadata block, matplotlib's global style rule moved to the page's CSS."""
    buf = io.StringIO()
    figure.fig.savefig(buf, format="svg", metadata=plot.SVG_METADATA)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r'<defs>\s*<style type="text/css">[^<]*</style>\s*</defs>\s*', "", text)
    ids = set(_ID.findall(text))
    text = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r'url\(#([^)]+)\)', lambda m: f"url(#{prefix}{m.group(1)})" if m.group(1) in ids else m.group(0), text)
    text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"' if m.group(1) in ids else m.group(0), text)
    opening_end = text.index(">") + 1
    opening = text[:opening_end].replace("<svg ", f'<svg class="mpl" role="img" aria-label="{esc(figure.title)}" ', 1)
    # shown larger than its size in points (the viewBox keeps the drawing); CSS caps it at the page width
    opening = re.sub(r'(width|height)="([0-9.]+)pt"',
                     lambda m: f'{m.group(1)}="{float(m.group(2)) * SVG_SCALE:.0f}px"', opening)
    return opening + f"<title>{esc(figure.title)}</title>" + text[opening_end:]


def figures_section(out, opts):
    items = []
    for i, f in enumerate(plot.figures(out, opts)):
        try:
            svg = svg_of(f, f"f{i}-")
        finally:
            plt.close(f.fig)
        items.append(f'<figure id="fig-{esc(f.name)}"><div class="svg">{svg}</div><figcaption>'
                     f'<b>{esc(f.title)}</b><br>{esc(f.caption)} '
                     f'<span class="file">(scripts/plot.py: {esc(f.name)}.pdf / .png)</span></figcaption></figure>')
    if not items:
        return ""
    return f'<section id="figures"><h2>Figures</h2>{"".join(items)}</section>'


# ---------------------------------------------------------------------------------------------
# Timeline of a run (SVG drawn here).

class Axis:
    """Linear map from data [lo, hi] to pixels [p0, p1]."""

    def __init__(self, lo, hi, p0, p1):
        self.lo, self.hi, self.p0, self.p1 = lo, hi if hi > lo else lo + 1, p0, p1

    def __call__(self, v):
        return self.p0 + (v - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)


def ticks(lo, hi, integer=False, n=6):
    vals = plot.MaxNLocator(nbins=n, integer=integer, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
    return [v for v in vals if lo - 1e-9 * (hi - lo + 1) <= v <= hi + 1e-9 * (hi - lo + 1)]


def f1(x):
    return f"{x:.1f}".rstrip("0").rstrip(".") if "." in f"{x:.1f}" else f"{x:.1f}"


W, LEFT, RIGHT = 960, 120, 16


def time_axis_svg(x, y, unit, t_end, label=True):
    parts = [f'<line x1="{LEFT}" y1="{y}" x2="{W - RIGHT}" y2="{y}" class="axis"/>']
    for t in ticks(0, t_end / unit.seconds, n=8):
        px = f1(x(t * unit.seconds))
        parts.append(f'<line x1="{px}" y1="{y}" x2="{px}" y2="{y + 4}" class="axis"/>'
                     f'<text x="{px}" y="{y + 15}" class="tick" text-anchor="middle">{esc(plot._plain_number(t))}</text>')
    if label:
        parts.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{y + 30}" class="label" text-anchor="middle">'
                     f'simulated time ({esc(unit.name)})</text>')
    return "".join(parts)


def grid_x(x, unit, t_end, top, bottom):
    return "".join(f'<line x1="{f1(x(t * unit.seconds))}" y1="{top}" x2="{f1(x(t * unit.seconds))}" y2="{bottom}" '
                   f'class="grid"/>' for t in ticks(0, t_end / unit.seconds, n=8))


def job_intervals(run):
    """[(job_id, [(start, end, gpus, gpu_type, restart, end_reason, allocation)])], from the allocations
    file when there is one (True), else from jobs.csv (False)."""
    jobs = run.jobs
    end = run.metric("end_s")
    alloc = run.allocations
    by_job = {}
    if alloc is not None:
        for row in alloc.sort_values(["start_s", "allocation"], kind="stable").itertuples(index=False):
            by_job.setdefault(row.job_id, []).append(
                (row.start_s, row.end_s, row.gpus, row.gpu_type, getattr(row, "restart", ""),
                 getattr(row, "end_reason", ""), int(row.allocation) if finite(row.allocation) else 0))
        return by_job, True
    for row in jobs.itertuples(index=False):
        if not finite(row.start_s) or not finite(row.gpus) or row.gpus <= 0:
            continue
        stop = row.finish_s if finite(row.finish_s) else end
        types = "+".join(t for t in str(row.gpu_types).split("|") if t)
        by_job[row.job_id] = [(row.start_s, stop if finite(stop) else row.start_s, row.gpus, types or "?", "",
                               row.status, 0)]
    return by_job, False


def step_path(xs, ys, x, y):
    """An SVG path of a step function (value ys[i] from xs[i] to xs[i+1])."""
    if not len(xs):
        return ""
    d = [f"M{f1(x(xs[0]))},{f1(y(ys[0]))}"]
    for i in range(1, len(xs)):
        d.append(f"H{f1(x(xs[i]))}V{f1(y(ys[i]))}")
    return "".join(d)


def band_path(xs, lower, upper, x, y, t_end):
    """A closed SVG path between two step functions (stacked areas)."""
    if not len(xs):
        return ""
    d = [f"M{f1(x(xs[0]))},{f1(y(lower[0]))}V{f1(y(upper[0]))}"]
    for i in range(1, len(xs)):
        d.append(f"H{f1(x(xs[i]))}V{f1(y(upper[i]))}")
    d.append(f"H{f1(x(t_end))}V{f1(y(lower[-1]))}")
    for i in range(len(xs) - 1, 0, -1):
        d.append(f"H{f1(x(xs[i]))}V{f1(y(lower[i - 1]))}")
    d.append(f"H{f1(x(xs[0]))}Z")
    return "".join(d)


def events_to_steps(times, deltas):
    """Step function (unique times, value after every event at that time) from +/- events."""
    if not len(times):
        return np.array([0.0]), np.array([0.0])
    order = np.argsort(times, kind="stable")
    t, d = np.asarray(times, dtype=float)[order], np.asarray(deltas, dtype=float)[order]
    ut, idx = np.unique(t, return_index=True)
    csum = np.cumsum(d)
    last = np.append(idx[1:] - 1, len(t) - 1)
    return ut, csum[last]


def queue_series(run, intervals, from_allocations):
    """(times, queued, running or None, source text)."""
    util = run.utilization
    if util is not None and "queued_jobs" in util.columns:
        running = util["running_jobs"].to_numpy(dtype=float) if "running_jobs" in util.columns else None
        return util["time_s"].to_numpy(dtype=float), util["queued_jobs"].to_numpy(dtype=float), running, \
            f"queued_jobs of {os.path.basename(run.utilization_path)}"
    jobs = run.jobs
    admitted = jobs[(jobs["status"] != "rejected") & jobs["submit_s"].notna()]
    if from_allocations:
        # waiting = arrived - completed - holding an allocation
        t = list(admitted["submit_s"])
        d = [1.0] * len(t)
        done = admitted[admitted["finish_s"].notna()]
        t += list(done["finish_s"])
        d += [-1.0] * len(done)
        rt, rd = [], []
        for ivs in intervals.values():
            for s, e, *_ in ivs:
                t += [s, e]
                d += [-1.0, 1.0]
                rt += [s, e]
                rd += [1.0, -1.0]
        qt, qv = events_to_steps(np.array(t), np.array(d))
        rtt, rv = events_to_steps(np.array(rt), np.array(rd))
        running = _step_at(rtt, rv, qt)
        return qt, np.maximum(qv, 0), running, \
            f"reconstructed from jobs.csv and {os.path.basename(run.allocations_path)} (arrived, not finished, holding no GPUs)"
    started = admitted["start_s"].notna()
    t = list(admitted["submit_s"]) + list(admitted.loc[started, "start_s"])
    d = [1.0] * len(admitted) + [-1.0] * int(started.sum())
    qt, qv = events_to_steps(np.array(t), np.array(d))
    return qt, qv, None, ("reconstructed from jobs.csv (arrival to first start; a preempted job waiting again "
                          "is not counted)")


def _step_at(xs, ys, at):
    """Value of the step function (xs, ys) at each time of `at`."""
    i = np.searchsorted(xs, at, side="right") - 1
    return np.where(i >= 0, ys[np.clip(i, 0, len(ys) - 1)], 0.0)


def busy_by_type_series(run, intervals, from_allocations):
    """(times, {type: busy GPUs}, total GPUs or None, source text)."""
    util = run.utilization
    if util is not None:
        cols = [c for c in util.columns if c.startswith("busy_") and c != "busy_gpus"]
        if cols:
            return util["time_s"].to_numpy(dtype=float), \
                {c[len("busy_"):]: util[c].to_numpy(dtype=float) for c in cols}, \
                int(util["total_gpus"].iloc[0]) if len(util) else None, \
                os.path.basename(run.utilization_path)
    events = {}
    if from_allocations:
        for ivs in intervals.values():
            for s, e, g, typ, *_ in ivs:
                events.setdefault(typ or "?", ([], []))
                events[typ or "?"][0].extend([s, e])
                events[typ or "?"][1].extend([g, -g])
    else:
        # jobs.csv: each job's GPU-seconds spread evenly over [first start, finish] (as plot.py does)
        for ivs, row in ((intervals.get(r.job_id), r) for r in run.jobs.itertuples(index=False)):
            if not ivs:
                continue
            s, e, g, typ = ivs[0][:4]
            rate = row.gpu_s / (e - s) if finite(getattr(row, "gpu_s", None)) and e > s else g
            if e > s:
                events.setdefault(typ or "?", ([], []))
                events[typ or "?"][0].extend([s, e])
                events[typ or "?"][1].extend([rate, -rate])
    all_t = np.unique(np.concatenate([np.array(v[0], dtype=float) for v in events.values()])) if events else np.array([0.0])
    series = {}
    for typ in sorted(events):
        tt, vv = events_to_steps(np.array(events[typ][0]), np.array(events[typ][1]))
        series[typ] = _step_at(tt, vv, all_t)
    src = (f"reconstructed from {os.path.basename(run.allocations_path)}" if from_allocations else
           "reconstructed from jobs.csv (each job's GPU-seconds spread evenly from its first start to its finish, "
           "under the types it ran on joined by +)")
    return all_t, series, plot.cluster_gpus(run), src


def legend_html(items):
    return '<p class="legend">' + " ".join(f'<span class="item">{swatch(c)}{esc(n)}</span>' for n, c in items) + "</p>"


def timeline_section(out):
    run = out.runs[0]
    jobs = run.jobs
    intervals, from_alloc = job_intervals(run)
    # the time axis ends with the run (summary.json's end_s: the last completion, or the --until
    # horizon); jobs arriving after it were never simulated. Without end_s: the last thing seen.
    end = run.metric("end_s")
    if finite(end) and end > 0:
        t_end = end
    else:
        t_end = max([e for ivs in intervals.values() for _, e, *_ in ivs if finite(e)]
                    + [float(jobs["submit_s"].max()) if jobs["submit_s"].notna().any() else 0.0])
    if t_end <= 0:
        t_end = 1.0
    intervals = {j: [(s, min(e, t_end)) + tuple(rest) for s, e, *rest in ivs if finite(s) and s < t_end]
                 for j, ivs in intervals.items()}
    unit = plot.time_unit(t_end)
    x = Axis(0.0, t_end, LEFT, W - RIGHT)
    notes = []

    # 1. job bars
    shown = jobs.head(TIMELINE_JOB_CAP)
    n = len(shown)
    rh = 14.0 if n <= 40 else max(2.0, min(14.0, 640.0 / max(n, 1)))
    top, h_rows = 8, rh * n
    height = int(top + h_rows + 40)
    types_seen = []
    parts = [f'<svg class="timeline" id="timeline-jobs" viewBox="0 0 {W} {height}" width="{W}" height="{height}" '
             f'role="img" aria-label="job allocations over time"><title>Job allocations over time</title>',
             grid_x(x, unit, t_end, top, top + h_rows)]
    for i, row in enumerate(shown.itertuples(index=False)):
        yy = top + i * rh
        if rh >= 9:
            label = row.job_id if len(row.job_id) <= 16 else row.job_id[:15] + "\u2026"
            parts.append(f'<text x="{LEFT - 6}" y="{f1(yy + rh * 0.75)}" class="job" text-anchor="end">{esc(label)}</text>')
        ivs = intervals.get(row.job_id, [])
        if row.status == "rejected":
            if finite(row.submit_s) and row.submit_s <= t_end:
                tip = f"{row.job_id}: rejected at admission" + (f" ({row.reason})" if row.reason else "")
                parts.append(f'<text x="{f1(x(row.submit_s))}" y="{f1(yy + rh * 0.8)}" class="rejected" '
                             f'text-anchor="middle">\u00d7<title>{esc(tip)}</title></text>')
            continue
        # waiting: from arrival to the first allocation, and between allocations (after a preemption)
        gaps, last = [], row.submit_s
        for s0, e0, *_ in sorted(ivs, key=lambda iv: iv[0]):
            gaps.append((last, s0))
            last = e0
        if not ivs or (not finite(row.finish_s) and row.status == "unfinished"):
            gaps.append((last, row.finish_s if finite(row.finish_s) else t_end))
        for g0, g1 in gaps:
            g1 = min(g1, t_end) if finite(g1) else g1
            if finite(g0) and finite(g1) and g1 > g0:
                parts.append(f'<line x1="{f1(x(g0))}" y1="{f1(yy + rh / 2)}" x2="{f1(x(g1))}" y2="{f1(yy + rh / 2)}" '
                             f'class="wait"><title>{esc(row.job_id)}: waiting {esc(fmt_number((g1 - g0) / unit.seconds))} '
                             f'{esc(unit.short)}</title></line>')
        for s, e, g, typ, restart, reason, k in ivs:
            if not (finite(s) and finite(e)):
                continue
            if typ not in types_seen:
                types_seen.append(typ)
            w = max(x(e) - x(s), 0.8)
            tip = (f"{row.job_id}, allocation {k}: {fmt_number(s / unit.seconds)}\u2013{fmt_number(e / unit.seconds)} "
                   f"{unit.short}, {fmt_count(g)} \u00d7 {typ}" + (f", {reason}" if reason else "")
                   + (", paid the restart overhead" if str(restart).lower() in ("1", "true", "yes") else ""))
            parts.append(f'<rect x="{f1(x(s))}" y="{f1(yy + rh * 0.1)}" width="{f1(w)}" height="{f1(max(rh * 0.8, 1))}" '
                         f'fill="{esc(plot.gpu_type_colour(typ))}"><title>{esc(tip)}</title></rect>')
    parts.append(time_axis_svg(x, top + h_rows + 2, unit, t_end))
    parts.append("</svg>")
    if len(jobs) > n:
        notes.append(f"Showing the first {n} of {len(jobs)} jobs (trace order).")
    if from_alloc:
        notes.append(f"Bars: one per allocation, from {os.path.basename(run.allocations_path)}; grey line: waiting "
                     "(before the first allocation and after a preemption); \u00d7: rejected at admission. Hover a bar "
                     "for its details.")
    else:
        notes.append("Bars from jobs.csv (first start to finish at the last allocation's GPU count; preemptions and "
                     "GPU changes are not shown): the folder has no *.allocations.csv (hetsim run --timeline FILE.json "
                     "writes FILE.allocations.csv next to FILE.json). Grey line: waiting before the first start; \u00d7: rejected "
                     "at admission.")
    bars_svg = "".join(parts)
    legend = legend_html([(t, plot.gpu_type_colour(t)) for t in sorted(types_seen)])

    # 2. queue length (and running jobs)
    qt, qv, running, qsrc = queue_series(run, intervals, from_alloc)
    keep = np.asarray(qt) <= t_end
    qt, qv, running = np.asarray(qt)[keep], np.asarray(qv)[keep], (np.asarray(running)[keep] if running is not None else None)
    qt, cols, qbin = plot.bin_steps(qt, [qv] + ([running] if running is not None else []), t_end)
    qv, running = cols[0], (cols[1] if len(cols) > 1 else None)
    ymax = max(float(np.max(qv)) if len(qv) else 0.0, float(np.max(running)) if running is not None and len(running) else 0.0, 1.0)
    queue_svg = small_chart("timeline-queue", "Queue length over time", x, unit, t_end, ymax, "jobs",
                            [("queued", "#e15759", qt, qv, True)] +
                            ([("running", "#4e79a7", qt, running, False)] if running is not None else []))
    queue_legend = legend_html([("queued jobs", "#e15759")] + ([("running jobs", "#4e79a7")] if running is not None else []))
    qnote = f"Source: {qsrc}." + (f" Averaged over bins of {fmt_number(qbin / unit.seconds)} {unit.short}." if qbin else "")

    # 3. busy GPUs per type (stacked)
    bt, by_type, total, bsrc = busy_by_type_series(run, intervals, from_alloc)
    keep = np.asarray(bt) <= t_end
    bt, by_type = np.asarray(bt)[keep], {t: np.asarray(v)[keep] for t, v in by_type.items()}
    names = list(by_type)
    bt, cols, bbin = plot.bin_steps(bt, [by_type[t] for t in names], t_end)
    stack = np.cumsum(np.vstack(cols), axis=0) if cols else np.zeros((0, len(bt)))
    ymax = max(float(stack[-1].max()) if len(stack) else 0.0, float(total or 0), 1.0)
    bands = []
    for i, t in enumerate(names):
        lower = stack[i - 1] if i > 0 else np.zeros(len(bt))
        bands.append((t, plot.gpu_type_colour(t), bt, lower, stack[i]))
    busy_svg = stacked_chart("timeline-busy", "Busy GPUs per type over time", x, unit, t_end, ymax, "busy GPUs", bands,
                             total)
    busy_legend = legend_html([(t, plot.gpu_type_colour(t)) for t in names] + ([("cluster GPUs", "#444444")] if total else []))
    bnote = f"Source: {bsrc}; stacked by GPU type." + \
        (f" Averaged over bins of {fmt_number(bbin / unit.seconds)} {unit.short}." if bbin else "")

    return ('<section id="timeline"><h2>Timeline</h2>'
            f'<h3>Jobs by GPU type</h3><p class="note">{esc(" ".join(notes))}</p>{legend}<div class="chart">{bars_svg}</div>'
            f'<h3>Queue length</h3><p class="note">{esc(qnote)}</p>{queue_legend}<div class="chart">{queue_svg}</div>'
            f'<h3>Busy GPUs per type</h3><p class="note">{esc(bnote)}</p>{busy_legend}<div class="chart">{busy_svg}</div>'
            '</section>')


CHART_H = 170


def _y_axis(y, ymax, label, top, bottom):
    parts = [f'<line x1="{LEFT}" y1="{top}" x2="{LEFT}" y2="{bottom}" class="axis"/>']
    for v in ticks(0, ymax, integer=True, n=4):
        py = f1(y(v))
        parts.append(f'<line x1="{LEFT}" y1="{py}" x2="{W - RIGHT}" y2="{py}" class="grid"/>'
                     f'<text x="{LEFT - 6}" y="{py}" dy="0.32em" class="tick" text-anchor="end">{esc(fmt_count(v))}</text>')
    parts.append(f'<text transform="translate({LEFT - 44},{(top + bottom) / 2}) rotate(-90)" class="label" '
                 f'text-anchor="middle">{esc(label)}</text>')
    return "".join(parts)


def _chart_open(cid, title, x, unit, t_end, ymax, ylabel):
    """(y axis, bottom, the svg's opening parts) shared by the timeline's line and band charts."""
    top, bottom = 10, 10 + CHART_H - 50
    y = Axis(0.0, ymax * 1.08, bottom, top)
    parts = [f'<svg class="timeline" id="{cid}" viewBox="0 0 {W} {CHART_H}" width="{W}" height="{CHART_H}" role="img" '
             f'aria-label="{esc(title)}"><title>{esc(title)}</title>', grid_x(x, unit, t_end, top, bottom),
             _y_axis(y, ymax, ylabel, top, bottom)]
    return y, bottom, parts


def small_chart(cid, title, x, unit, t_end, ymax, ylabel, lines):
    y, bottom, parts = _chart_open(cid, title, x, unit, t_end, ymax, ylabel)
    for name, colour, xs, ys, fill in lines:
        xs2, ys2 = np.append(xs, t_end), np.append(ys, ys[-1] if len(ys) else 0)
        if fill:
            parts.append(f'<path d="{band_path(xs, np.zeros(len(xs)), ys, x, y, t_end)}" fill="{esc(colour)}" '
                         f'fill-opacity="0.25" stroke="none"/>')
        parts.append(f'<path d="{step_path(xs2, ys2, x, y)}" fill="none" stroke="{esc(colour)}" stroke-width="1.2">'
                     f'<title>{esc(name)}</title></path>')
    parts.append(time_axis_svg(x, bottom, unit, t_end))
    parts.append("</svg>")
    return "".join(parts)


def stacked_chart(cid, title, x, unit, t_end, ymax, ylabel, bands, total):
    y, bottom, parts = _chart_open(cid, title, x, unit, t_end, ymax, ylabel)
    for name, colour, xs, lower, upper in bands:
        parts.append(f'<path d="{band_path(xs, lower, upper, x, y, t_end)}" fill="{esc(colour)}" fill-opacity="0.85" '
                     f'stroke="none"><title>{esc(name)}</title></path>')
    if total:
        py = f1(y(total))
        parts.append(f'<line x1="{LEFT}" y1="{py}" x2="{W - RIGHT}" y2="{py}" class="total"/>'
                     f'<text x="{W - RIGHT - 2}" y="{f1(y(total) - 3)}" class="tick" text-anchor="end">'
                     f'{esc(fmt_count(total))} GPUs</text>')
    parts.append(time_axis_svg(x, bottom, unit, t_end))
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Settings and versions.

SETTING_KEYS = ["cluster", "trace", "format", "policy", "placement", "throughput_model", "mechanism", "network",
                "seed", "rows_skipped"]


def _settings_of(summary):
    s = {k: summary[k] for k in SETTING_KEYS if k in summary}
    # summary.json's `settings` (every setting as experiment-spec keys, --param and --model-param
    # included): what the keys above do not already say.
    for k, v in (summary.get("settings") or {}).items():
        s.setdefault(k, json.dumps(v) if isinstance(v, (list, dict)) else _value_text(v))
    if "input_notes" in summary:
        notes = summary["input_notes"]
        s["input_notes"] = "; ".join(map(str, notes)) if isinstance(notes, list) else notes
    return s


def _kv_table(rows, caption=""):
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    body = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    return f'<table class="kv">{cap}<tbody>{body}</tbody></table>'


def _point_json(run):
    """A sweep point's point.json ({} without one); its settings and params must be objects."""
    p = os.path.join(run.folder, "point.json")
    if not os.path.isfile(p):
        return {}
    d = plot.read_json(p)
    if not isinstance(d, dict):
        raise FolderError(p, "not a point (a JSON object expected)")
    for key in ("settings", "params"):
        if d.get(key) is not None and not isinstance(d[key], dict):
            raise FolderError(p, f"key {key!r}: not an object: {plot._shorten(d[key])}")
    return d


def _value_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def settings_section(out, opts):
    parts = []
    if out.kind == "run":
        parts.append(_kv_table(list(_settings_of(out.runs[0].summary).items()), "summary.json"))
        files = [("outputs", "jobs.csv, summary.json")]
        if out.runs[0].utilization_path:
            files.append(("utilisation time series", os.path.basename(out.runs[0].utilization_path)))
        if out.runs[0].allocations_path:
            files.append(("allocations", os.path.basename(out.runs[0].allocations_path)))
        parts.append(_kv_table(files, "files read"))
    elif out.kind == "compare":
        per = [_settings_of(r.summary) for r in out.runs]
        keys = [k for k in dict.fromkeys(k for s in per for k in s)]
        common = [(k, per[0][k]) for k in keys if all(s.get(k) == per[0].get(k) for s in per)]
        differ = [k for k in keys if k not in dict(common)
                  and not (k == "policy" and all(s.get(k) == r.label for r, s in zip(out.runs, per)))]
        parts.append(_kv_table(common, "every policy"))
        if differ:
            head = "<th>policy</th>" + "".join(f"<th>{esc(k)}</th>" for k in differ)
            rows = "".join("<tr>" + policy_cell(r.label) + "".join(f"<td>{esc(s.get(k, DASH))}</td>" for k in differ)
                           + "</tr>" for r, s in zip(out.runs, per))
            parts.append(f'<table class="plain"><caption>per policy</caption><thead><tr>{head}</tr></thead>'
                         f'<tbody>{rows}</tbody></table>')
    else:
        points = [_point_json(r) for r in out.runs]
        settings = [p.get("settings") or {} for p in points]
        keys = list(dict.fromkeys(k for s in settings for k in s))
        fixed = [(k, _value_text(settings[0][k])) for k in keys if k not in out.axes
                 and all(k in s and s[k] == settings[0][k] for s in settings)]
        if out.description:
            parts.append(f'<p>{esc(out.description)}</p>')
        parts.append(_kv_table(fixed, "every point (point.json)"))
        parts.append(_kv_table([(plot.axis_label(a), ", ".join(out.axis_values(a))) for a in out.axes], "sweep axes"))
        pol_rows = []
        for label in out.policies:
            r, pj = next((r, p) for r, p in zip(out.runs, points) if r.label == label)
            params = pj.get("params") or {}
            ptxt = ", ".join(f"{k}={_value_text(v)}" for k, v in sorted(params.items())) or DASH
            pol_rows.append(f"<tr>{policy_cell(label)}<td>{esc(pj.get('policy_name', r.summary.get('policy', label)))}</td>"
                            f"<td>{esc(ptxt)}</td></tr>")
        parts.append('<table class="plain"><caption>policies</caption><thead><tr><th>label</th><th>policy</th>'
                     f'<th>parameters</th></tr></thead><tbody>{"".join(pol_rows)}</tbody></table>')
        summ = _settings_of(out.runs[0].summary)
        extra = [(k, v) for k, v in summ.items() if k not in ("policy", "seed", "trace") and k not in dict(fixed)]
        if extra:
            parts.append(_kv_table(extra, "first point's summary.json"))
    report_rows = []
    if len(out.policies) > 1:
        report_rows.append(("baseline of the JCT ratios", plot.baseline_policy(out, opts)))
    if out.seed_axis:
        report_rows.append(("error bars and \u00b1 over seeds", plot.ERROR_KINDS[opts.errors]))
    if report_rows:
        parts.append(_kv_table(report_rows, "report"))
    return f'<section id="settings"><h2>Settings</h2>{"".join(parts)}</section>'


def versions_section(out):
    hv = list(dict.fromkeys(str(r.summary.get("hetsim_version")) for r in out.runs if r.summary.get("hetsim_version")))
    rows = [("hetsim", ", ".join(hv) if hv else "not recorded in summary.json"),
            ("Python", platform.python_version()),
            ("matplotlib", plot.matplotlib.__version__),
            ("pandas", pd.__version__),
            ("numpy", np.__version__)]
    return f'<section id="versions"><h2>Versions</h2>{_kv_table(rows)}</section>'


# ---------------------------------------------------------------------------------------------
# Page.

CSS = """
:root{--fg:#1d1d1f;--muted:#5f6368;--line:#d9d9de;--zebra:#f6f7f9;--accent:#1f77b4}
*{box-sizing:border-box}
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;color:var(--fg);margin:0;padding:24px 32px 48px;
 font-size:14px;line-height:1.45;max-width:1280px}
h1{font-size:24px;margin:0 0 4px} h2{font-size:19px;margin:32px 0 8px;border-bottom:1px solid var(--line);
 padding-bottom:4px} h3{font-size:15px;margin:20px 0 4px}
p.sub{color:var(--muted);margin:0 0 12px} p.note{color:var(--muted);font-size:12.5px;margin:4px 0 8px}
nav{font-size:13px;margin:8px 0 16px} nav a{margin-right:14px;color:var(--accent);text-decoration:none}
table{border-collapse:collapse;margin:8px 0 18px;font-size:13px}
caption{caption-side:top;text-align:left;font-weight:bold;padding:4px 0}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
thead th{background:#eef0f3;border-bottom:2px solid #c5c8ce;vertical-align:bottom;max-width:9em}
tbody tr:nth-child(even){background:var(--zebra)}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.policy{white-space:nowrap}
div.scroll{overflow-x:auto;max-width:100%} span.pm{color:var(--muted);font-size:11.5px;display:block}
table.kv th{background:none;font-weight:normal;color:var(--muted);white-space:nowrap}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}
p.legend .item{margin-right:16px;font-size:12.5px;white-space:nowrap}
figure{margin:12px 0 28px} figure .svg{overflow-x:auto}
figure svg{max-width:100%;height:auto}
figcaption{font-size:12.5px;color:var(--muted);max-width:960px} figcaption b{color:var(--fg)}
span.file{white-space:nowrap}
svg.mpl *{stroke-linejoin:round;stroke-linecap:butt}
.chart{overflow-x:auto} svg.timeline{max-width:100%;height:auto;font-family:"DejaVu Sans",Verdana,sans-serif}
svg.timeline .axis{stroke:#333;stroke-width:1} svg.timeline .grid{stroke:#e3e3e6;stroke-width:1}
svg.timeline .tick{font-size:11px;fill:#333} svg.timeline .label{font-size:12px;fill:#333}
svg.timeline .job{font-size:10px;fill:#444} svg.timeline .rejected{font-size:11px;fill:#b22} svg.timeline .wait{stroke:#c4c4c4;stroke-width:1}
svg.timeline .total{stroke:#444;stroke-width:1;stroke-dasharray:5 3}
footer{margin-top:40px;color:var(--muted);font-size:12px}
"""

KIND_TEXT = {"run": "hetsim run", "compare": "hetsim compare", "sweep": "hetsim sweep"}


def subtitle(out):
    s = out.runs[0].summary
    trace = plot.short_trace(s.get("trace"))
    if out.kind == "run":
        return f"One run: policy {s.get('policy')} on cluster {s.get('cluster')}, trace {trace}, seed {s.get('seed')}."
    if out.kind == "compare":
        return (f"Policy comparison: {len(out.policies)} policies ({', '.join(out.policies)}) on cluster "
                f"{s.get('cluster')}, trace {trace}.")
    axes = ", ".join(f"{plot.axis_label(a)} ({len(out.axis_values(a))} values)" for a in out.axes)
    return (f"Sweep: {len(out.runs)} completed points, policies {', '.join(out.policies)}"
            + (f"; axes {axes}" if axes else "") + f"; cluster {s.get('cluster')}.")


def render(out, opts):
    title = f"hetsim report: {out.name}"
    sections = [summary_section(out, opts), failures_html(out), figures_section(out, opts)]
    if out.kind == "run":
        sections.append(timeline_section(out))
    sections += [settings_section(out, opts), versions_section(out)]
    nav_items = [("summary", "Summary")] + ([("failures", "Failures")] if out.failures else []) + \
        [("figures", "Figures")] + ([("timeline", "Timeline")] if out.kind == "run" else []) + \
        [("settings", "Settings"), ("versions", "Versions")]
    nav = "<nav>" + "".join(f'<a href="#{i}">{esc(t)}</a>' for i, t in nav_items) + "</nav>"
    return ("<!DOCTYPE html>\n"
            f'<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{esc(title)}</title><link rel="icon" href="data:,"><style>{CSS}</style></head><body>'
            f'<header><h1>{esc(title)}</h1><p class="sub">{esc(subtitle(out))}</p>{nav}</header>'
            f'<main>{"".join(sections)}</main>'
            f'<footer>Written by scripts/report.py from the {esc(KIND_TEXT[out.kind])} folder '
            f'{esc(plot.folder_name(out.path))}.</footer></body></html>\n')


def main(argv=None):
    ap = argparse.ArgumentParser(prog="report.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="output folder of hetsim run, compare or sweep")
    ap.add_argument("-o", "--out", help="the page to write (default: DIR/report.html)")
    ap.add_argument("--baseline", help="policy of the JCT ratios (default: fifo if present, else the first)")
    ap.add_argument("--errors", choices=sorted(plot.ERROR_KINDS), default="ci95",
                    help="error bars and \u00b1 over seeds: ci95 (default) or std")
    # `hetsim report` passes its own prefix, so that its errors read like every other command's.
    ap.add_argument("--error-prefix", default="report", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.out == "":
        print(f"{args.error_prefix}: -o: an empty path (leave -o out for DIR/report.html)", file=sys.stderr)
        return 2
    target = args.out or os.path.join(args.dir, "report.html")
    try:
        refuse_data_file(target, args.dir)
        out = plot.load(args.dir)
        opts = plot.Options(baseline=args.baseline, errors=args.errors)
        page = render(out, opts)
        write_output(target, page)
    except (FolderError, OutputFileError) as e:
        print(f"{args.error_prefix}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:   # Ctrl-C: nothing was renamed (write_output removes its temporary)
        return 130
    except Exception as e:   # noqa: BLE001  a library failing on input no check foresaw: still bad input
        print(f"{args.error_prefix}: {plot.unforeseen(args.dir, e)}", file=sys.stderr)
        return 2
    return plot.print_paths([target])


def refuse_data_file(target, folder):
    """-o on one of the folder's own data files (jobs.csv, summary.json, ...) would replace the run's
    results with the page: an existing file under DIR is refused unless it is a page (.html)."""
    real, root = os.path.realpath(target), os.path.realpath(folder)
    if os.path.isfile(real) and not real.endswith((".html", ".htm")) and \
            os.path.commonpath([real, root]) == root:
        raise OutputFileError(target, f"is a data file of {folder}: the page would replace it; give -o another path")


if __name__ == "__main__":
    sys.exit(main())
