#!/usr/bin/env python3
"""Paper figures from any hetsim output folder: a run, a compare or a sweep (docs/EXPERIMENTS.md).

    python3 scripts/plot.py out/gavel108-load                  # figures in out/gavel108-load/figures/
    python3 scripts/plot.py out/cmp -o figs --baseline srtf     # a `hetsim compare --out` folder
    python3 scripts/plot.py out/gavel108-load --where seed=1    # only the sweep's points with seed 1
    python3 scripts/plot.py out/gavel                           # a `hetsim run --out` folder

The kind of folder is detected: points.csv + results.csv (sweep), compare.csv (compare), or
summary.json + jobs.csv (run). Each figure is written as NAME.pdf and NAME.png (200 dpi):

  jct_cdf          CDF of job completion time per policy, one panel per trace/load point (never pooled)
  queueing_cdf     CDF of queueing delay (start - submit) per policy, panels as above
  jct_vs_load      mean and p95 JCT against the load axis, error bars over seeds (sweeps with a numeric axis)
  jct_ratio        mean and p95 JCT of each policy over the baseline's, same point and seed (2+ policies)
  utilization      busy GPUs over time, one panel per policy (from utilization.csv, or reconstructed
                   from jobs.csv when the folder has none; the title says so)

With seeds, the CDF and utilisation figures show one seed (the first unless --where seed=V), and
the utilisation figure one point (the first value of each axis unless --where picks it).
Every policy keeps one colour in every figure and in scripts/report.py (POLICY_COLOURS, then a
stable hash of the name). Output is deterministic: the same folder gives the same bytes.
Needs Debian's python3-matplotlib, python3-pandas and python3-numpy (scripts/setup.sh).
Bad input exits 2 with one line `plot: PATH: problem`.
"""
import argparse
import csv
import hashlib
import io
import json
import math
import os
import sys
import textwrap

try:
    import matplotlib
    import numpy as np
    import pandas as pd
except ImportError:
    # A python3 first on PATH (pyenv, venv) may lack Debian's packages: retry with the system one.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit(f"{os.path.basename(sys.argv[0])}: needs matplotlib, pandas and numpy "
             "(apt-get install python3-matplotlib python3-pandas python3-numpy)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from output_file import OutputFileError, write_output  # noqa: E402

# ---------------------------------------------------------------------------------------------
# Style: one module-level setting for every figure (plot.py's PDFs/PNGs and report.py's SVGs).

STYLE = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.title_fontsize": 8.5,
    "figure.titlesize": 10,
    "lines.linewidth": 1.5,
    "lines.markersize": 4.5,
    "errorbar.capsize": 3,
    "axes.linewidth": 0.8,
    "axes.grid": True,
    "axes.axisbelow": True,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "grid.linewidth": 0.5,
    "grid.alpha": 0.4,
    "grid.color": "#b0b0b0",
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.04,
    "pdf.fonttype": 42,          # TrueType in the PDF: text stays text in a paper's PDF
    "svg.fonttype": "none",      # SVG text as <text> (searchable in the HTML report)
    "svg.hashsalt": "hetsim",    # fixed ids in SVG output
    # Labels come from the data (cluster names, policy labels): "$5k$" is a name, not mathtext.
    "text.parse_math": False,
}
matplotlib.rcParams.update(STYLE)
PNG_DPI = 200
CDF_POINTS_CAP = 4000     # points of one CDF curve; more jobs are thinned to this many order statistics
STEP_POINTS_CAP = 3000    # points of a time series; longer ones are averaged over STEP_POINTS_CAP / 2 bins
PDF_METADATA = {"CreationDate": None}   # no date: same folder, same bytes
SVG_METADATA = {"Date": None}

# Fixed colours for the built-in policy names (and the labels of experiments/*.json), so a policy
# looks the same in every experiment; any other name gets a colour from a stable hash of it.
POLICY_COLOURS = {
    "fifo": "#1f77b4", "srtf": "#d62728", "las": "#2ca02c", "fifo-perf": "#ff7f0e",
    "fifo-fastest": "#9467bd", "gavel-maxmin": "#8c564b", "gavel-ftf": "#e377c2",
    "gavel-throughput": "#7f7f7f", "gavel-makespan": "#bcbd22", "sia": "#17becf",
    "tiresias": "#393b79", "optimus": "#ad494a", "pollux": "#637939", "heet": "#000000",
    "srsf": "#8c6d31", "afs": "#7b4173", "isolated": "#9c9ede", "allox": "#e7969c",
}
HASH_COLOURS = ["#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#de9ed6", "#e7ba52",
                "#6baed6", "#fd8d3c", "#74c476", "#9e9ac8", "#843c39"]
GPU_TYPE_COLOURS = {
    "v100": "#4c72b0", "p100": "#dd8452", "k80": "#55a868", "t4": "#c44e52", "a100": "#8172b3",
    "quadro6000": "#937860", "rtx2080ti": "#da8bc3", "a10": "#8c8c8c", "h100": "#ccb974", "p40": "#64b5cd",
}
MIXED_COLOUR = "#555555"   # an allocation over several GPU types (darker than the grey waiting lines)


def stable_index(name, n):
    """Index in [0, n) from a hash of name that does not change between runs (unlike hash())."""
    return int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:8], 16) % n


def policy_colour(label):
    """The colour of a policy label, the same in every figure and report."""
    if label in POLICY_COLOURS:
        return POLICY_COLOURS[label]
    return HASH_COLOURS[stable_index(label, len(HASH_COLOURS))]


def gpu_type_colour(name):
    """The colour of a GPU type (timeline bars and per-type curves); grey for a mixed allocation."""
    if "+" in name or "|" in name:
        return MIXED_COLOUR
    key = name.lower()
    if key in GPU_TYPE_COLOURS:
        return GPU_TYPE_COLOURS[key]
    return HASH_COLOURS[stable_index(key, len(HASH_COLOURS))]


# ---------------------------------------------------------------------------------------------
# Units and statistics.

class Unit:
    def __init__(self, name, short, seconds):
        self.name, self.short, self.seconds = name, short, seconds

    def __repr__(self):
        return f"Unit({self.name})"


SECONDS, MINUTES, HOURS, DAYS = Unit("seconds", "s", 1.0), Unit("minutes", "min", 60.0), \
    Unit("hours", "h", 3600.0), Unit("days", "d", 86400.0)


def time_unit(max_seconds):
    """The unit for times up to max_seconds: hours from a thousand seconds on (days from 2e6 s,
    23 days), minutes from 2 minutes, else seconds."""
    m = 0.0 if max_seconds is None or not math.isfinite(max_seconds) else abs(max_seconds)
    if m >= 2e6:
        return DAYS
    if m >= 1000:
        return HOURS
    if m >= 120:
        return MINUTES
    return SECONDS


# Two-sided 95% quantiles of Student's t by degrees of freedom (n - 1).
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
         2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
         2.052, 2.048, 2.045, 2.042]


def t975(df):
    if df < 1:
        return float("nan")
    if df <= len(_T975):
        return _T975[df - 1]
    for limit, t in ((40, 2.042), (60, 2.021), (120, 2.000)):   # conservative between table rows
        if df < limit:
            return t
    return 1.980 if df < 1000 else 1.960


ERROR_KINDS = {"ci95": "95% CI of the mean", "std": "standard deviation"}


