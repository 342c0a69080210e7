"""A Python policy sees the shared network (`--network shared`) through view.shared_network and
view.network_join, as C++ policies do through PolicyView::network()."""
import os

import hetsim
import policies
from conftest import SOURCE_DIR, write

TRACES = os.path.join(SOURCE_DIR, "traces")


def run(tmp_path, network, policy, comm="ring"):
    trace = write(tmp_path / "two.csv", "job_id,submit_s,num_gpus,iterations,job_type\n"
                  "a,0,4,10000,ToyLM (batch size 20)\nb,60,4,10000,ToyLM (batch size 20)\n")
    return hetsim.run(cluster=os.path.join(TRACES, "cluster-2rack.json"), trace=str(trace),
                      throughputs=os.path.join(TRACES, "jobtypes.json"), model="analytic", network=network,
                      model_params={"comm": comm},
                      policy=policy, until_s=600)


def fresh_probe():
    policies.ProbeNetwork.shared, policies.ProbeNetwork.joins = [], []
    return policies.ProbeNetwork


def test_alone_the_view_says_so_and_join_is_neutral(tmp_path):
    probe = fresh_probe()
    run(tmp_path, "alone", probe)
    assert probe.shared and not any(probe.shared)
    assert probe.joins and all(j == (1.0, 0.0) for j in probe.joins)


def test_shared_a_job_on_the_same_two_nics_would_halve_both(tmp_path):
    # Job a's flat ring 0-1-4-5 is paced by the 100 Gbit/s NICs (one hop each way across them), so
    # it fills both NICs while it transfers; a job on the other four GPUs of the same nodes would
    # move the same bytes over the same NICs: max-min gives each speed 0.5, and a's rate falls by
    # less than half (only the transfer part of its step slows).
    probe = fresh_probe()
    run(tmp_path, "shared", probe)
    assert probe.shared and all(probe.shared)
    speed, loss = probe.joins[0]
    assert abs(speed - 0.5) < 1e-9
    assert 0.0 < loss < 0.5
    # Hierarchical sync spends part of its transfer inside the nodes (NVLink), so its NIC use
    # averaged over the transfer is below the NIC's capacity: a share above one half.
    probe = fresh_probe()
    run(tmp_path, "shared", probe, comm="hierarchical")
    assert 0.5 < probe.joins[0][0] < 1.0


def test_bad_indices_are_the_policys_error(tmp_path):
    class BadIndex(hetsim.Policy):
        def schedule(self, view):
            view.network_join(10**6, [0])

    try:
        run(tmp_path, "shared", BadIndex)
        raised = None
    except hetsim.InputError as e:
        raised = str(e)
    assert raised and "IndexError" in raised and "job index 1000000 out of range" in raised
