"""hetsim.run, hetsim.compare and hetsim.sweep: settings become an experiment-spec document that the
C++ side parses with the one table of run keys (src/experiment/run_keys.cpp), so every option, its
check and its error message are those of `hetsim run` and spec files."""
import io
import json
import math
import os

from . import _hetsim
from ._policy import AllocationPolicy, Policy, describe_policy, describe_policy_file


class RunResult:
    """One run: `jobs` (DataFrame, jobs.csv's columns), `summary` (dict, summary.json),
    `warnings` (refused policy requests, ...), `notes` (input and model notes), `out` (folder or None)."""

    def __init__(self, jobs_csv, summary_json, warnings, notes, out):
        self.jobs = _read_csv(io.StringIO(jobs_csv))
        self.summary = json.loads(summary_json)
        self.warnings = list(warnings)
        self.notes = list(notes)
        self.out = out

    def __repr__(self):
        s = self.summary
        return (f"<hetsim.RunResult policy={s.get('policy')!r} jobs={len(self.jobs)} "
                f"jct_mean_s={s.get('jct_mean_s')} makespan_s={s.get('makespan_s')}>")


class CompareResult:
    """Several policies on the same inputs: `table` (DataFrame, compare.csv: one row per policy),
    `runs` (label -> RunResult, failed runs left out), `errors` (label -> message), `out`."""

    def __init__(self, compare_csv, entries, out):
        self.table = _read_csv(io.StringIO(compare_csv))
        self.runs = {}
        self.errors = {}
        for label, error, jobs_csv, summary_json, warnings in entries:
            if error:
                self.errors[label] = error
            else:
                self.runs[label] = RunResult(jobs_csv, summary_json, warnings, [], None)
        self.out = out


class SweepResult:
    """A sweep's `results` (DataFrame, results.csv: one row per point and metric), `points`
    (points.csv), `failures` (failures.csv) and `out` (the folder; each run in out/points/<id>/)."""

    def __init__(self, out, counts):
        self.out = out
        self.counts = dict(counts)
        self.results = _read_csv(os.path.join(out, "results.csv"))
        self.points = _read_csv(os.path.join(out, "points.csv"))
        self.failures = _read_csv(os.path.join(out, "failures.csv"))


def _read_csv(source):
    # pandas is imported on first use: a policy loaded by the CLI (--policy-file) never needs it.
    import pandas as pd

    return pd.read_csv(source, keep_default_na=False, na_values=[""])


def _policy_entries(policy):
    """(registered name, registry entries to add) for a policy given as a name, a class or FILE.py[:Class]."""
    if isinstance(policy, type):
        d = describe_policy(policy)
        return d["name"], [d]
    if isinstance(policy, (Policy, AllocationPolicy)):
        raise TypeError("pass the policy class, not an instance (each run builds its own, with its params and seed)")
    if not isinstance(policy, (str, os.PathLike)):
        raise _hetsim.InputError(f"field 'policy': expected a policy name, a Policy class or FILE.py[:Class], "
                                 f"got {type(policy).__name__}")
    text = os.fspath(policy)
    if ".py" in text:
        entries = describe_policy_file(text)
        return entries[0]["name"], entries
    return text, []


