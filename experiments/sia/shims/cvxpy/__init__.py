"""A stand-in for the part of cvxpy that Sia's simulator (siasosp23/artifacts, sia-simulator/sia.py)
uses, written for hetsim's Sia fidelity run because cvxpy is not a Debian package. It models affine
expressions over integer variables and solves the resulting MILP with scipy.optimize.milp (HiGHS)
instead of CBC: same problem, a different branch-and-bound, so ties between equal optima may break
differently. Supported: Variable, multiply, sum (all / axis 0), @ with numpy arrays, + - * by
scalars, indexing one element, <= >= == constraints, Minimize, Maximize, Problem.solve.
Nothing else of cvxpy exists here; Gavel's policies (which need more) are not run."""
import itertools

import numpy as np
import scipy.optimize
import scipy.sparse as sp

CBC = "CBC"
GLPK_MI = "GLPK_MI"
GLPK = "GLPK"
ECOS = "ECOS"
SCS = "SCS"

_ids = itertools.count()


def _shape_size(shape):
    return int(np.prod(shape)) if len(shape) else 1


class Expression:
    """Affine expression: value = sum_v coef[v] @ x_v + const, flattened row-major to `shape`."""
    __array_ufunc__ = None  # make numpy defer `ndarray @ Expression` etc. to our reflected operators
    __array_priority__ = 1000

    def __init__(self, shape, coef, const):
        self.shape = tuple(shape)
        self.coef = coef  # {variable: sparse matrix (size x variable size)}
        self.const = np.broadcast_to(np.asarray(const, dtype=float), (_shape_size(self.shape),)).copy()

    @property
    def size(self):
        return _shape_size(self.shape)

    def _map(self, matrix, shape, const_fn):
        return Expression(shape, {v: (matrix @ m).tocsr() for v, m in self.coef.items()}, const_fn(self.const))

    def __add__(self, other):
        other = _as_expr(other, self.shape)
        shape = self.shape if self.size >= other.size else other.shape
        a, b = _broadcast(self, shape), _broadcast(other, shape)
        coef = dict(a.coef)
        for v, m in b.coef.items():
            coef[v] = (coef[v] + m).tocsr() if v in coef else m
        return Expression(shape, coef, a.const + b.const)

    __radd__ = __add__

    def __neg__(self):
        return Expression(self.shape, {v: -m for v, m in self.coef.items()}, -self.const)

    def __sub__(self, other):
        return self + (-_as_expr(other, self.shape))

    def __rsub__(self, other):
        return _as_expr(other, self.shape) + (-self)

    def __mul__(self, k):
        if isinstance(k, Expression):
            raise TypeError("only affine expressions are supported")
        k = float(k)
        return Expression(self.shape, {v: m * k for v, m in self.coef.items()}, self.const * k)

    __rmul__ = __mul__

    def __matmul__(self, b):  # Expression (m x n) @ array (n x q)
        b = np.asarray(b, dtype=float)
        m, n = self.shape
        q = b.shape[1] if b.ndim == 2 else None
        b2 = b if b.ndim == 2 else b.reshape(-1, 1)
        mat = sp.kron(sp.identity(m), sp.csr_matrix(b2.T)).tocsr()
        shape = (m, q) if q is not None else (m,)
        return self._map(mat, shape, lambda c: mat @ c)

    def __rmatmul__(self, a):  # array (p x m) @ Expression (m x n)
        a = np.atleast_2d(np.asarray(a, dtype=float))
        if len(self.shape) == 1:
            mat = sp.csr_matrix(a)
            return self._map(mat, (a.shape[0],), lambda c: mat @ c)
        m, n = self.shape
        mat = sp.kron(sp.csr_matrix(a), sp.identity(n)).tocsr()
        return self._map(mat, (a.shape[0], n), lambda c: mat @ c)

    def __getitem__(self, index):
        flat = np.arange(self.size).reshape(self.shape)[index]
        rows = np.atleast_1d(flat).ravel()
        mat = sp.csr_matrix((np.ones(len(rows)), (np.arange(len(rows)), rows)), shape=(len(rows), self.size))
        return self._map(mat, np.shape(flat), lambda c: mat @ c)

    def __le__(self, other):
        return Constraint(self - other, "<=")

    def __ge__(self, other):
        return Constraint(self - other, ">=")

    def __eq__(self, other):
        return Constraint(self - other, "==")

    __hash__ = object.__hash__


class Variable(Expression):
    def __init__(self, shape=(), integer=False, boolean=False, **_):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.id = next(_ids)
        self.integer = integer or boolean
        self.value = None
        n = _shape_size(shape)
        super().__init__(shape, {self: sp.identity(n, format="csr")}, 0.0)

    __hash__ = object.__hash__


