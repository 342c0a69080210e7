"""Every example of examples/python runs (the compare-and-plot script end to end)."""
import os
import subprocess
import sys

from conftest import EXAMPLES


def test_compare_plot_script(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "compare_plot.py"), "--out", str(tmp_path / "cmp")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    for label in ("fifo", "las", "py-las", "gavel-maxmin", "py-maxmin"):
        assert label in r.stdout
        assert os.path.exists(tmp_path / "cmp" / label / "jobs.csv")
    assert os.path.getsize(tmp_path / "cmp" / "jct.png") > 1000


def test_las_and_maxmin_examples_load_from_the_cli(cli, tmp_path):
    for spec in ("las.py", "maxmin.py:MaxMinFairness"):
        r = cli("run", "--policy-file", os.path.join(EXAMPLES, spec), "--out", tmp_path / spec.split(".")[0], "-q")
        assert r.returncode == 0, r.stderr
        assert (tmp_path / spec.split(".")[0] / "jobs.csv").exists()