def spread(values, kind):
    """(mean, half-width) of values: 95% confidence interval of the mean (Student t) or the sample
    standard deviation; half-width 0 for a single value."""
    v = [float(x) for x in values if x is not None and math.isfinite(float(x))]
    if not v:
        return float("nan"), float("nan")
    mean = sum(v) / len(v)
    if len(v) < 2:
        return mean, 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1))
    return mean, (sd if kind == "std" else t975(len(v) - 1) * sd / math.sqrt(len(v)))


# ---------------------------------------------------------------------------------------------
# Reading output folders.

class FolderError(Exception):
    """A folder or file that is not what hetsim writes; main() prints one line and exits 2."""

    def __init__(self, path, message):
        super().__init__(f"{path}: {message}")
        self.path, self.message = path, message


def _short_error(e):
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise FolderError(path, "missing") from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise FolderError(path, f"not valid JSON ({_short_error(e)})") from None


def _read_text(path):
    """The file's text: UTF-8 (hetsim writes nothing else), ending in a line end (a file cut
    mid-line has none)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise FolderError(path, "missing") from None
    except OSError as e:
        raise FolderError(path, f"cannot read ({e.strerror or e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise FolderError(path, f"line {line}: not UTF-8 text (byte 0x{data[e.start]:02x})") from None
    if not text.strip():
        raise FolderError(path, "empty file (no header)")
    if not text.endswith("\n"):
        raise FolderError(path, f"line {text.count(chr(10)) + 1}: the last line has no line end (a cut file?)")
    return text


def _check_fields(path, text):
    """Every row has the header's number of fields (pandas would pad a short row with empty cells,
    and a cut row would pass as data); returns the number of data rows."""
    try:
        rows = csv.reader(io.StringIO(text, newline=""), strict=True)
        header = next(rows)
        seen = set()
        for name in header:
            if name in seen:
                raise FolderError(path, f"line 1: column {name!r} appears twice")
            seen.add(name)
        n = 0
        for row in rows:
            if not row:
                continue   # a blank line holds no data
            n += 1
            if len(row) != len(header):
                raise FolderError(path, f"line {rows.line_num}: {len(row)} fields, the header has {len(header)} "
                                        "(a cut or damaged row)")
    except csv.Error as e:
        raise FolderError(path, f"line {rows.line_num}: not valid CSV ({e})") from None
    return n


def numeric_column(df, c, path):
    """Column c as floats: an empty cell is NaN (no value); anything else must be a finite number."""
    cells = df[c]
    empty = (cells == "").to_numpy()
    col = pd.to_numeric(cells, errors="coerce").astype(float)    # "" and words become NaN, "inf" inf
    bad = ~empty & ~np.isfinite(col.to_numpy())
    if bad.any():
        row = int(bad.nonzero()[0][0])
        what = "not a finite number" if not np.isnan(col.iloc[row]) else "not a number"
        raise FolderError(path, f"line {row + 2}: column {c}: {what}: {cells.iloc[row]!r}")
    return col


def read_csv(path, required=(), numeric=(), counts=()):
    """A CSV file as a DataFrame of strings as written, but for the numeric columns (floats, NaN for
    an empty cell) and the counts (numeric, and whole numbers >= 0 where not empty); required
    columns must exist. Checks the file is whole: UTF-8, a line end at the end, every row with the
    header's fields."""
    raw = _read_text(path)
    _check_fields(path, raw)
    try:
        df = pd.read_csv(io.StringIO(raw), dtype=str, keep_default_na=False, skip_blank_lines=True)
    except (ValueError, pd.errors.ParserError) as e:
        raise FolderError(path, f"not a valid CSV file ({_short_error(e)})") from None
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise FolderError(path, f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                                f"(header: {','.join(map(str, df.columns))})")
    for c in numeric:
        if c in df.columns:
            df[c] = numeric_column(df, c, path)
    count_columns(df, [c for c in counts if c in df.columns], path)
    return df


def count_columns(df, columns, path):
    """The columns as floats that are empty or whole numbers >= 0 (GPUs, jobs, preemptions)."""
    for c in columns:
        v = df[c] = numeric_column(df, c, path)
        bad = (v.notna() & ((v < 0) | (v != v.round()))).to_numpy()
        if bad.any():
            row = int(bad.nonzero()[0][0])
            raise FolderError(path, f"line {row + 2}: column {c}: not a count (a whole number >= 0): {v.iloc[row]:g}")


JOB_COLUMNS = ["job_id", "submit_s", "start_s", "finish_s", "jct_s", "queueing_s", "gpus", "status"]
JOB_NUMERIC = ["submit_s", "start_s", "finish_s", "jct_s", "queueing_s", "restart_s", "gpu_s"]
JOB_COUNTS = ["gpus", "requested_gpus", "preemptions", "restarts"]
UTIL_COLUMNS = ["time_s", "busy_gpus", "total_gpus"]
UTIL_COUNTS = ["total_gpus", "queued_jobs", "running_jobs"]
# busy_gpus and every busy_<type>: GPUs in thousandths (jobs asking for a fraction of a GPU, gpu_milli)
ALLOC_COLUMNS = ["job_id", "allocation", "start_s", "end_s", "gpus", "gpu_type"]


def read_jobs(path):
    return read_csv(path, JOB_COLUMNS, JOB_NUMERIC, JOB_COUNTS)


def busy_columns(df, columns, path):
    """The columns as floats that are empty or GPUs >= 0 in whole thousandths (a job asking for a fraction
    of a GPU counts its share: hetsim writes three decimals then)."""
    for c in columns:
        v = df[c] = numeric_column(df, c, path)
        milli = v * 1000
        bad = (v.notna() & ((v < 0) | ((milli - milli.round()).abs() > 1e-6 * np.maximum(1.0, milli.abs())))).to_numpy()
        if bad.any():
            row = int(bad.nonzero()[0][0])
            raise FolderError(path, f"line {row + 2}: column {c}: not a number of busy GPUs (>= 0, in thousandths): "
                                    f"{v.iloc[row]:g}")


def read_utilization(path):
    df = read_csv(path, UTIL_COLUMNS, ["time_s", "utilization"], UTIL_COUNTS)
    busy_columns(df, [c for c in df.columns if c.startswith("busy_")], path)   # busy_gpus and per GPU type
    if df.empty:
        raise FolderError(path, "no rows, only the header (hetsim writes one at the start of the run at least)")
    bad = (df["total_gpus"] <= 0).to_numpy()
    if bad.any():
        row = int(bad.nonzero()[0][0])
        raise FolderError(path, f"line {row + 2}: column total_gpus: not a positive number: {df['total_gpus'].iloc[row]:g}")
    back = (np.diff(df["time_s"].to_numpy()) < 0)
    if back.any():
        row = int(back.nonzero()[0][0]) + 1
        raise FolderError(path, f"line {row + 2}: column time_s: {df['time_s'].iloc[row]:g} is before the row above "
                                "(hetsim writes them in time order)")
    return df


def read_allocations(path):
    return read_csv(path, ALLOC_COLUMNS, ["start_s", "end_s"], ["allocation", "gpus"])


# What hetsim writes in summary.json (src/metrics/summary.cpp), by type. Keys not listed are
# ignored; a listed key of another type is an error (it would fail later, far from its cause).
SUMMARY_COUNTS = ("jobs_read", "completed", "rejected", "unfinished", "preemptions", "restarts", "rounds",
                  "allocations", "solver_failures", "solver_node_limits", "solver_time_limits", "rows_skipped", "seed")