def _checked(value, field, caller):
    """`value` as JSON can hold it, or hetsim.InputError naming the setting: JSON has no NaN or
    infinity, and an object Python cannot write as JSON is the caller's input, not a bug."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise _hetsim.InputError(f"{caller}: field '{field}': must be a finite number, got {value!r}")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, dict):
        return {k: _checked(v, f"{field}.{k}", caller) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_checked(v, f"{field}[{i}]", caller) for i, v in enumerate(value)]
    raise _hetsim.InputError(f"{caller}: field '{field}': expected a number, string, boolean, list or dict, "
                             f"got {type(value).__name__}")


def _mapping(value, field, caller):
    if not isinstance(value, dict):
        raise _hetsim.InputError(f"{caller}: field '{field}': expected a dict of name: value, got {type(value).__name__}")
    return value


def _settings(options, caller):
    """Keyword options as spec keys: values JSON-ready (paths as text); dicts stay groups (generator)."""
    out = {}
    for key, value in options.items():
        if value is None:
            continue
        if key == "model_params":
            out.update({f"model_param.{k}": _checked(v, f"model_params.{k}", caller)
                        for k, v in _mapping(value, key, caller).items()})
            continue
        out[key] = _checked(value, key, caller)
    return out


def _policy_list(policies, caller):
    """Spec `policies` entries and registry entries from names, classes, files or (policy, params) pairs."""
    listed, entries = [], []
    for item in policies:
        policy, params, label = item, None, None
        if isinstance(item, dict):
            policy, params, label = item["policy"], item.get("params"), item.get("label")
        elif isinstance(item, tuple):
            policy, params = item
        name, new = _policy_entries(policy)
        entries += [e for e in new if all(e["name"] != o["name"] for o in entries)]
        entry = {"name": name}
        if params:
            entry["params"] = _checked(_mapping(params, "params", caller), "params", caller)
        if label:
            entry["label"] = label
        listed.append(entry)
    return listed, entries


def run(cluster=None, trace=None, policy="fifo", params=None, out=None, check_invariants=False, **options):
    """Runs one simulation and returns a RunResult. `options` are the run keys of experiment specs
    (throughputs=, format=, interval_s=, seed=, mechanism=, generator={...}, model_params={...}, ...).
    Bad input raises hetsim.InputError with the message `hetsim run` would print.
    `check_invariants=True` is `--check-invariants`: a broken run invariant raises
    hetsim.InvariantViolation (a RuntimeError: a bug in hetsim)."""
    doc = _settings(dict(cluster=cluster, trace=trace, **options), "hetsim.run()")
    listed, entries = _policy_list([(policy, params)], "hetsim.run()")
    doc["policies"] = listed
    jobs_csv, summary_json, warnings, notes = _hetsim._run(json.dumps(doc), entries, os.fspath(out) if out else "",
                                                           bool(check_invariants))
    return RunResult(jobs_csv, summary_json, warnings, notes, os.fspath(out) if out else None)


def _threads(jobs, caller):
    """`jobs` as a thread count, checked as the CLI's --jobs is (a bool or 2.5 is not a count)."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 4096:
        raise _hetsim.InputError(f"{caller}: field 'jobs': must be a whole number of threads from 1 to 4096, "
                                 f"got {jobs!r}")
    return jobs


def compare(policies, cluster=None, trace=None, jobs=2, out=None, check_invariants=False, **options):
    """Runs each policy (names, classes, FILE.py[:Class], (policy, params) pairs or
    {"policy", "params", "label"} dicts) on the same inputs on `jobs` threads; returns a CompareResult.
    With `out`, writes what `hetsim compare --out` writes."""
    doc = _settings(dict(cluster=cluster, trace=trace, **options), "hetsim.compare()")
    listed, entries = _policy_list(policies, "hetsim.compare()")
    doc["policies"] = listed
    table, runs = _hetsim._compare(json.dumps(doc), entries, _threads(jobs, "hetsim.compare()"), os.fspath(out) if out else "",
                                   bool(check_invariants))
    return CompareResult(table, runs, os.fspath(out) if out else None)


def sweep(spec, out=None, jobs=2, fresh=False, policies=(), check_invariants=False):
    """Runs every point of an experiment spec (a file path, or a dict whose paths are relative to the
    current folder) like `hetsim sweep`; returns a SweepResult. Python policies come from the spec's
    "policy_files" key or from `policies` (classes or files), named by their registered names."""
    extra = []
    for p in policies:
        extra += _policy_entries(p)[1]
    if isinstance(spec, dict):
        text, path = json.dumps(spec), "hetsim.sweep()"
    else:
        text, path = "", os.fspath(spec)
    # The spec's "policy_files", checked and resolved against the spec's folder by the C++ parser.
    for f in _hetsim._spec_policy_files(text, path):
        extra += describe_policy_file(f)
    counts, out_dir = _hetsim._sweep(text, path, extra, os.fspath(out) if out else "", _threads(jobs, "hetsim.sweep()"),
                                     bool(fresh), bool(check_invariants))
    return SweepResult(out_dir, counts)

