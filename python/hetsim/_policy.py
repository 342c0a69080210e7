"""Base classes of Python policies and what the C++ registry needs to know about them.

A policy class is registered in a copy of the C++ policy registry (include/hetsim/policy/registry.hpp)
with its name, summary, source and declared parameters, so `--param` checking, `hetsim list`-style
errors and the mechanisms treat it exactly like a built-in policy.
"""
import importlib.util
import inspect
import os
import sys

import numpy as np

_UNBOUNDED = sys.float_info.max


class Param:
    """A declared policy parameter, as ParamInfo in include/hetsim/util/registry.hpp.

    `default` is text as on the command line; `range=(min, max)` makes it numeric (checked by the
    registry, converted to float for the policy); max may be None for unbounded.
    """

    def __init__(self, name, default, help="", range=None):
        self.name = str(name)
        self.default = str(default)
        self.help = str(help)
        self.range = None if range is None else (float(range[0]), _UNBOUNDED if range[1] is None else float(range[1]))
        # A bad default is the policy author's mistake: say so where the Param is written, not when
        # the first run builds the policy.
        if self.range is not None:
            try:
                value = float(self.default)
            except ValueError:
                value = None
            if value is None or value != value or not self.range[0] <= value <= self.range[1]:
                raise ValueError(f"hetsim.Param({self.name!r}): default {default!r} is not a number in "
                                 f"[{self.range[0]:g}, {self.range[1]:g}]")


class _PolicyBase:
    """What event and allocation policies share: declared parameters, name, parsed values."""

    name = None      # registered name; default: the class name
    source = ""      # the paper or system the policy follows (shown like `hetsim list policies`)
    params = []      # list of Param

    def __init__(self, params=None, seed=0):
        declared = {p.name: p for p in type(self).params}
        values = {p.name: p.default for p in declared.values()}
        values.update(params or {})
        # Numeric parameters arrive checked against their range; give the policy numbers.
        self.params = {k: (float(v) if k in declared and declared[k].range else v) for k, v in values.items()}
        self.seed = int(seed)


class Policy(_PolicyBase):
    """An event policy: `schedule(view)` returns a Decision (or None: change nothing).

    The mechanism calls it after every instant with arrivals or completions (or every round with
    `interval_s`). `round_s` (seconds) makes it round-based by default, like heet's 120 s rounds.
    """

    round_s = None

    def schedule(self, view):
        raise NotImplementedError(f"{type(self).__name__}.schedule(view) is not written")


class AllocationPolicy(_PolicyBase):
    """A round policy (Gavel's form): `allocate(view)` returns X, a float array of shape
    (len(view.jobs), len(view.type_names)): the share of wall time each job should get on each GPU type.
    """

    every_round = False         # True: recompute X every round (else on a change in the active set)
    fixed_type_order = True     # False: shuffle the GPU-type order each round (Gavel's agnostic policies)
    skip_zero_priority = False  # True: never schedule a job where its priority is 0 (Gavel's FIFO)

    def allocate(self, view):
        raise NotImplementedError(f"{type(self).__name__}.allocate(view) is not written")


class Decision:
    """A scheduling decision as arrays: preempt these running jobs; give job `jobs[i]`
    `gpu_counts[i]` GPUs of type `gpu_types[i]` (or the exact GPUs `gpus[i]` when that entry is not
    None). Job values are job indices (`view.jobs`), not row positions. A running job listed with
    its current type and count keeps its GPUs."""

    __slots__ = ("preempt", "jobs", "gpu_types", "gpu_counts", "gpus")

    def __init__(self, preempt=(), jobs=(), gpu_types=(), gpu_counts=(), gpus=None):
        self.preempt = np.asarray(preempt)
        self.jobs = np.asarray(jobs)
        self.gpu_types = np.asarray(gpu_types)
        self.gpu_counts = np.asarray(gpu_counts)
        self.gpus = gpus


def _summary_of(cls):
    doc = inspect.getdoc(cls) or ""
    return doc.strip().splitlines()[0] if doc.strip() else f"Python policy {cls.__qualname__}"


def _origin_of(cls):
    try:
        return os.path.abspath(inspect.getsourcefile(cls))
    except (TypeError, OSError):
        return f"<python: {cls.__module__}>"


def describe_policy(cls, origin=None):
    """The registry entry of a policy class (a dict the C++ side reads)."""
    if not isinstance(cls, type) or not issubclass(cls, (Policy, AllocationPolicy)):
        raise TypeError(f"{cls!r} is not a subclass of hetsim.Policy or hetsim.AllocationPolicy")
    if issubclass(cls, Policy) and issubclass(cls, AllocationPolicy):
        raise TypeError(f"{cls.__qualname__} derives from both hetsim.Policy and hetsim.AllocationPolicy: pick one")
    params = []
    for p in cls.params:
        if not isinstance(p, Param):
            raise TypeError(f"{cls.__qualname__}.params must hold hetsim.Param values, got {p!r}")
        params.append((p.name, p.default, p.help, p.range))
    return {
        "cls": cls,
        "name": cls.name or cls.__name__,
        "class_name": cls.__qualname__,
        "kind": "event" if issubclass(cls, Policy) else "allocation",
        "summary": _summary_of(cls),
        "source": cls.source,
        "params": params,
        "origin": origin or _origin_of(cls),
        "round_s": getattr(cls, "round_s", None),
    }


def _load_module(path):
    name = "hetsim_policy_file_" + "".join(c if c.isalnum() else "_" for c in os.path.abspath(path))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ValueError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def describe_policy_file(arg):
    """Entries of the policies in FILE[:ClassName]: the named class, else every policy class defined
    in the file (in definition order). Raises ValueError naming the file when there is none."""
    path, _, class_name = arg.partition(":") if not os.path.exists(arg) else (arg, "", "")
    if not os.path.isfile(path):
        raise ValueError(f"{path}: file not found")
    module = _load_module(path)
    origin = os.path.abspath(path)
    if class_name:
        cls = getattr(module, class_name, None)
        if cls is None:
            raise ValueError(f"{path}: no class '{class_name}' in the file")
        return [describe_policy(cls, origin)]
    found = [c for c in vars(module).values()
             if isinstance(c, type) and issubclass(c, (Policy, AllocationPolicy))
             and c not in (Policy, AllocationPolicy) and c.__module__ == module.__name__]
    if not found:
        raise ValueError(f"{path}: defines no subclass of hetsim.Policy or hetsim.AllocationPolicy")
    return [describe_policy(c, origin) for c in found]