SUMMARY_NUMBERS = ("utilization", "stranded_free_gpus_mean", "fragmentation", "ftf_rho_max", "ftf_rho_mean",
                   "jain_norm_throughput")      # and every key ending in _s
SUMMARY_MAPS = ("utilization_by_type", "gpu_hours_by_type", "busy_gpu_s_by_type")   # GPU type -> number
SUMMARY_TEXTS = ("cluster", "trace", "format", "policy", "placement", "throughput_model", "mechanism", "network",
                 "hetsim_version", "timeline")


def _finite_number(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))     # a 400-digit integer overflows a float
    except OverflowError:
        return False


def _summary_value_problem(k, v):
    """Why summary.json's value v of key k is not what hetsim writes, or None."""
    if k in SUMMARY_COUNTS:
        if v is None and k not in ("jobs_read", "completed"):
            return None
        if not _finite_number(v) or float(v) != int(v) or v < 0:
            return f"not a count (a whole number >= 0): {_shorten(v)}"
    elif k in SUMMARY_NUMBERS or k.endswith("_s"):
        if v is not None and not _finite_number(v):
            return f"not a finite number: {_shorten(v)}"
    elif k in SUMMARY_MAPS:
        if not isinstance(v, dict):
            return f"not an object of GPU type -> number: {_shorten(v)}"
        bad = next((t for t, x in v.items() if x is not None and not _finite_number(x)), None)
        if bad is not None:
            return f"GPU type {bad!r}: not a finite number: {_shorten(v[bad])}"
    elif k in SUMMARY_TEXTS:
        if not isinstance(v, str):
            return f"not a string: {_shorten(v)}"
    elif k == "settings":
        if not isinstance(v, dict):
            return f"not an object of setting -> value: {_shorten(v)}"
    elif k == "input_notes":
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            return f"not a list of strings: {_shorten(v)}"
    return None


def _shorten(v, limit=40):
    text = repr(v) if not isinstance(v, int) or isinstance(v, bool) or abs(v) < 10 ** 30 \
        else f"an integer of {len(str(abs(v)))} digits"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def read_summary(path):
    s = read_json(path)
    if not isinstance(s, dict):
        raise FolderError(path, "not a summary (a JSON object expected)")
    for key in ("jobs_read", "completed"):
        if key not in s:
            raise FolderError(path, f"not a hetsim summary (no key {key!r})")
    for k, v in s.items():
        problem = _summary_value_problem(k, v)
        if problem:
            raise FolderError(path, f"key {k!r}: {problem}")
    return s


def check_job_count(run, jobs):
    """jobs.csv holds one row per job read (summary.json's jobs_read): fewer rows is a cut file."""
    expected, rows = int(run.summary["jobs_read"]), len(jobs)
    if rows != expected:
        raise FolderError(os.path.join(run.folder, "jobs.csv"),
                          f"{rows} job rows, but summary.json records jobs_read = {expected} (a cut or mixed-up file?)")


TIMELINE_SUFFIXES = (".utilization.csv", ".allocations.csv")


class Run:
    """One simulation's outputs: a run folder, one policy of a compare, or one point of a sweep."""

    def __init__(self, label, folder, summary, values=None, point=None):
        self.label = label             # policy label (spec label in a sweep)
        self.folder = folder           # folder holding jobs.csv and summary.json
        self.summary = summary
        self.values = values or {}     # sweep axis -> value (strings, as in points.csv)
        self.point = point             # sweep point id
        self._jobs = None
        self._util = False
        self._alloc = False

    def metric(self, key):
        v = self.summary.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else float("nan")

    @property
    def jobs(self):
        if self._jobs is None:
            jobs = read_jobs(os.path.join(self.folder, "jobs.csv"))
            check_job_count(self, jobs)
            self._jobs = jobs
        return self._jobs

    def _timeline_file(self, suffix):
        """FOLDER/utilization.csv (what compare and sweep write per policy or point), else the file of
        the run's --timeline: the one summary.json names (`timeline`, a path from the folder; written
        when --timeline and --out were given together); none when a summary.json that has `settings`
        names none (a hetsim that writes both would have named it); else (older runs, hand-made
        folders) the folder's only one. A folder with two such timelines is refused: picking one by
        name could draw another run's timeline beside this run's jobs."""
        plain = os.path.join(self.folder, suffix.lstrip("."))
        if suffix == ".utilization.csv" and os.path.isfile(plain):
            return plain
        named = self.summary.get("timeline")
        if named:
            stem = named[:-len(".json")] if named.endswith(".json") else named
            path = os.path.join(self.folder, stem + suffix)
            return path if os.path.isfile(path) else None
        if "settings" in self.summary:
            # Written by a hetsim that names its timeline: this run wrote none, so a timeline in
            # the folder is another run's (hetsim run --out DIR twice, the first with --timeline).
            return None
        try:
            names = sorted(n for n in os.listdir(self.folder) if not n.startswith(".")
                           and n.endswith(TIMELINE_SUFFIXES) and n not in ("utilization.csv", "allocations.csv"))
        except OSError:
            names = []
        stems = {}
        for n in names:
            stems.setdefault(n[:n.rindex(".", 0, len(n) - len(".csv"))], n)
        if len(stems) > 1:
            first, second = list(stems.values())[:2]
            raise FolderError(self.folder, f"two timelines, {first} and {second}: summary.json does not record which "
                                           "one this run wrote (an older run, or --timeline without --out); "
                                           "move the other one out of the folder")
        stem = next(iter(stems), None)
        return os.path.join(self.folder, stem + suffix) if stem is not None and \
            os.path.isfile(os.path.join(self.folder, stem + suffix)) else None

    @property
    def utilization_path(self):
        return self._timeline_file(".utilization.csv")

    @property
    def allocations_path(self):
        return self._timeline_file(".allocations.csv")

    @property
    def utilization(self):
        """The folder's busy-GPU time series (DataFrame) or None."""
        if self._util is False:
            p = self.utilization_path
            self._util = read_utilization(p) if p else None
        return self._util

    @property
    def allocations(self):
        if self._alloc is False:
            p = self.allocations_path
            self._alloc = read_allocations(p) if p else None
        return self._alloc


class Output:
    """A hetsim output folder: kind 'run', 'compare' or 'sweep', its runs in folder order."""

    def __init__(self, kind, path, name, runs, axes=(), failures=(), description=None, spec=None):
        self.kind, self.path, self.name, self.runs = kind, path, name, list(runs)
        self.axes = list(axes)
        self.failures = list(failures)     # (label or point, error)
        self.description, self.spec = description, spec
        self.policies = list(dict.fromkeys(r.label for r in self.runs))

    @property
    def seed_axis(self):
        return "seed" if "seed" in self.axes else None

    def axis_values(self, axis):
        return list(dict.fromkeys(r.values.get(axis) for r in self.runs))


def folder_name(path):
    return os.path.basename(os.path.normpath(os.path.abspath(path))) or "output"


def short_trace(trace):
    """A trace name fit for a title: file names as they are, the generator's spelled out."""
    t = str(trace or "")
    source = next((p for p in ("generator:", "builtin:") if t.startswith(p)), None)
    if source:
        kind, _, rest = t[len(source):].partition("(")
        what = f"built-in {kind} jobs" if source == "builtin:" else f"synthetic {kind} jobs"
        words = []
        for item in rest.rstrip(")").split(","):
            k, _, v = item.partition("=")
            if k == "jobs":
                words.append(f"{v} jobs")
            elif k == "jobs_per_hour":
                words.append(f"{v} jobs/h")
            elif k == "multi_gpu":
                words.append("multi-GPU" if v == "true" else "single-GPU")
            elif k == "seed":
                words.append(f"seed {v}")
            elif k:
                words.append(f"{k} {v}")
        return f"{what} ({', '.join(words)})" if words else what
    return os.path.basename(t) if "/" in t or "\\" in t else t


