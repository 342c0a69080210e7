"""hetsim.run/compare/sweep: results as DataFrames with the documented columns, the CLI's settings
and its error messages."""
import json
import os

import pandas as pd
import pytest

import hetsim
from conftest import write

JOB_COLUMNS = ["job_id", "submit_s", "start_s", "finish_s", "jct_s", "queueing_s", "gpus", "requested_gpus",
               "gpu_types", "preemptions", "restarts", "restart_s", "gpu_s", "status", "reason", "ideal_s",
               "active_at_arrival", "ftf_rho", "norm_throughput", "deadline_s", "met_deadline"]


def test_run_gives_jobs_and_summary():
    r = hetsim.run(cluster="default", policy="fifo", seed=0)
    assert isinstance(r.jobs, pd.DataFrame)
    assert list(r.jobs.columns) == JOB_COLUMNS
    assert len(r.jobs) == 60 and (r.jobs["status"] == "completed").all()
    assert r.summary["policy"] == "fifo" and r.summary["completed"] == 60
    assert r.summary["jct_mean_s"] == pytest.approx(r.jobs["jct_s"].mean(), rel=1e-6)
    assert r.out is None


def test_run_writes_the_cli_outputs(tmp_path, cli):
    hetsim.run(cluster="default", policy="srtf", seed=3, out=tmp_path / "py")
    c = cli("run", "--cluster", "default", "--policy", "srtf", "--seed", "3", "--out", tmp_path / "cli", "-q")
    assert c.returncode == 0, c.stderr
    for name in ("jobs.csv", "summary.json"):
        assert open(tmp_path / "py" / name, "rb").read() == open(tmp_path / "cli" / name, "rb").read()


def test_options_are_the_spec_keys():
    r = hetsim.run(cluster="default", policy="srtf", interval_s=600, restart_overhead_s=10, seed=1)
    assert r.summary["mechanism"] == "rounds" and r.summary["restarts"] > 0
    with pytest.raises(hetsim.InputError, match=r"hetsim.run\(\): field 'intervall_s': unknown key 'intervall_s'"):
        hetsim.run(cluster="default", intervall_s=60)
    with pytest.raises(hetsim.InputError, match=r"field 'interval_s': must be 0 or at least 0.001 s"):
        hetsim.run(cluster="default", interval_s=1e-6)
    with pytest.raises(hetsim.InputError, match=r"unknown policy 'nope'"):
        hetsim.run(policy="nope")


def test_settings_python_cannot_write_as_json_name_the_setting(tmp_path):
    with pytest.raises(hetsim.InputError, match=r"hetsim.run\(\): field 'interval_s': must be a finite number, got nan"):
        hetsim.run(cluster="default", interval_s=float("nan"))
    with pytest.raises(hetsim.InputError, match=r"hetsim.run\(\): field 'model_params.overlap': must be a finite number, got inf"):
        hetsim.run(cluster="default", model_params={"overlap": float("inf")})
    with pytest.raises(hetsim.InputError, match=r"hetsim.compare\(\): field 'params.queues': must be a finite number"):
        hetsim.compare([("las", {"queues": float("nan")})], cluster="default")
    with pytest.raises(hetsim.InputError, match=r"field 'policy': expected a policy name, a Policy class or FILE.py"):
        hetsim.run(cluster="default", policy=3)
    with pytest.raises(hetsim.InputError, match=r"hetsim.run\(\): field 'params': expected a dict of name: value, got list"):
        hetsim.run(cluster="default", params=[1, 2])
    with pytest.raises(hetsim.InputError, match=r"field 'seed': expected a number, string, boolean, list or dict, got object"):
        hetsim.run(cluster="default", seed=object())
    with pytest.raises(hetsim.InputError, match=r"field 'cluster_scale': an integer out of range: 1e\+30"):
        hetsim.run(cluster="default", cluster_scale=10**30)
    with pytest.raises(hetsim.InputError, match=r"'generator' is a group"):
        hetsim.run(cluster="default", generator="x")
    # Settings have no spec file: relative paths are the current folder's, and the message says so.
    with pytest.raises(hetsim.InputError, match=r"file not found: no-such\.csv \(paths are relative to the current folder\)"):
        hetsim.run(cluster="default", trace="no-such.csv")


def test_bad_trace_row_gives_the_cli_message(tmp_path, cli):
    trace = write(tmp_path / "bad.csv", "job_id,submit_s,num_gpus,duration_s\na,0,1,10\nb,5,two,10\n")
    with pytest.raises(hetsim.InputError) as err:
        hetsim.run(cluster="default", trace=trace)
    assert f"{trace}:3: field 'num_gpus'" in str(err.value)
    c = cli("run", "--cluster", "default", "--trace", trace)
    assert c.returncode == 2 and str(err.value) in c.stderr


