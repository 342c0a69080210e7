"""Python FIFO and LAS against their C++ twins: byte-identical jobs.csv (and summary.json but for the
policy name), in-process (hetsim.run) and through the CLI's embedded interpreter (--policy-file)."""
import json
import os

import pytest

import hetsim
import las
import policies
from conftest import EXAMPLES, write

TWINS = [(policies.Fifo, "fifo"), (las.LeastAttainedService, "las")]


def small_trace(tmp_path):
    # 12 jobs on the 'default' cluster (duration model): contention, multi-GPU jobs, equal submit times.
    rows = ["job_id,submit_s,num_gpus,duration_s"]
    for i in range(12):
        rows.append(f"j{i},{(i // 2) * 300},{[1, 2, 4, 8][i % 4]},{1800 + 700 * (i % 5)}")
    return write(tmp_path / "small.csv", "\n".join(rows) + "\n")


def same_outputs(a, b):
    """jobs.csv bytes equal; summary.json equal once the policy names (also in its settings) are set aside."""
    with open(os.path.join(a, "jobs.csv"), "rb") as fa, open(os.path.join(b, "jobs.csv"), "rb") as fb:
        assert fa.read() == fb.read()
    sa, sb = (json.load(open(os.path.join(d, "summary.json"))) for d in (a, b))
    for s in (sa, sb):
        s.pop("policy"), s["settings"].pop("policy")
    assert sa == sb


@pytest.mark.parametrize("py_policy,cpp_policy", TWINS)
def test_twins_on_a_small_trace(tmp_path, py_policy, cpp_policy):
    trace = small_trace(tmp_path)
    py = hetsim.run(cluster="default", trace=trace, policy=py_policy, out=tmp_path / "py")
    cpp = hetsim.run(cluster="default", trace=trace, policy=cpp_policy, out=tmp_path / "cpp")
    same_outputs(tmp_path / "py", tmp_path / "cpp")
    assert py.jobs.equals(cpp.jobs)
    assert py.summary["completed"] == 12
    if cpp_policy == "las":
        assert cpp.summary["preemptions"] > 0  # the trace makes LAS preempt, so the rule is exercised


@pytest.mark.parametrize("py_policy,cpp_policy", TWINS)
def test_twins_on_the_heet_prototype_trace(tmp_path, data, py_policy, cpp_policy):
    kw = dict(cluster="heet-12", trace=data("heet-prototype", "trace.dat"), format="heet",
              throughputs=data("heet-prototype", "profiles.json"))
    py = hetsim.run(policy=py_policy, out=tmp_path / "py", **kw)
    hetsim.run(policy=cpp_policy, out=tmp_path / "cpp", **kw)
    same_outputs(tmp_path / "py", tmp_path / "cpp")
    assert py.summary["jobs_read"] == len(py.jobs) > 0


def test_cli_policy_file_matches_the_cpp_twin(tmp_path, cli):
    trace = small_trace(tmp_path)
    r = cli("run", "--cluster", "default", "--trace", trace, "--policy-file", os.path.join(EXAMPLES, "las.py"),
            "--out", tmp_path / "py", "-q")
    assert r.returncode == 0, r.stderr
    r = cli("run", "--cluster", "default", "--trace", trace, "--policy", "las", "--out", tmp_path / "cpp", "-q")
    assert r.returncode == 0, r.stderr
    same_outputs(tmp_path / "py", tmp_path / "cpp")
    assert json.load(open(tmp_path / "py" / "summary.json"))["policy"] == "py-las"


def test_cli_compare_with_a_policy_file(tmp_path, cli):
    trace = small_trace(tmp_path)
    r = cli("compare", "--cluster", "default", "--trace", trace, "--policy-file",
            os.path.join(EXAMPLES, "las.py") + ":LeastAttainedService", "--policies", "las,py-las,fifo",
            "--out", tmp_path / "cmp", "-q")
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "cmp" / "las" / "jobs.csv", "rb") as a, open(tmp_path / "cmp" / "py-las" / "jobs.csv", "rb") as b:
        assert a.read() == b.read()