def load(path):
    """Reads a hetsim output folder (run, compare or sweep); raises FolderError."""
    if not os.path.exists(path):
        raise FolderError(path, "no such folder")
    if not os.path.isdir(path):
        raise FolderError(path, "not a folder (give the output folder of hetsim run, compare or sweep)")
    has = lambda n: os.path.isfile(os.path.join(path, n))  # noqa: E731
    if has("points.csv") or has("results.csv"):
        return _load_sweep(path)
    if has("compare.csv"):
        return _load_compare(path)
    if has("summary.json") or has("jobs.csv"):
        return _load_run(path)
    shards = sorted(n for n in os.listdir(path) if n.startswith("points.shard-"))
    if shards:
        raise FolderError(path, f"a sharded sweep ({shards[0]}): merge the shards first (hetsim merge)")
    raise FolderError(path, "not a hetsim output folder (no summary.json + jobs.csv, compare.csv or "
                            "points.csv + results.csv)")


def _spec_in(path):
    """The experiment spec if the folder keeps one (spec.json), else None."""
    p = os.path.join(path, "spec.json")
    if os.path.isfile(p):
        spec = read_json(p)
        return spec if isinstance(spec, dict) else None
    return None


def _load_run(path):
    summary = read_summary(os.path.join(path, "summary.json"))
    if not os.path.isfile(os.path.join(path, "jobs.csv")):
        raise FolderError(os.path.join(path, "jobs.csv"), "missing")
    label = str(summary.get("policy") or "policy")
    run = Run(label, path, summary)
    run.jobs   # read now, so a malformed file is reported before any drawing
    run.utilization
    run.allocations
    name = f"{label} on {summary.get('cluster', '?')}, {short_trace(summary.get('trace'))}"
    return Output("run", path, name, [run])


def safe_folder_name(name):
    """The folder compare writes a policy's outputs to (safe_folder_name in src/util/output_file.cpp)."""
    ok = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_=(),")
    out = "".join(c if c in ok else "_" for c in name)
    return "_" + out if out in ("", ".", "..") else out


def _check_compare_count(path, rows):
    """compare.json lists the same policies as compare.csv (hetsim writes both): fewer rows is a cut file."""
    jpath = os.path.join(path, "compare.json")
    if not os.path.isfile(jpath):
        return
    entries = read_json(jpath)
    if not isinstance(entries, list):
        raise FolderError(jpath, "not a list of policies")
    if len(entries) != rows:
        raise FolderError(os.path.join(path, "compare.csv"),
                          f"{rows} policy rows, but compare.json lists {len(entries)} (a cut file?)")


def _load_compare(path):
    table = read_csv(os.path.join(path, "compare.csv"), ["policy", "status"])
    _check_compare_count(path, len(table))
    runs, failures = [], []
    for _, row in table.iterrows():
        label = row["policy"]
        if row["status"] != "ok":
            failures.append((label, row.get("error", "") or row["status"]))
            continue
        sub = os.path.join(path, safe_folder_name(label))
        summary = read_summary(os.path.join(sub, "summary.json"))
        run = Run(label, sub, summary)
        run.jobs
        runs.append(run)
    if not runs:
        raise FolderError(os.path.join(path, "compare.csv"), "no policy completed (every row failed)")
    s = runs[0].summary
    name = f"{short_trace(s.get('trace'))} on {s.get('cluster', '?')}"
    return Output("compare", path, name, runs, failures=failures)


def _check_points(path, points, listed_elsewhere):
    """points.csv lists every point of the sweep, numbered 0, 1, ... in order; a point that results.csv
    or failures.csv names but points.csv does not means points.csv was cut."""
    ppath = os.path.join(path, "points.csv")
    for i, index in enumerate(points["index"]):
        if index != str(i):
            raise FolderError(ppath, f"line {i + 2}: column index: {index!r}, expected {i} (points are numbered in order)")
    known = set(points["point"])
    for where, ids in listed_elsewhere:
        extra = sorted(set(ids) - known)
        if extra:
            raise FolderError(ppath, f"{len(points)} points, but {where} names {len(extra)} more (first: {extra[0]}): "
                                     "a cut file?")
    for pid in points["point"]:
        if pid in ("", ".", "..") or "/" in pid or os.sep in pid:
            raise FolderError(ppath, f"column point: not a folder name: {pid!r}")


def _load_sweep(path):
    points_path = os.path.join(path, "points.csv")
    if not os.path.isfile(points_path):
        raise FolderError(points_path, "missing (a sweep folder holds points.csv and results.csv)")
    points = read_csv(points_path, ["index", "point", "policy"])   # every cell a string: axis values as written
    axes = [c for c in points.columns if c not in ("index", "point", "policy")]
    rpath = os.path.join(path, "results.csv")
    if not os.path.isfile(rpath):
        raise FolderError(rpath, "missing")
    results = read_csv(rpath, ["point", "policy", "metric", "value"])
    failures = []
    fpath = os.path.join(path, "failures.csv")
    failed_rows = read_csv(fpath, ["point", "error"]) if os.path.isfile(fpath) else None
    if failed_rows is not None:
        failures = [(r["point"], r["error"]) for _, r in failed_rows.iterrows()]
    _check_points(path, points, [("results.csv", results["point"]), ("failures.csv", [p for p, _ in failures])])
    failed = {p for p, _ in failures}
    runs = []
    for _, row in points.iterrows():
        pid = row["point"]
        folder = os.path.join(path, "points", pid)
        if pid in failed or not os.path.isfile(os.path.join(folder, "DONE")):
            if pid not in failed:
                failures.append((pid, "not run (no DONE marker)"))
            continue
        summary = read_summary(os.path.join(folder, "summary.json"))
        runs.append(Run(row["policy"], folder, summary, {a: row[a] for a in axes}, pid))
    if not runs:
        raise FolderError(path, "no completed point in this sweep (see failures.csv)")
    spec = _spec_in(path)
    name = str(spec.get("name")) if spec and spec.get("name") else folder_name(path)
    description = str(spec.get("description")) if spec and spec.get("description") else None
    return Output("sweep", path, name, runs, axes, failures, description, spec)


# ---------------------------------------------------------------------------------------------
# Options and point selection.

class Options:
    def __init__(self, baseline=None, x=None, where=None, errors="ci95", max_panels=12):
        self.baseline, self.x, self.where, self.errors, self.max_panels = baseline, x, where or {}, errors, max_panels


