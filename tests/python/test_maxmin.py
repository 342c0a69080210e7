"""A Python allocation policy under Gavel's round mechanism against gavel-maxmin, on a 2-job,
2-type example solved by hand:

  types fast and slow, one GPU each; job a runs at 4 steps/s on fast and 1 on slow, job b at 1 on
  both. Proportional shares P_a = (4 + 1) / 2 = 2.5, P_b = 1. Job b's normalised throughput
  x_bf + x_bs is at most 1, so the max-min optimum is z = 1 with b's row summing to 1, and the
  second LP (maximise 4 x_af + x_as over the same z) gives a all of fast: X = [[1, 0], [0, 1]]."""
import json

import numpy as np
import pytest

import hetsim
from conftest import write
from maxmin import MaxMinFairness


def example(tmp_path):
    cluster = write(tmp_path / "c.json", json.dumps({
        "name": "two", "gpu_types": [{"name": "fast"}, {"name": "slow"}],
        "nodes": [{"gpu_type": "fast", "gpus": 1}, {"gpu_type": "slow", "gpus": 1}]}))
    types = write(tmp_path / "t.json", json.dumps({"job_types": {
        "a": {"gradient_bytes": 1e6, "step_time_s": {"fast": 0.25, "slow": 1.0}},
        "b": {"gradient_bytes": 1e6, "step_time_s": {"fast": 1.0, "slow": 1.0}}}}))
    trace = write(tmp_path / "j.csv", "job_id,submit_s,num_gpus,iterations,job_type\na,0,1,14400,a\nb,0,1,7200,b\n")
    return dict(cluster=cluster, trace=trace, throughputs=types, mechanism="gavel", interval_s=360)


class FakeView:
    throughput = np.array([[4.0, 1.0], [1.0, 1.0]])
    scale_factor = np.array([1, 1], dtype=np.int32)
    priority_weight = np.array([1.0, 1.0])
    gpus_per_type = np.array([1, 1], dtype=np.int32)


def test_the_lp_gives_the_hand_solved_allocation():
    x = MaxMinFairness().allocate(FakeView())
    np.testing.assert_allclose(x, [[1.0, 0.0], [0.0, 1.0]], atol=1e-7)


def test_python_maxmin_equals_gavel_maxmin(tmp_path):
    kw = example(tmp_path)
    py = hetsim.run(policy=MaxMinFairness, out=tmp_path / "py", **kw)
    cpp = hetsim.run(policy="gavel-maxmin", out=tmp_path / "cpp", **kw)
    assert py.summary["mechanism"] == cpp.summary["mechanism"] == "gavel"
    assert open(tmp_path / "py" / "jobs.csv", "rb").read() == open(tmp_path / "cpp" / "jobs.csv", "rb").read()
    jobs = py.jobs.set_index("job_id")
    # a: 14400 steps at 4/s on fast = 3600 s (10 rounds); b: 1 step/s on slow, then on fast once a
    # is done (its only job left; the same rate), 7200 steps = 7200 s.
    assert jobs.loc["a", "gpu_types"] == "fast" and jobs.loc["b", "gpu_types"] == "fast|slow"
    assert jobs.loc["a", "jct_s"] == pytest.approx(3600.0) and jobs.loc["b", "jct_s"] == pytest.approx(7200.0)
