"""Python policies that raise or return malformed decisions: a clear error naming the policy class
and the offending entry (or a refusal warning, as for C++ policies), never a crash or a hang."""
import os

import pytest

import hetsim
import policies
from conftest import write

POLICIES_FILE = os.path.abspath(policies.__file__)


def test_an_exception_names_file_line_class_and_shows_the_traceback():
    with pytest.raises(hetsim.InputError) as err:
        hetsim.run(cluster="default", policy=policies.Raises)
    text = str(err.value)
    line = next(i for i, l in enumerate(open(POLICIES_FILE), 1) if "return 1 / 0" in l)
    assert text.startswith(f"{POLICIES_FILE}:{line}: field 'Raises.schedule': Python policy 'Raises' raised ZeroDivisionError")
    assert "Traceback (most recent call last)" in text and "return 1 / 0" in text


def test_the_cli_exits_2_with_the_traceback(cli):
    r = cli("run", "--cluster", "default", "--policy-file", f"{POLICIES_FILE}:Raises")
    assert r.returncode == 2
    assert "field 'Raises.schedule'" in r.stderr and "ZeroDivisionError: division by zero" in r.stderr
    r = cli("run", "--policy-file", f"{POLICIES_FILE}:NoSuchClass")
    assert r.returncode == 2 and "no class 'NoSuchClass'" in r.stderr
    r = cli("run", "--policy-file", "missing.py")
    assert r.returncode == 2 and "missing.py: file not found" in r.stderr


def test_refused_requests_are_warnings_naming_the_policy():
    r = hetsim.run(cluster="default", policy=policies.UnknownJob, until_s=3600)
    assert any("policy 'UnknownJob': allocation for unknown job index 1000000" in w for w in r.warnings)
    r = hetsim.run(cluster="default", policy=policies.TooMany, until_s=3600)
    assert any("policy 'TooMany'" in w and "requested but only" in w for w in r.warnings)
    r = hetsim.run(cluster="default", policy=policies.GpuTwice, until_s=3600)
    assert any("policy 'GpuTwice'" in w and "repeated or not free" in w for w in r.warnings)


def test_malformed_arrays_are_errors_naming_the_entry():
    with pytest.raises(hetsim.InputError, match=r"field 'FloatJobs.schedule': .*decision.jobs\[0\] = nan, not an integer"):
        hetsim.run(cluster="default", policy=policies.FloatJobs)
    with pytest.raises(hetsim.InputError, match=r"field 'HugeJobs.schedule': .*decision.jobs\[0\] = 4.611686018427388e\+18, "
                                                 r"an integer out of range"):
        hetsim.run(cluster="default", policy=policies.HugeJobs)
    with pytest.raises(hetsim.InputError, match=r"field 'Mismatch.schedule': .*lengths 2, 1 and 2"):
        hetsim.run(cluster="default", policy=policies.Mismatch)


def test_a_policy_that_never_gives_gpus_ends_with_unfinished_jobs():
    r = hetsim.run(cluster="default", policy=policies.Nothing)
    assert (r.jobs["status"] == "unfinished").all()
    assert "the policy left it without GPUs" in r.jobs["reason"].iloc[0]
    r = hetsim.run(cluster="default", policy=policies.Nothing, interval_s=600)
    assert (r.jobs["status"] == "unfinished").all()
    r = hetsim.run(cluster="default", policy=policies.ZeroShares)
    assert r.summary["mechanism"] == "gavel" and (r.jobs["status"] == "unfinished").all()


def test_bad_allocation_matrices(tmp_path):
    with pytest.raises(hetsim.InputError, match=r"field 'NanShares.allocate': .*X\[0\]\[0\] = nan for job job-0 on GPU type"):
        hetsim.run(cluster="default", policy=policies.NanShares)
    with pytest.raises(hetsim.InputError, match=r"field 'WrongShape.allocate': .*expected"):
        hetsim.run(cluster="default", policy=policies.WrongShape)


def test_a_name_taken_by_a_builtin_is_refused():
    class Shadow(hetsim.Policy):
        name = "fifo"

    with pytest.raises(hetsim.InputError, match=r"policy name 'fifo' is already registered"):
        hetsim.run(policy=Shadow)


def test_a_view_kept_after_its_pass_refuses_new_reads():
    kept = []

    class Keeper(hetsim.Policy):
        def schedule(self, view):
            kept.append(view)
            return None

    hetsim.run(cluster="default", policy=Keeper, until_s=60)
    with pytest.raises(RuntimeError, match="after its scheduling pass"):
        kept[0].remaining_work


@pytest.mark.parametrize("bad", [float("nan"), 1e13, -5.0, 0.0001, "abc", True])
def test_a_round_length_outside_the_interval_rules_is_refused(bad):
    class BadRound(hetsim.Policy):
        name = "bad-round"
        round_s = bad

        def schedule(self, view):
            return None

    with pytest.raises(hetsim.InputError, match=r"BadRound.round_s': must be None, 0 or a number of seconds"):
        hetsim.run(cluster="default", policy=BadRound)


def test_a_setting_json_cannot_hold_is_an_input_error():
    with pytest.raises(hetsim.InputError, match=r"hetsim.run\(\): field 'until_s': must be a finite number, got nan"):
        hetsim.run(cluster="default", until_s=float("nan"))


def test_a_param_default_outside_its_range_is_refused_where_it_is_written():
    with pytest.raises(ValueError, match=r"hetsim.Param\('alpha'\): default 'abc' is not a number in \[0, 10\]"):
        hetsim.Param("alpha", "abc", range=(0, 10))
    with pytest.raises(ValueError, match=r"default 11 is not a number in \[0, 10\]"):
        hetsim.Param("alpha", 11, range=(0, 10))
    assert hetsim.Param("alpha", "10", range=(0, 10)).default == "10"
    assert hetsim.Param("mode", "abc").default == "abc"  # text parameters take any default