def parse_where(items):
    where = {}
    for item in items or []:
        if "=" not in item:
            raise FolderError("--where", f"expects AXIS=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        where[k] = v
    return where


AXIS_LABELS = {
    "generator.jobs_per_hour": ("arrival rate (jobs/hour)", "jobs/hour"),
    "cluster_scale": ("cluster scale (node copies)", "scale"),
    "seed": ("seed", "seed"),
}


def axis_label(axis):
    if axis in AXIS_LABELS:
        return AXIS_LABELS[axis][0]
    return axis[len("param."):] if axis.startswith("param.") else axis


def axis_short(axis):
    if axis in AXIS_LABELS:
        return AXIS_LABELS[axis][1]
    return axis[len("param."):] if axis.startswith("param.") else axis.split(".")[-1]


def is_numeric_axis(out, axis):
    vals = out.axis_values(axis)
    return bool(vals) and all(_is_number(v) for v in vals)


def _is_number(v):
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def load_axis(out, opts):
    """The sweep axis on the x of jct_vs_load: --x, else generator.jobs_per_hour, else the first
    numeric axis other than seed; None for runs and compares (or without such an axis)."""
    if out.kind != "sweep":
        return None
    if opts.x:
        if opts.x not in out.axes:
            raise FolderError("--x", f"{opts.x!r} is not an axis of this sweep ({', '.join(out.axes) or 'none'})")
        if not is_numeric_axis(out, opts.x):
            raise FolderError("--x", f"{opts.x!r} has values that are not numbers ({', '.join(out.axis_values(opts.x))}): "
                                     "jct_vs_load needs a numeric axis")
        return opts.x
    if "generator.jobs_per_hour" in out.axes and is_numeric_axis(out, "generator.jobs_per_hour"):
        return "generator.jobs_per_hour"
    for a in out.axes:
        if a != "seed" and is_numeric_axis(out, a):
            return a
    return None


def check_where(out, opts):
    for k, v in opts.where.items():
        if k not in out.axes:
            raise FolderError("--where", f"{k!r} is not an axis of this {out.kind} folder ({', '.join(out.axes) or 'none'})")
        if v not in out.axis_values(k) and not any(_same_number(v, x) for x in out.axis_values(k)):
            raise FolderError("--where", f"{k}={v}: no such value (values: {', '.join(out.axis_values(k))})")


def _same_number(a, b):
    return _is_number(a) and _is_number(b) and float(a) == float(b)


def _matches(run, where):
    return all(run.values.get(k) == v or _same_number(run.values.get(k), v) for k, v in where.items())


def one_seed(out, opts):
    """(runs with --where applied and one seed, the seed shown or None)."""
    runs = [r for r in out.runs if _matches(r, opts.where)]
    seed = out.seed_axis
    if seed and seed not in opts.where:
        first = next((r.values[seed] for r in runs), None)
        runs = [r for r in runs if r.values[seed] == first]
        return runs, first
    return runs, opts.where.get(seed) if seed else None


def panel_axes(out, opts):
    """Axes that make panels: every sweep axis but the seed and those fixed by --where."""
    return [a for a in out.axes if a != out.seed_axis and a not in opts.where]


def panels(out, opts):
    """[(panel title, {policy: run})] in folder order, for the one-seed figures (CDFs)."""
    runs, _ = one_seed(out, opts)
    keys = panel_axes(out, opts)
    groups = {}
    for r in runs:
        k = tuple(r.values.get(a) for a in keys)
        groups.setdefault(k, {}).setdefault(r.label, r)
    result = []
    for k, by_policy in groups.items():
        title = ", ".join(f"{axis_short(a)} = {v}" for a, v in zip(keys, k)) if keys else ""
        result.append((title, by_policy))
    return result


def fixed_text(out, opts, seed_value=None):
    """What every panel shares, for a title: 'seed 0 of 3', --where values."""
    parts = [f"{axis_short(k)} = {v}" for k, v in opts.where.items() if k != out.seed_axis]
    seeds = out.axis_values(out.seed_axis) if out.seed_axis else []
    if out.seed_axis:
        shown = opts.where.get(out.seed_axis, seed_value)
        parts.append(f"seed {shown} of {len(seeds)}" if len(seeds) > 1 else f"seed {shown}")
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------------
# Figure helpers.

class Figure:
    """One figure: file name stem, title (also the report's caption head), caption, matplotlib figure."""

    def __init__(self, name, title, caption, fig):
        self.name, self.title, self.caption, self.fig = name, title, caption, fig


def _grid(n, ncols_max=3, panel_w=3.3, panel_h=2.5, sharex=True, sharey=True):
    ncols = min(n, ncols_max)
    nrows = (n + ncols - 1) // ncols
    if n == 1:
        panel_w, panel_h = 4.8, 3.0
    fig, axs = plt.subplots(nrows, ncols, figsize=(panel_w * ncols, panel_h * nrows + 0.5),
                            sharex=sharex, sharey=sharey, squeeze=False, constrained_layout=True)
    flat = [a for row in axs for a in row]
    for a in flat[n:]:
        a.set_visible(False)
    return fig, flat[:n], axs


def _legend_outside(fig, labels, title="policy", kind="line"):
    """One figure legend right of the panels (outside every data area)."""
    if kind == "line":
        handles = [Line2D([0], [0], color=policy_colour(p), linewidth=STYLE["lines.linewidth"]) for p in labels]
    else:
        handles = [matplotlib.patches.Patch(facecolor=policy_colour(p), edgecolor="none") for p in labels]
    fig.legend(handles, labels, title=title, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False,
               borderaxespad=0.2)


def _suptitle(fig, text):
    """The figure title, wrapped to the figure's width."""
    width = max(40, int(fig.get_size_inches()[0] * 12.5))
    fig.suptitle("\n".join(textwrap.fill(line, width) for line in text.split("\n")))


def _plain_number(v, _pos=None):
    if v == 0:
        return "0"
    return f"{v:g}" if 1e-3 <= abs(v) < 1e5 else f"{v:.0e}"


def _cdf_axis(values_by_panel):
    """(unit, log scale?, left limit in the unit) for CDFs of these seconds (all panels share the axis)."""
    allv = np.concatenate([v for v in values_by_panel if len(v)]) if any(len(v) for v in values_by_panel) \
        else np.array([0.0])
    unit = time_unit(float(np.max(allv)))
    pos = allv[allv > 0]
    log = len(pos) > 0 and float(np.max(pos)) / float(np.min(pos)) > 100
    left = None
    if log:
        lo = float(np.percentile(pos, 0.5)) / unit.seconds
        left = 10 ** math.floor(math.log10(lo)) if lo > 0 else None
    return unit, log, left


def _draw_cdf(ax, seconds, unit, log, left, right, colour, label):
    """Empirical CDF as a step line from 0 to 1, continued at 1 to the axis' right end `right`
    (so a curve that reaches 1 early, or at once, stays visible); on a log axis values below `left`
    (zeros) are drawn at `left`."""
    v = np.sort(np.asarray(seconds, dtype=float)) / unit.seconds
    n = len(v)
    if n == 0:
        return
    if log and left is not None:
        v = np.maximum(v, left)
    y = np.arange(1, n + 1) / n
    if n > CDF_POINTS_CAP:   # many jobs: every k-th order statistic (and the last) draws the same curve
        keep = np.unique(np.append(np.linspace(0, n - 1, CDF_POINTS_CAP).astype(int), n - 1))
        v, y = v[keep], y[keep]
    x = np.concatenate([[v[0]], v, [max(right, v[-1])]])
    y = np.concatenate([[0.0], y, [1.0]])
    ax.step(x, y, where="post", color=colour, label=label)


def _cdf_figure(out, opts, name, column, what, started_only):
    panel_list = panels(out, opts)
    if not panel_list:
        return None
    total = len(panel_list)
    panel_list = panel_list[:opts.max_panels]
    data = []
    for _title, by_policy in panel_list:
        d = {}
        for p, r in by_policy.items():
            j = r.jobs
            rows = j[j[column].notna()] if started_only else j[j["status"] == "completed"]
            d[p] = rows[column].to_numpy(dtype=float)
        data.append(d)
    every = [v for d in data for v in d.values()]
    unit, log, left = _cdf_axis(every)
    top = max((float(np.max(v)) for v in every if len(v)), default=0.0) / unit.seconds
    right = top * 1.5 if log else top * 1.03
    if right <= 0:
        right = 1.0
    fig, axs, _ = _grid(len(panel_list))
    for ax, (title, _), d in zip(axs, panel_list, data):
        for p, v in d.items():
            _draw_cdf(ax, v, unit, log, left, right, policy_colour(p), p)
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(_plain_number))
        ax.set_ylim(0, 1.02)   # a curve at 1 (or rising at 0) stays visible next to the spines
        n = {len(v) for v in d.values()}
        if n == {0}:
            ax.text(0.5, 0.5, "no completed job" if not started_only else "no job started", transform=ax.transAxes,
                    ha="center", va="center", color="#666666")
        ax.set_title(f"{title} ({n.pop()} jobs)" if title and len(n) == 1 else title)
    # limits once, after every panel is drawn (the panels share the x axis)
    if log:
        axs[0].set_xlim(left / 1.25, right)    # zeros, drawn at `left`, rise just right of the spine
    else:
        axs[0].set_xlim(-0.015 * top if top > 0 else -0.015, right)
    scale = ", log scale" if log else ""
    zero = f"; 0 s drawn at {_plain_number(left)}" if log and left is not None and any(
        np.any(v <= 0) for d in data for v in d.values()) else ""
    xlabel = f"{what} ({unit.name}{scale}{zero})"
    ylabel = "fraction of jobs" if not started_only else "fraction of started jobs"
    if len(axs) == 1:
        axs[0].set_xlabel(xlabel)
        axs[0].set_ylabel(ylabel)
    else:   # one label for the whole grid: long labels of neighbouring panels would overlap
        fig.supxlabel(xlabel, fontsize=STYLE["axes.labelsize"])
        fig.supylabel(ylabel, fontsize=STYLE["axes.labelsize"])
    _, seed_value = one_seed(out, opts)
    fixed = fixed_text(out, opts, seed_value)
    head = f"{out.name}: {what} CDF"
    title = head + (f" ({fixed})" if fixed else "")
    _suptitle(fig, title)
    _legend_outside(fig, list(dict.fromkeys(p for d in data for p in d)))
    caption = (f"Empirical CDF of {what} per policy over "
               + ("completed jobs" if not started_only else "jobs that started")
               + (", one panel per point (points are never pooled)" if len(panel_list) > 1 else "")
               + (f"; the first {len(panel_list)} of {total} panels (choose with --where)" if total > len(panel_list) else "")
               + ".")
    return Figure(name, title, caption, fig)


