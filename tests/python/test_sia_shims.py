"""experiments/sia/shims: the cvxpy stand-in solves Sia's formulation (written as sia.py writes it) on
the hand-solved 2-job, 2-type instance of tests/test_sia_goodput.cpp, and the autograd stand-in's
gradient matches a hand-computed one."""
import os
import sys

import numpy as np

ROOT = os.environ.get("HETSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "experiments", "sia", "shims"))

import autograd  # noqa: E402  (the stand-in)
import cvxpy as cp  # noqa: E402  (the stand-in)


def solve_sia(a_matrix, lambda_n=1.1, capacity=(1, 1)):
    # sia.py optimize_mip with one config per type (1 GPU each), weights 1, p < 0 (minimise).
    n_jobs, n_configs = a_matrix.shape
    x = cp.Variable(shape=a_matrix.shape, integer=True)
    weights = np.ones((1, n_jobs), dtype=np.float32)
    obj = cp.sum(weights @ cp.multiply(x, a_matrix))
    obj += lambda_n * (n_jobs - cp.sum(x))
    reduce_matrix = np.eye(n_configs, dtype=np.uint32)  # config c uses 1 GPU of type c
    used = 0
    used += cp.sum(x @ reduce_matrix, axis=0)
    constraints = [x >= 0, x <= 1, used <= np.asarray(capacity), used >= 0,
                   (x @ np.ones((n_configs, 1))) <= np.ones((n_jobs, 1))]
    problem = cp.Problem(cp.Minimize(obj), constraints=constraints)
    problem.solve(solver=cp.CBC, allowablePercentageGap=0.01)
    return np.round(x.value).astype(int), problem


def test_cvxpy_shim_solves_the_hand_solved_instance():
    # A: job A {1.00, 0.50}, job B {1.00, 0.83}: A fast + B slow = 0.50 + 1.00 + 1.1 x (2 - 2) = 1.50 is
    # the minimum (A slow + B fast: 1.83).
    x, problem = solve_sia(np.array([[1.0, 0.5], [1.0, 0.83]]))
    assert problem.status == "optimal"
    assert x.tolist() == [[0, 1], [1, 0]]
    assert abs(problem.value - 1.5) < 1e-9


def test_cvxpy_shim_restart_penalty_and_capacity():
    # A held type 0 with factor 0.25 (type 1 scores 1.00), B holds type 1 (0.83): they stay.
    x, _ = solve_sia(np.array([[1.0, 1.0], [1.0, 0.83]]))
    assert x.tolist() == [[1, 0], [0, 1]]
    # One GPU in all: only job A, on type 1.
    x, problem = solve_sia(np.array([[1.0, 0.5], [1.0, 0.83]]), capacity=(0, 1))
    assert x.tolist() == [[0, 1], [0, 0]]
    assert abs(problem.value - (0.5 + 1.1)) < 1e-9


def test_cvxpy_shim_indexing_pins_a_variable():
    a = np.array([[1.0, 0.5], [1.0, 0.83]])
    x = cp.Variable(shape=a.shape, integer=True)
    obj = cp.sum(np.ones((1, 2)) @ cp.multiply(x, a)) + 1.1 * (2 - cp.sum(x))
    used = cp.sum(x @ np.eye(2), axis=0)
    cons = [x >= 0, x <= 1, used <= np.array([1, 1]), (x @ np.ones((2, 1))) <= np.ones((2, 1)), x[1, 1] == 1]
    cp.Problem(cp.Minimize(obj), cons).solve()
    assert np.round(x.value).astype(int).tolist() == [[1, 0], [0, 1]]


def test_autograd_shim_gradient():
    f = lambda p, k: float(np.sum((p - k) ** 2))  # noqa: E731
    g = autograd.grad(f)(np.array([0.0, 2.0]), 1.0)
    assert np.allclose(g, [-2.0, 2.0], atol=1e-5)
