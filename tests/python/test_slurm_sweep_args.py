"""scripts/slurm-sweep.sh refuses bad arguments before anything is queued, without a Slurm cluster.

A fake `sbatch` on PATH records its calls and prints job ids, so these run anywhere; the real
submission path is tested on a one-node Slurm by scripts/slurm-test.sh (.ci/run).
"""
import os
import stat
import subprocess

import pytest

from conftest import SOURCE_DIR, write

SCRIPT = os.path.join(SOURCE_DIR, "scripts", "slurm-sweep.sh")
SPEC = os.path.join(SOURCE_DIR, "tests", "slurm", "sweep.json")   # 12 points

FAKE_SBATCH = """#!/bin/sh
# Records each call; refuses the merge job when FAKE_SBATCH_FAIL_MERGE is set.
echo "$*" >> "$FAKE_SBATCH_LOG"
case "$*" in
  *hetsim-sweep*) if [ -n "$FAKE_SBATCH_FAIL_ARRAY" ]; then echo "sbatch: error: invalid partition" >&2; exit 1; fi
                  echo 501 ;;
  *hetsim-merge*) if [ -n "$FAKE_SBATCH_FAIL_MERGE" ]; then echo "sbatch: error: refused by the test" >&2; exit 1; fi
                  echo 502 ;;
  *) echo 501 ;;
esac
"""


@pytest.fixture
def slurm_sweep(tmp_path, cli):
    """Runs slurm-sweep.sh with a fake sbatch; returns (CompletedProcess, the sbatch calls)."""
    hetsim = os.environ.get("HETSIM_CLI", os.path.join(SOURCE_DIR, "build", "release", "hetsim"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sbatch = write(bin_dir / "sbatch", FAKE_SBATCH)
    os.chmod(sbatch, os.stat(sbatch).st_mode | stat.S_IXUSR)
    log = tmp_path / "sbatch.log"

    def run(*args, **env_extra):
        env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", HETSIM=hetsim,
                   CHECK_TIMEOUT="0", FAKE_SBATCH_LOG=str(log))
        env.update(env_extra)
        p = subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, env=env, timeout=60)
        calls = log.read_text().splitlines() if log.exists() else []
        return p, calls
    return run


def test_help_prints_usage_and_exits_0(slurm_sweep):
    p, calls = slurm_sweep("-h")
    assert p.returncode == 0
    assert "bash scripts/slurm-sweep.sh SPEC OUT_DIR [SHARDS]" in p.stdout
    assert calls == []


@pytest.mark.parametrize("args,env,message", [
    (["SPEC", ""], {}, "slurm-sweep: OUT_DIR is empty"),
    (["", "OUT"], {}, "slurm-sweep: SPEC is empty"),
    (["SPEC", "OUT", "99999999999999999999"], {}, "SHARDS must be a whole number from 1 to 100000, not '99999999999999999999'"),
    (["SPEC", "OUT", "100001"], {}, "SHARDS must be a whole number from 1 to 100000"),
    (["SPEC", "OUT", "0"], {}, "SHARDS must be a whole number from 1 to 100000, not '0'"),
    (["SPEC", "OUT", ""], {}, "SHARDS must be a whole number from 1 to 100000, not ''"),
    (["SPEC", "OUT", "2", ""], {}, "THREADS_PER_SHARD must be a whole number from 1 to 4096, not ''"),
    (["SPEC", "OUT", "2", "x"], {}, "THREADS_PER_SHARD must be a whole number from 1 to 4096, not 'x'"),
    (["SPEC", "OUT"], {"CHECK_TIMEOUT": "99999999999999999999"},
     "CHECK_TIMEOUT must be a number of seconds from 0 to 86400, not '99999999999999999999'"),
    (["SPEC", "OUT"], {"HETSIM": ""}, "HETSIM is set but empty"),
    (["SPEC", "OUT"], {"HETSIM": "/"}, "slurm-sweep: / is not an executable file"),
    (["SPEC", "OUT"], {"HETSIM": "/bin/false"}, "/bin/false is not a working hetsim binary"),
])
def test_bad_arguments_exit_2_and_submit_nothing(slurm_sweep, tmp_path, args, env, message):
    args = [SPEC if a == "SPEC" else str(tmp_path / "out") if a == "OUT" else a for a in args]
    p, calls = slurm_sweep(*args, **env)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr
    assert calls == []


def test_a_bad_spec_is_named_and_nothing_is_submitted(slurm_sweep, tmp_path):
    spec = write(tmp_path / "bad.json", '{"name": "x", "policies": ["no-such-policy"]}')
    p, calls = slurm_sweep(spec, str(tmp_path / "out"))
    assert p.returncode == 2
    assert f"'hetsim sweep --dry-run' rejected {spec} (exit 2" in p.stderr
    assert calls == []


def test_more_shards_than_points_is_refused(slurm_sweep, tmp_path):
    p, calls = slurm_sweep(SPEC, str(tmp_path / "out"), "13")
    assert p.returncode == 2
    assert "SHARDS (13) is more than the spec's 12 points" in p.stderr
    assert calls == []


def test_a_refused_merge_names_the_queued_array_and_the_merge_command(slurm_sweep, tmp_path):
    out = tmp_path / "out"
    p, calls = slurm_sweep(SPEC, str(out), "4", FAKE_SBATCH_FAIL_MERGE="1")
    assert p.returncode == 2
    assert "submitted as array job 501, but submitting the merge job failed" in p.stderr
    assert "sbatch: error: refused by the test" in p.stderr
    assert f"merge {SPEC} --out {out}" in p.stderr
    assert "scancel 501" in p.stderr
    assert len(calls) == 2 and "--array=0-3" in calls[0] and "hetsim-merge" in calls[1]


def test_a_refused_array_exits_2_saying_nothing_was_submitted(slurm_sweep, tmp_path):
    p, calls = slurm_sweep(SPEC, str(tmp_path / "out"), "4", "--", "--partition=nope", FAKE_SBATCH_FAIL_ARRAY="1")
    assert p.returncode == 2
    assert "sbatch: error: invalid partition" in p.stderr
    assert "slurm-sweep: sbatch refused the shard array (exit 1, its message above); nothing was submitted" in p.stderr
    assert len(calls) == 1 and "--partition=nope" in calls[0]


def test_a_good_submission_queues_the_array_then_the_merge(slurm_sweep, tmp_path):
    p, calls = slurm_sweep(SPEC, str(tmp_path / "out"), "4", "1")
    assert p.returncode == 0, p.stderr
    assert "submitted 4 shards as array job 501 and the merge as job 502" in p.stdout
    assert "--dependency=afterany:501" in calls[1]
