"""A stand-in for autograd, written for hetsim's Sia fidelity run (autograd is not a Debian package).
Sia's simulator (goodput.py, fit_perf_params) uses only autograd.numpy (here: numpy itself) and
autograd.grad of its scalar fitting loss with respect to the parameter vector, which this computes
by forward finite differences (forward, because the parameters sit on lower bounds of 1e-8 that a
backward step would cross). The fitted throughput models can therefore differ from the artifact's
in the last digits of the optimiser's stopping point."""
import numpy as _np

from . import numpy  # noqa: F401  (autograd.numpy)


def grad(fn, argnum=0):
    def gradient(*args):
        x = _np.asarray(args[argnum], dtype=float)
        g = _np.zeros_like(x)
        a = list(args)
        f0 = fn(*a)
        for i in range(x.size):
            h = 1e-7 * max(1.0, abs(x.flat[i]))
            up = x.copy()
            up.flat[i] += h
            a[argnum] = up
            g.flat[i] = (fn(*a) - f0) / h
        return g
    return gradient