def test_policy_params_are_checked_like_the_registry():
    import policies
    policies.WithParams.seen.clear()
    hetsim.run(cluster="default", policy=policies.WithParams, params={"alpha": 2}, seed=7, until_s=1)
    assert policies.WithParams.seen[0] == (2.0, "a", 7)
    with pytest.raises(hetsim.InputError, match=r"must be in \[0, 10\], got 11"):
        hetsim.run(cluster="default", policy=policies.WithParams, params={"alpha": 11})
    with pytest.raises(hetsim.InputError, match=r"beta"):
        hetsim.run(cluster="default", policy=policies.WithParams, params={"beta": 1})


def test_compare_runs_python_and_cpp_policies(tmp_path):
    import las
    c = hetsim.compare(["fifo", "las", las.LeastAttainedService], cluster="default", jobs=2, out=tmp_path / "cmp")
    assert list(c.table["policy"]) == ["fifo", "las", "py-las"]
    assert {"jct_mean_s", "makespan_s"} <= set(c.table.columns)
    assert c.runs["las"].jobs.equals(c.runs["py-las"].jobs)
    assert not c.errors
    assert os.path.exists(tmp_path / "cmp" / "compare.csv") and os.path.exists(tmp_path / "cmp" / "py-las" / "jobs.csv")


def test_check_invariants_on_run_compare_and_sweep(tmp_path):
    import las
    # A Python policy under the checks: the run is clean and gives the same results as without them.
    on = hetsim.run(cluster="default", policy=las.LeastAttainedService, seed=2, restart_overhead_s=5,
                    check_invariants=True)
    off = hetsim.run(cluster="default", policy=las.LeastAttainedService, seed=2, restart_overhead_s=5)
    assert on.jobs.equals(off.jobs) and on.summary == off.summary
    assert on.summary["completed"] == 60
    c = hetsim.compare(["srtf", las.LeastAttainedService], cluster="default", jobs=2, check_invariants=True)
    assert not c.errors
    s = hetsim.sweep({"name": "inv", "cluster": "default", "policies": ["fifo", "gavel-maxmin"],
                      "sweep": {"seed": [0, 1]}}, out=tmp_path / "sw", jobs=2, check_invariants=True)
    assert s.counts["done"] == 4 and s.counts["failed"] == 0
    # A broken invariant is an internal error, not bad input.
    assert issubclass(hetsim.InvariantViolation, RuntimeError)
    assert not issubclass(hetsim.InvariantViolation, hetsim.InputError)


def test_sweep_with_policy_files(tmp_path):
    from conftest import EXAMPLES
    spec = {"name": "s", "cluster": "default", "policy_files": [os.path.join(EXAMPLES, "las.py")],
            "policies": ["las", "py-las"], "sweep": {"seed": [0, 1]}}
    s = hetsim.sweep(spec, out=tmp_path / "sw", jobs=2)
    assert s.counts["done"] == 4 and s.counts["failed"] == 0
    jct = s.results[s.results["metric"] == "jct_mean_s"]
    by = {(r.policy, r.seed): r.value for r in jct.itertuples()}
    assert by[("las", 0)] == by[("py-las", 0)] and by[("las", 1)] == by[("py-las", 1)]


def test_spec_file_policy_files_from_the_cli(tmp_path, cli):
    from conftest import EXAMPLES
    spec = write(tmp_path / "spec.json", json.dumps({
        "cluster": "default", "policy_files": [os.path.relpath(os.path.join(EXAMPLES, "las.py"), tmp_path)],
        "policies": ["py-las", "las"]}))
    r = cli("sweep", spec, "--out", tmp_path / "out", "-q")
    assert r.returncode == 0, r.stderr
    res = pd.read_csv(tmp_path / "out" / "results.csv")
    jct = res[res["metric"] == "jct_mean_s"].set_index("policy")["value"]
    assert jct["las"] == jct["py-las"]
    bad = write(tmp_path / "bad.json", json.dumps({"cluster": "default", "policy_files": ["missing.py"], "policies": ["fifo"]}))
    r = cli("sweep", bad, "--dry-run")
    assert r.returncode == 2 and "field 'policy_files[0]': file not found" in r.stderr


def test_thread_counts_are_checked_like_the_cli():
    for bad in (0, -1, 4097, 2.5, True, "2"):
        with pytest.raises(hetsim.InputError,
                           match=r"hetsim.compare\(\): field 'jobs': must be a whole number of threads from 1 to 4096"):
            hetsim.compare(["fifo"], jobs=bad)
    with pytest.raises(hetsim.InputError, match=r"hetsim.sweep\(\): field 'jobs'"):
        hetsim.sweep({"policies": ["fifo"]}, jobs=0)
