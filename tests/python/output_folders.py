"""Small hetsim output folders for the tests of scripts/plot.py and scripts/report.py.

make_folders(root) writes, with the hetsim CLI (HETSIM_CLI, default build/release/hetsim) and the
built-in workload (no shared data needed): a run folder with --timeline files, a compare folder
(fifo, srtf, las) and a sweep folder (fifo, srtf x cluster_scale 1, 2 x seeds 0-2), and copies the
hand-made run folder of data/report-run (the new timeline columns and allocations file). Each
takes well under a second.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("HETSIM_SOURCE_DIR", os.path.abspath(os.path.join(HERE, "..", "..")))
SCRIPTS = os.path.join(SOURCE_DIR, "scripts")
FIXTURE_RUN = os.path.join(HERE, "data", "report-run")

SWEEP_SPEC = {
    "name": "report-sweep",
    "description": "Tests of plot.py and report.py: fifo and srtf on the built-in workload, two cluster scales, three seeds.",
    "cluster": "default",
    "policies": ["fifo", "srtf"],
    "sweep": {"cluster_scale": [1, 2], "seed": [0, 1, 2]},
}


def cli_path():
    return os.environ.get("HETSIM_CLI", os.path.join(SOURCE_DIR, "build", "release", "hetsim"))


def _cli(*args):
    r = subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"hetsim {' '.join(map(str, args))}: exit {r.returncode}\n{r.stderr}"
    return r


def make_folders(root):
    """{'run', 'compare', 'sweep', 'fixture'}: paths of the four folders under root."""
    if not os.path.exists(cli_path()):
        pytest.skip(f"hetsim CLI not built: {cli_path()} (set HETSIM_CLI)")
    run = os.path.join(root, "run")
    os.makedirs(run)
    _cli("run", "--policy", "srtf", "--out", run, "--timeline", os.path.join(run, "timeline.json"), "-q")
    compare = os.path.join(root, "compare")
    _cli("compare", "--policies", "fifo,srtf,las", "--out", compare, "-q")
    spec = os.path.join(root, "report-sweep.json")
    with open(spec, "w", encoding="utf-8") as f:
        json.dump(SWEEP_SPEC, f)
    sweep = os.path.join(root, "report-sweep")
    _cli("sweep", spec, "--out", sweep, "--jobs", "2", "-q")
    fixture = os.path.join(root, "fixture")
    shutil.copytree(FIXTURE_RUN, fixture)
    return {"run": run, "compare": compare, "sweep": sweep, "fixture": fixture}


@pytest.fixture(scope="session")
def folders(tmp_path_factory):
    return make_folders(str(tmp_path_factory.mktemp("outputs")))


def damaged_copy(src, dst, changes):
    """Copies the output folder src to dst (a pathlib.Path) and damages it: changes maps a path inside
    the folder to None (remove the file or folder), str or bytes (the new content) or a function of
    the old text giving the new one (see replace_once). Returns dst."""
    shutil.copytree(src, dst)
    for name, change in changes.items():
        target = dst / name
        if change is None:
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        elif isinstance(change, bytes):
            target.write_bytes(change)
        elif isinstance(change, str):
            target.write_text(change, encoding="utf-8")
        else:
            target.write_text(change(target.read_text(encoding="utf-8")), encoding="utf-8")
    return dst


def replace_once(old, new):
    """A change for damaged_copy: the first `old` becomes `new`; fails when the text has no `old`
    (a damage that did not happen would make its test pass for nothing)."""
    def change(text):
        assert old in text, f"{old!r} not in the file"
        return text.replace(old, new, 1)
    return change


def edit_json(edit):
    """A change for damaged_copy: edit(value) changes the parsed JSON in place."""
    def change(text):
        value = json.loads(text)
        edit(value)
        return json.dumps(value)
    return change


def run_script(name, *args, cwd=None):
    """Runs scripts/<name> with this Python; returns the CompletedProcess (text)."""
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, name), *map(str, args)], capture_output=True,
                          text=True, timeout=300, env=env, cwd=cwd)


def run_scripts(calls, parallel=2):
    """Runs several (name, *args) script calls, `parallel` at a time; CompletedProcess-like results in order."""
    env = dict(os.environ, MPLBACKEND="Agg")
    results, running, pending = [None] * len(calls), [], list(enumerate(calls))
    while pending or running:
        while pending and len(running) < parallel:
            i, (name, *args) = pending.pop(0)
            p = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, name), *map(str, args)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env)
            running.append((i, p, [sys.executable, name, *map(str, args)]))
        i, p, argv = running.pop(0)
        out, err = p.communicate(timeout=300)
        results[i] = subprocess.CompletedProcess(argv, p.returncode, out, err)
    return results


def import_scripts():
    """(plot, report) modules of scripts/."""
    if SCRIPTS not in sys.path:
        sys.path.insert(0, SCRIPTS)
    import plot  # noqa: E402
    import report  # noqa: E402
    return plot, report