def _as_expr(x, shape):
    if isinstance(x, Expression):
        return x
    arr = np.asarray(x, dtype=float)
    return Expression(arr.shape, {}, arr.ravel() if arr.ndim else arr)


def _broadcast(e, shape):
    if e.shape == tuple(shape) or e.size == _shape_size(shape):
        return Expression(shape, e.coef, e.const)
    if e.size != 1:
        raise ValueError("cannot broadcast %s to %s" % (e.shape, shape))
    n = _shape_size(shape)
    ones = sp.csr_matrix(np.ones((n, 1)))
    return Expression(shape, {v: (ones @ m).tocsr() for v, m in e.coef.items()}, np.full(n, e.const[0]))


def multiply(a, b):
    if isinstance(a, Expression) and isinstance(b, Expression):
        raise TypeError("only affine expressions are supported")
    e, k = (a, b) if isinstance(a, Expression) else (b, a)
    k = np.broadcast_to(np.asarray(k, dtype=float), e.shape).ravel()
    d = sp.diags(k).tocsr()
    return e._map(d, e.shape, lambda c: d @ c)


def sum(expr, axis=None):  # noqa: A001 (cvxpy's name)
    if not isinstance(expr, Expression):
        return np.sum(expr, axis=axis)
    if axis is None or len(expr.shape) <= 1:
        mat = sp.csr_matrix(np.ones((1, expr.size)))
        return expr._map(mat, (), lambda c: mat @ c)
    if axis != 0 or len(expr.shape) != 2:
        raise NotImplementedError("sum over axis %r" % axis)
    m, n = expr.shape
    mat = sp.kron(sp.csr_matrix(np.ones((1, m))), sp.identity(n)).tocsr()
    return expr._map(mat, (n,), lambda c: mat @ c)


class Constraint:
    def __init__(self, expr, sense):
        self.expr, self.sense = expr, sense


class Minimize:
    def __init__(self, expr):
        self.expr, self.sign = _as_expr(expr, ()), 1.0


class Maximize:
    def __init__(self, expr):
        self.expr, self.sign = _as_expr(expr, ()), -1.0


class Problem:
    def __init__(self, objective, constraints=None):
        self.objective = objective
        self.constraints = list(constraints or [])
        self.status = None
        self.value = None

    def solve(self, solver=None, verbose=False, **kwargs):
        variables = {}
        for e in [self.objective.expr] + [c.expr for c in self.constraints]:
            for v in e.coef:
                variables.setdefault(v.id, v)
        order = [variables[k] for k in sorted(variables)]
        offset, col = 0, {}
        for v in order:
            col[v] = offset
            offset += v.size

        def dense_rows(e):
            blocks = [sp.csr_matrix((e.size, offset))]
            for v, block in e.coef.items():
                b = block.tocoo()
                blocks.append(sp.csr_matrix((b.data, (b.row, b.col + col[v])), shape=(e.size, offset)))
            return sp.csr_matrix(np.sum(blocks)) if len(blocks) > 1 else blocks[0]

        obj = self.objective.expr
        c = np.asarray(dense_rows(obj).todense()).ravel() * self.objective.sign
        cons = []
        for con in self.constraints:
            a = dense_rows(con.expr)
            rhs = -con.expr.const
            if con.sense == "<=":
                cons.append(scipy.optimize.LinearConstraint(a, -np.inf, rhs))
            elif con.sense == ">=":
                cons.append(scipy.optimize.LinearConstraint(a, rhs, np.inf))
            else:
                cons.append(scipy.optimize.LinearConstraint(a, rhs, rhs))
        integrality = np.concatenate([np.full(v.size, 1 if v.integer else 0) for v in order]) if order else None
        # Sia passes CBC's allowablePercentageGap (percent); HiGHS takes a relative gap.
        gap = kwargs.get("allowablePercentageGap")
        options = {"disp": False}
        if gap is not None:
            options["mip_rel_gap"] = gap / 100.0
        res = scipy.optimize.milp(c, constraints=cons, integrality=integrality,
                                  bounds=scipy.optimize.Bounds(-np.inf, np.inf), options=options)
        if res.x is None:
            self.status = "infeasible"
            return None
        self.status = "optimal" if res.status == 0 else "optimal_inaccurate"
        for v in order:
            v.value = res.x[col[v]:col[v] + v.size].reshape(v.shape) if v.shape else res.x[col[v]]
        self.value = float(self.objective.sign * res.fun + obj.const[0]) if np.ndim(res.fun) == 0 else None
        return self.value