def fig_jct_cdf(out, opts):
    return _cdf_figure(out, opts, "jct_cdf", "jct_s", "job completion time", started_only=False)


def fig_queueing_cdf(out, opts):
    return _cdf_figure(out, opts, "queueing_cdf", "queueing_s", "queueing delay", started_only=True)


def _seed_groups(out, opts, exclude):
    """{(values of the axes but seed and `exclude`): {policy: [runs over seeds]}} with --where applied."""
    keys = [a for a in out.axes if a != out.seed_axis and a not in exclude]
    groups = {}
    for r in out.runs:
        if not _matches(r, opts.where):
            continue
        k = tuple(r.values.get(a) for a in keys)
        groups.setdefault(k, {}).setdefault(r.label, []).append(r)
    return keys, groups


def _seed_count(out, opts):
    if not out.seed_axis:
        return 1
    if out.seed_axis in opts.where:
        return 1
    return len(out.axis_values(out.seed_axis))


def _error_text(out, opts):
    n = _seed_count(out, opts)
    if n < 2:
        return "one seed: no error bars"
    return f"error bars: {ERROR_KINDS[opts.errors]} over {n} seeds"


def fig_jct_vs_load(out, opts):
    x_axis = load_axis(out, opts)
    if x_axis is None or x_axis in opts.where:
        return None
    keys, groups = _seed_groups(out, opts, exclude={x_axis})
    if not groups:
        return None
    rows = list(groups.items())[:opts.max_panels // 2 or 1]
    metrics = [("jct_mean_s", "mean JCT"), ("jct_p95_s", "p95 JCT")]
    allv = [r.metric(m) for _, g in rows for runs in g.values() for r in runs for m, _ in metrics]
    unit = time_unit(max([v for v in allv if math.isfinite(v)], default=0))
    xticks = sorted({float(v) for v in out.axis_values(x_axis)})
    gaps = [b - a for a, b in zip(xticks, xticks[1:])]
    dodge = 0.012 * (xticks[-1] - xticks[0]) if len(xticks) > 1 else 0.0
    if gaps and dodge * 4 > min(gaps):
        dodge = min(gaps) / 8
    fig, axs = plt.subplots(len(rows), 2, figsize=(7.0, 2.7 * len(rows) + 0.5), squeeze=False, sharex=True,
                            constrained_layout=True)
    policies = []
    for row_index, ((k, by_policy), ax_row) in enumerate(zip(rows, axs)):
        for (metric, what), ax in zip(metrics, ax_row):
            for i, (p, runs) in enumerate(by_policy.items()):
                xs = {}
                for r in runs:
                    xs.setdefault(float(r.values[x_axis]), []).append(r.metric(metric) / unit.seconds)
                xv = sorted(xs)
                stats = [spread(xs[x], opts.errors) for x in xv]
                # error bars of the policies side by side, not on top of each other
                offset = (i - (len(by_policy) - 1) / 2) * dodge
                ax.errorbar([x + offset for x in xv], [m for m, _ in stats], yerr=[e for _, e in stats],
                            color=policy_colour(p), marker="o", label=p)
                if p not in policies:
                    policies.append(p)
            ax.set_ylabel(f"{what} ({unit.name})")
            ax.set_ylim(bottom=0)
            ax.set_xticks(xticks)
            ax.xaxis.set_major_formatter(FuncFormatter(_plain_number))
            sub = ", ".join(f"{axis_short(a)} = {v}" for a, v in zip(keys, k))
            ax.set_title(what + (f" ({sub})" if sub else ""))
            if row_index == len(rows) - 1:
                ax.set_xlabel(axis_label(x_axis))
    err = _error_text(out, opts)
    title = f"{out.name}: JCT vs {axis_short(x_axis)} ({err})"
    _suptitle(fig, title)
    _legend_outside(fig, policies)
    caption = (f"Mean and 95th-percentile job completion time against {axis_label(x_axis)}; points are the mean "
               f"over seeds, {err}.")
    return Figure("jct_vs_load", title, caption, fig)


def baseline_policy(out, opts):
    if opts.baseline:
        if opts.baseline not in out.policies:
            raise FolderError("--baseline", f"{opts.baseline!r} is not a policy of this folder ({', '.join(out.policies)})")
        return opts.baseline
    return "fifo" if "fifo" in out.policies else out.policies[0]


def fig_jct_ratio(out, opts):
    if len(out.policies) < 2:
        return None
    base = baseline_policy(out, opts)
    others = [p for p in out.policies if p != base]
    keys, groups = _seed_groups(out, opts, exclude=set())
    # ratios per point: same values of every axis (seed included) as the baseline's run
    metrics = [("jct_mean_s", "mean JCT"), ("jct_p95_s", "p95 JCT")]
    base_runs = {tuple(r.values.get(a) for a in out.axes): r for r in out.runs if r.label == base}
    table = []   # (group key, policy, metric, mean, err)
    for k, by_policy in groups.items():
        for p in others:
            for metric, _ in metrics:
                ratios = []
                for r in by_policy.get(p, []):
                    b = base_runs.get(tuple(r.values.get(a) for a in out.axes))
                    if b is not None and b.metric(metric) > 0:
                        ratios.append(r.metric(metric) / b.metric(metric))
                table.append((k, p, metric) + spread(ratios, opts.errors))
    group_keys = list(groups)[:opts.max_panels * 2]
    single = len(group_keys) <= 1
    fig, axs = plt.subplots(1, 2, figsize=(7.2 if not single else 6.4, 2.9), sharey=True, squeeze=False,
                            constrained_layout=True)
    width = 0.8 / len(others)
    tops = [1.0]
    show_values = len(group_keys) * len(others) <= 8
    for (metric, what), ax in zip(metrics, axs[0]):
        for i, p in enumerate(others):
            vals = {row[0]: row[3:] for row in table if row[1] == p and row[2] == metric}
            if single:
                xpos = [i]
                w = 0.65
            else:
                xpos = [j + (i - (len(others) - 1) / 2) * width for j in range(len(group_keys))]
                w = width
            means = [vals.get(g, (float("nan"), 0))[0] for g in group_keys]
            errs = [vals.get(g, (0, 0))[1] for g in group_keys]
            tops += [m + (e if math.isfinite(e) else 0) for m, e in zip(means, errs) if math.isfinite(m)]
            ax.bar(xpos, means, width=w * 0.95, color=policy_colour(p), label=p,
                   yerr=errs if any(e > 0 for e in errs) else None, error_kw={"elinewidth": 0.8})
            if show_values:
                for xp, m, e in zip(xpos, means, errs):
                    if math.isfinite(m):
                        ax.annotate(f"{m:.2f}", (xp, m + (e if math.isfinite(e) else 0)), xytext=(0, 2),
                                    textcoords="offset points", ha="center", va="bottom", fontsize=7)
        ax.axhline(1.0, color="black", linewidth=0.8)
        if single:
            ax.set_xticks(range(len(others)))
            ax.set_xticklabels(others, rotation=30 if len(others) > 3 else 0, ha="right" if len(others) > 3 else "center")
        else:
            ax.set_xticks(range(len(group_keys)))
            labels = [", ".join(str(v) for v in g) for g in group_keys]
            ax.set_xticklabels(labels, rotation=30 if sum(map(len, labels)) > 40 else 0,
                               ha="right" if sum(map(len, labels)) > 40 else "center")
            ax.set_xlabel(" / ".join(axis_label(a) for a in keys))
        ax.set_title(f"{what} / {base}'s")
        ax.grid(False, axis="x")
    # once both (y-shared) panels are drawn: from 0 (a ratio is positive; error bars below 0 are cut)
    # to above the highest bar or error bar and its value label
    axs[0][0].set_ylim(0, max(tops) * 1.15)
    axs[0][0].set_ylabel(f"ratio to {base} (lower is better)")
    err = _error_text(out, opts)
    title = f"{out.name}: JCT relative to {base}" + (f" ({err})" if out.seed_axis else "")
    _suptitle(fig, title)
    if not single:
        _legend_outside(fig, others, kind="patch")
    caption = (f"Each policy's mean and p95 JCT divided by {base}'s on the same point"
               + (" and seed, averaged over seeds; " + err if out.seed_axis else "")
               + ". The line at 1 is the baseline (--baseline chooses it).")
    return Figure("jct_ratio", title, caption, fig)


def reconstructed_busy(run):
    """Busy GPUs over time from jobs.csv: each started job's GPU-seconds (gpu_s) spread evenly from
    its first start to its finish (or the end of the run), so the curve's integral is the run's
    busy GPU-seconds; a preempted job's gaps are not visible. DataFrame time_s, busy_gpus."""
    j = run.jobs
    end = run.metric("end_s")
    started = j[j["start_s"].notna() & (j["gpus"] > 0)]
    if started.empty:
        return pd.DataFrame({"time_s": [0.0], "busy_gpus": [0.0]})
    start = started["start_s"].to_numpy(dtype=float)
    stop = started["finish_s"].fillna(end if math.isfinite(end) else started["start_s"].max()).to_numpy(dtype=float)
    held = started["gpu_s"].to_numpy(dtype=float) if "gpu_s" in started.columns else np.full(len(start), np.nan)
    span = stop - start
    rate = np.where(np.isfinite(held) & (span > 0), held / np.where(span > 0, span, 1), started["gpus"].to_numpy(dtype=float))
    keep = span > 0
    times = np.concatenate([start[keep], stop[keep]])
    deltas = np.concatenate([rate[keep], -rate[keep]])
    if not len(times):
        return pd.DataFrame({"time_s": [0.0], "busy_gpus": [0.0]})
    order = np.argsort(times, kind="stable")
    t, d = times[order], deltas[order]
    ut, idx = np.unique(t, return_index=True)
    csum = np.cumsum(d)
    last = np.append(idx[1:] - 1, len(t) - 1)
    busy = np.round(csum[last], 9)
    return pd.DataFrame({"time_s": ut, "busy_gpus": np.where(np.abs(busy) < 1e-9, 0.0, busy)})


def cluster_gpus(run):
    """Total GPUs: from the utilisation CSV, else derived from summary.json's busy GPU-seconds and
    utilisation per type (None when that is not possible)."""
    u = run.utilization
    if u is not None and len(u):
        return int(u["total_gpus"].iloc[0])
    s = run.summary
    busy, util = s.get("busy_gpu_s_by_type") or {}, s.get("utilization_by_type") or {}
    j = run.jobs
    first = j.loc[j["status"] != "rejected", "submit_s"].min()
    window = run.metric("end_s") - (first if pd.notna(first) else 0.0)
    total = 0
    for t, b in busy.items():
        ut = util.get(t)
        if not ut or window <= 0:
            return None
        total += round(b / (ut * window))
    return total or None


def bin_steps(times, columns, t_end, cap=None):
    """Step functions (value columns[k][i] from times[i] to times[i+1], the last to t_end) as they are
    when they have at most `cap` points (STEP_POINTS_CAP), else as time-weighted means over cap/2
    equal bins of [0, t_end] (the area under each curve is kept). Returns (times, columns, bin width
    in seconds, or None when not binned)."""
    cap = cap or STEP_POINTS_CAP
    times = np.asarray(times, dtype=float)
    if len(times) <= cap or t_end <= 0:
        return times, columns, None
    edges = np.linspace(0.0, t_end, cap // 2 + 1)
    widths = np.diff(np.append(times, max(t_end, times[-1])))
    i = np.searchsorted(times, edges, side="right") - 1
    ic = np.clip(i, 0, len(times) - 1)
    out = []
    for c in columns:
        c = np.asarray(c, dtype=float)
        cum = np.concatenate([[0.0], np.cumsum(c * widths)])[:len(times)]   # integral up to each breakpoint
        integral = np.where(i < 0, 0.0, cum[ic] + c[ic] * (edges - times[ic]))
        out.append(np.diff(integral) / np.diff(edges))
    return edges[:-1], out, float(edges[1] - edges[0])


def busy_series(run):
    """(DataFrame time_s, busy_gpus; True when reconstructed from jobs.csv)."""
    u = run.utilization
    if u is not None and len(u):
        return u[["time_s", "busy_gpus"]], False
    return reconstructed_busy(run), True


def utilization_point(out, opts):
    """The runs of the utilisation figure: one per policy at one point (the first value of every
    axis not fixed by --where); and the text naming that point."""
    runs = [r for r in out.runs if _matches(r, opts.where)]
    fixed = {}
    for a in out.axes:
        if a in opts.where:
            fixed[a] = opts.where[a]
        elif runs:
            fixed[a] = runs[0].values[a]
            runs = [r for r in runs if r.values[a] == fixed[a]]
    by_policy = {}
    for r in runs:
        by_policy.setdefault(r.label, r)
    text = ", ".join(f"{axis_short(a)} = {v}" for a, v in fixed.items())
    return by_policy, text


def fig_utilization(out, opts):
    by_policy, point_text = utilization_point(out, opts)
    if not by_policy:
        return None
    series = {}
    for p, r in by_policy.items():
        s, rec = busy_series(r)
        total = cluster_gpus(r) if rec else None
        if total:
            s = s.assign(busy_gpus=np.minimum(s["busy_gpus"].to_numpy(dtype=float), total))
        series[p] = (s, rec)
    tmax = max(float(s["time_s"].max()) for s, _ in series.values())
    unit = time_unit(tmax)
    n = len(series)
    fig, axs = plt.subplots(n, 1, figsize=(6.6, 1.35 * n + 0.9), sharex=True, sharey=True, squeeze=False,
                            constrained_layout=True)
    any_rec = False
    all_rec = all(rec for _, rec in series.values())
    top = 0.0
    bin_width = None
    for ax, (p, (s, rec)) in zip(axs[:, 0], series.items()):
        any_rec |= rec
        t, (b,), width = bin_steps(s["time_s"].to_numpy(dtype=float), [s["busy_gpus"].to_numpy(dtype=float)], tmax)
        bin_width = width or bin_width
        t = t / unit.seconds
        c = policy_colour(p)
        ax.fill_between(t, b, step="post", color=c, alpha=0.25, linewidth=0)
        ax.step(t, b, where="post", color=c, linewidth=1.0)
        total = cluster_gpus(by_policy[p])
        if total:
            ax.axhline(total, color="#444444", linewidth=0.8, linestyle="--")
            ax.annotate(f"{total} GPUs", (1.0, total), xycoords=("axes fraction", "data"), xytext=(-2, 2),
                        textcoords="offset points", ha="right", va="bottom", fontsize=7, color="#444444")
        top = max(top, total or 0, float(b.max()) if len(b) else 0)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4))
        busy = by_policy[p].metric("utilization")
        note = f"{p}" + (f": {100 * busy:.1f}% busy" if math.isfinite(busy) else "") + \
            (" (reconstructed)" if rec and not all_rec else "")
        ax.set_title(note, loc="left", fontsize=8.5, color=c, pad=2)
        ax.set_ylabel("busy GPUs")
        ax.set_xlim(0, tmax / unit.seconds if tmax > 0 else 1)
    axs[0, 0].set_ylim(0, top * 1.1 if top > 0 else 1)
    axs[-1, 0].set_xlabel(f"simulated time ({unit.name})")
    where = f" ({point_text})" if point_text else ""
    title = f"{out.name}: busy GPUs over time{where}"
    if any_rec:
        title += "\napproximate: reconstructed from jobs.csv"
    _suptitle(fig, title)
    binned = (f" Series of more than {STEP_POINTS_CAP} changes are averaged over bins of "
              f"{bin_width / time_unit(bin_width).seconds:.3g} {time_unit(bin_width).name}." if bin_width else "")
    caption = ("Busy GPUs over time, one panel per policy (shared axes); the dashed line is the cluster's GPU count. "
               + ("Reconstructed from jobs.csv (the folder has no utilization.csv): each job's GPU-seconds spread "
                  "evenly from its first start to its finish, capped at the cluster's GPUs; preemptions and "
                  "resizes are smoothed out." if any_rec else
                  "From the run's utilisation time series.") + binned)
    return Figure("utilization", title, caption, fig)


FIGURES = [fig_jct_cdf, fig_queueing_cdf, fig_jct_vs_load, fig_jct_ratio, fig_utilization]


def figures(out, opts=None):
    """Yields every figure that fits the folder (Figure objects); the caller saves and closes them."""
    opts = opts or Options()
    check_where(out, opts)
    baseline_policy(out, opts)
    load_axis(out, opts)
    for make in FIGURES:
        f = make(out, opts)
        if f is not None:
            yield f


def save(fig_obj, folder):
    """Writes NAME.pdf and NAME.png as hetsim writes its files (output_file.py); returns their paths."""
    paths = []
    for ext in ("pdf", "png"):
        p = os.path.join(folder, f"{fig_obj.name}.{ext}")
        kwargs = {"metadata": PDF_METADATA} if ext == "pdf" else {"dpi": PNG_DPI}
        buf = io.BytesIO()
        fig_obj.fig.savefig(buf, format=ext, **kwargs)
        write_output(p, buf.getvalue())
        paths.append(p)
    return paths


def unforeseen(folder, e):
    """The one line for an exception the readers did not foresee (naming the folder and the library's words)."""
    return FolderError(folder, f"cannot draw this folder ({type(e).__name__}: {_short_error(e)})")


def fail(prog, err):
    print(f"{prog}: {err}", file=sys.stderr)
    sys.exit(2)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="plot.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="output folder of hetsim run, compare or sweep")
    ap.add_argument("-o", "--out", help="figure folder (default: DIR/figures)")
    ap.add_argument("--baseline", help="policy the ratios divide by (default: fifo if present, else the first policy)")
    ap.add_argument("--x", help="sweep axis of jct_vs_load (default: generator.jobs_per_hour, else the first numeric axis but seed)")
    ap.add_argument("--where", action="append", metavar="AXIS=VALUE",
                    help="sweep points to draw (repeatable); fixes the seed and point of the CDF and utilisation figures")
    ap.add_argument("--errors", choices=sorted(ERROR_KINDS), default="ci95",
                    help="error bars over seeds: ci95 (95%% CI of the mean, Student t; default) or std")
    args = ap.parse_args(argv)
    if args.out == "":
        print("plot: -o: an empty path (leave -o out for DIR/figures)", file=sys.stderr)
        return 2
    try:
        out = load(args.dir)
        opts = Options(args.baseline, args.x, parse_where(args.where), args.errors)
        fig_dir = args.out or os.path.join(args.dir, "figures")
        try:
            os.makedirs(fig_dir, exist_ok=True)
        except OSError as e:
            raise FolderError(fig_dir, f"cannot create the figure folder ({e.strerror})") from None
        written = []
        for f in figures(out, opts):
            try:
                written += save(f, fig_dir)
            finally:
                plt.close(f.fig)
    except (FolderError, OutputFileError) as e:
        fail("plot", e)
    except KeyboardInterrupt:   # Ctrl-C: the figures written so far are whole (each renamed when done)
        return 130
    except Exception as e:   # noqa: BLE001  a library failing on input no check above foresaw: still bad input
        fail("plot", unforeseen(args.dir, e))
    return print_paths(written)


def print_paths(paths):
    """Prints the written files' paths, one a line; returns 0. A reader that stopped early
    (`plot.py DIR | head -1`) only cuts the list (the files are written): no traceback, still 0."""
    try:
        for p in paths:
            print(p)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would report the unflushed rest again at exit: point stdout at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
