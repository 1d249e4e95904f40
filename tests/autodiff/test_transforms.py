"""The function transforms (``ember.autodiff``: grad, vjp, jvp, jacobian, hessian, vmap) against
torch.func, on the ops of the gradient table (``test_gradients.CASES``).

- ``hessian`` of ``F(xs) = sum(out * seed)`` over every input, on every entry of the table (its
  smallest non-empty shape set), equals PyTorch's (``torch.autograd`` double backward, row by
  row: torch.func.hessian vmaps, and its batched layer_norm and batch_norm rules give wrong
  cross terms); float64, 1e-10.
- ``grad(grad(...))`` and ``jvp`` on every entry equal torch.func's ``grad`` and ``jvp``.
- ``vmap`` of the elementwise, reduction, movement and matmul entries over a batch of 3 equals
  ``torch.func.vmap``.
"""

import zlib

import numpy as np
import pytest
import torch

import ember
from ember.autodiff import grad, hessian, jacobian, jvp, vjp, vmap
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError

import test_gradients as tg
from test_gradients import CASES, _as_list

TOL = dict(rtol=1e-10, atol=1e-10)
# entries that compute through float32 or float16 (a cast, softmax's dtype=): their float64
# derivatives agree to those dtypes' precision
LOW_PRECISION = ("cast_f32_f64", "float_f64", "cast_f16_f64", "F.softmax_dtype",
                 "F.log_softmax_dtype")


def _tol(c):
    return dict(rtol=1e-3, atol=1e-3) if c.name in LOW_PRECISION else TOL
HESSIAN_MAX = 24  # input elements of the shape set a Hessian is taken on


def _smallest(c):
    sets = [s for s in c.shapes if 0 < sum(int(np.prod(x)) for x in s) <= HESSIAN_MAX]
    return min(sets, key=lambda s: sum(int(np.prod(x)) for x in s)) if sets else None


def _setup(c, shapes, tag):
    rng = np.random.default_rng(zlib.crc32(repr((tag, c.name, shapes)).encode()))
    base = [np.asarray(g(rng, s), dtype=np.float64) for g, s in zip(c.gens(len(shapes)), shapes)]
    extra = c.extra(rng, shapes) if c.extra else {}
    with ember.no_grad():
        outs = _as_list(c.fe(*[ember.from_numpy(b.copy()) for b in base], **extra))
    seeds = [np.asarray(rng.standard_normal(tuple(o.shape))) for o in outs]
    return rng, base, extra, seeds


def _total(terms):
    """The sum of 0-d tensors (on the device of the first: a term may sit on another device
    after a to_device, and is moved)."""
    total = terms[0]
    for t in terms[1:]:
        total = total + t.to_device(total.device)
    return total


def _scalar_functions(c, extra, seeds):
    def fe(*xs):
        outs = _as_list(c.fe(*xs, **extra))
        return _total([(o * ember.from_numpy(s).to_device(o.device)).sum()
                       for o, s in zip(outs, seeds)])

    def ft(*ts):
        outs = _as_list(c.ft(*ts, **extra))
        return sum(((o * torch.from_numpy(s)).sum() for o, s in zip(outs, seeds)),
                   torch.zeros((), dtype=torch.float64))
    return fe, ft


def _np(t):
    if isinstance(t, ember.Tensor):
        return np.array(t.numpy())
    return t.detach().numpy(force=True)  # force: torch.func may give an all-zero ZeroTensor


def _torch_or_autograd(torch_func, autograd):
    """torch.func's value; for the few table entries torch.func cannot trace (in-place
    updates of copies), the same quantity from torch.autograd."""
    try:
        return torch_func()
    except (RuntimeError, NotImplementedError):
        return autograd()


_HESSIAN = [pytest.param(c, id=c.name) for c in CASES if _smallest(c) is not None]


@pytest.mark.parametrize("c", _HESSIAN)
def test_hessian_matches_torch_func(c):
    shapes = _smallest(c)
    _, base, extra, seeds = _setup(c, shapes, "hessian")
    fe, ft = _scalar_functions(c, extra, seeds)
    nums = tuple(range(len(base)))
    he = hessian(fe, argnums=nums)(*[ember.from_numpy(b.copy()) for b in base])
    ts = [torch.from_numpy(b.copy()) for b in base]

    def by_autograd():
        xs = [t.clone().requires_grad_(True) for t in ts]
        total = ft(*xs)
        gs = [None] * len(xs)
        if total.requires_grad:
            gs = torch.autograd.grad(total, xs, create_graph=True, allow_unused=True)

        def block(i, j):  # d grad_i / d x_j, of shape x_i.shape + x_j.shape
            g, x = gs[i], xs[j]
            out = torch.zeros(tuple(xs[i].shape) + tuple(x.shape), dtype=torch.float64)
            if g is None or not g.requires_grad:
                return out
            flat = out.reshape(g.numel(), x.numel())
            for k in range(g.numel()):
                h = torch.autograd.grad(g.reshape(-1)[k], x, retain_graph=True,
                                        allow_unused=True)[0]
                if h is not None:
                    flat[k] = h.detach().reshape(-1)
            return out

        return [[block(i, j) for j in range(len(xs))] for i in range(len(xs))]

    # torch.func.hessian (and jacrev of jacrev: both vmap the vjp) gives wrong cross terms of
    # layer_norm and batch_norm in torch 2.13, against torch.autograd and finite differences;
    # the Hessian's oracle is torch.autograd's double backward, row by row
    ht = by_autograd()
    for i in nums:
        for j in nums:
            np.testing.assert_allclose(_np(he[i][j]), _np(ht[i][j]), **_tol(c),
                                       err_msg=f"Hessian block ({i}, {j})")


_ALL = [pytest.param(c, id=c.name) for c in CASES]


@pytest.mark.parametrize("c", _ALL)
def test_grad_of_grad_and_jvp_match_torch_func(c):
    shapes = c.shapes[-1]
    rng, base, extra, seeds = _setup(c, shapes, "grad-grad")
    fe, ft = _scalar_functions(c, extra, seeds)
    vs = [np.asarray(rng.standard_normal(b.shape)) for b in base]
    nums = tuple(range(len(base)))
    xs = [ember.from_numpy(b.copy()) for b in base]
    ts = tuple(torch.from_numpy(b.copy()) for b in base)
    tvs = tuple(torch.from_numpy(v) for v in vs)

    def directional(*p):  # <grad F(p), v>
        return _total([(g * ember.from_numpy(v).to_device(g.device)).sum()
                       for g, v in zip(grad(fe, nums)(*p), vs)])

    second = grad(directional, nums)(*xs)

    def t_directional(*p):
        return sum((g * v).sum() for g, v in zip(torch.func.grad(ft, nums)(*p), tvs))

    def by_autograd():
        ps = [t.clone().requires_grad_(True) for t in ts]
        gs = torch.autograd.grad(ft(*ps), ps, create_graph=True, allow_unused=True)
        dot = sum((g * v).sum() for g, v in zip(gs, tvs) if g is not None and g.requires_grad)
        if not torch.is_tensor(dot) or not dot.requires_grad:
            return tuple(torch.zeros_like(t) for t in ts)
        return tuple(torch.zeros_like(t) if h is None else h
                     for t, h in zip(ts, torch.autograd.grad(dot, ps, allow_unused=True)))

    t_second = _torch_or_autograd(lambda: torch.func.grad(t_directional, nums)(*ts), by_autograd)
    for k in nums:
        np.testing.assert_allclose(_np(second[k]), _np(t_second[k]), **_tol(c),
                                   err_msg=f"grad(grad) of input {k}")
    # forward mode: d/de F(x + e v) = <grad F, v>, with PyTorch's gradient (torch.func.jvp
    # itself differs from torch's own gradient where a gradient is defined away from the
    # derivative: embedding's padding_idx row gets none, but its forward mode moves it)
    _, tangent = jvp(fe, tuple(xs), tuple(ember.from_numpy(v) for v in vs))
    expected = _torch_or_autograd(
        lambda: sum(((g * v).sum() for g, v in zip(torch.func.grad(ft, nums)(*ts), tvs)),
                    torch.zeros((), dtype=torch.float64)),
        lambda: t_directional_autograd(ft, ts, tvs))
    np.testing.assert_allclose(_np(tangent), _np(expected), **_tol(c), err_msg="jvp")


def t_directional_autograd(ft, ts, tvs):
    ps = [t.clone().requires_grad_(True) for t in ts]
    gs = torch.autograd.grad(ft(*ps), ps, allow_unused=True)
    return sum(((g * v).sum() for g, v in zip(gs, tvs) if g is not None),
               torch.zeros((), dtype=torch.float64))


_FAMILIES = {name for name, *_ in tg._UNARY + tg._BINARY + tg._RED + tg._MOVE}
_FAMILIES |= {c.name for c in CASES if "matmul" in c.name or c.name in ("dot", "ember.dot",
                                                                          "outer")}
_VMAP = [pytest.param(c, id=c.name) for c in CASES if c.name in _FAMILIES]


@pytest.mark.parametrize("c", _VMAP)
def test_vmap_matches_torch_func(c):
    shapes = c.shapes[-1]
    rng = np.random.default_rng(zlib.crc32(repr(("vmap", c.name, shapes)).encode()))
    gens = c.gens(len(shapes))
    batch = [np.stack([np.asarray(g(rng, s), dtype=np.float64) for _ in range(3)])
             for g, s in zip(gens, shapes)]
    extra = c.extra(rng, shapes) if c.extra else {}
    got = vmap(lambda *xs: c.fe(*xs, **extra))(*[ember.from_numpy(b.copy()) for b in batch])
    want = torch.func.vmap(lambda *ts: c.ft(*ts, **extra))(*[torch.from_numpy(b.copy())
                                                             for b in batch])
    got, want = _as_list(got), _as_list(want)
    assert len(got) == len(want)
    for e, t in zip(got, want):
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_allclose(_np(e), _np(t), **TOL)


# -- the transforms themselves --------------------------------------------------------------------

def test_grad_leaves_no_grad_on_its_inputs_and_returns_untracked_tensors():
    x = ember.tensor([1.0, 2.0]).require_grad()
    g = grad(lambda x: (x * x).sum())(x)
    assert g.tolist() == [2.0, 4.0]
    assert x.grad is None


def test_grad_of_a_closure_over_an_outer_argument():
    # d/dw of (d/dy w*y^2 at y=2) = d/dw (4w) = 4
    y = ember.tensor([2.0], dtype=ember.float64)
    inner = lambda w: grad(lambda y: (w * y * y).sum())(y).sum()
    assert grad(inner)(ember.tensor([3.0], dtype=ember.float64)).tolist() == [4.0]


def test_backward_create_graph_gives_tracked_gradients():
    x = ember.tensor([1.0, 2.0], dtype=ember.float64).require_grad()
    (gx,) = [(x * x * x).sum().backward(create_graph=True).get(x)]
    assert gx.is_tracked() and gx.tolist() == [3.0, 12.0]
    x.grad = None
    gx.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def test_default_backward_gradients_carry_no_graph():
    x = ember.tensor([1.0, 2.0]).require_grad()
    grads = (x * x).sum().backward()
    assert not grads.get(x).is_tracked() and not x.grad.is_tracked()


def test_vjp_and_jacobian():
    x = ember.tensor([1.0, 3.0], dtype=ember.float64)
    out, fn = vjp(lambda x: x * x, x)
    assert out.tolist() == [1.0, 9.0] and not out.is_tracked()
    assert fn(ember.tensor([1.0, 0.5], dtype=ember.float64))[0].tolist() == [2.0, 3.0]
    assert fn(ember.tensor([0.0, 1.0], dtype=ember.float64))[0].tolist() == [0.0, 6.0]
    assert jacobian(lambda x: x * x)(x).tolist() == [[2.0, 0.0], [0.0, 6.0]]


def test_grad_has_aux_and_argnums_tuple():
    a, b = ember.tensor([2.0]), ember.tensor([5.0])
    (ga, gb), aux = grad(lambda a, b: ((a * b).sum(), "aux"), argnums=(0, 1), has_aux=True)(a, b)
    assert ga.tolist() == [5.0] and gb.tolist() == [2.0] and aux == "aux"


def test_vmap_in_dims_out_dims_and_tuple_outputs():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    w = ember.tensor([10.0, 1.0])
    assert vmap(lambda r, w: r * w, in_dims=(1, None))(x, w).tolist() == [[10.0, 3.0],
                                                                          [20.0, 4.0]]
    s, p = vmap(lambda r: (r.sum(), r * 2), out_dims=(0, 1))(x)
    assert s.tolist() == [3.0, 7.0] and p.tolist() == [[2.0, 6.0], [4.0, 8.0]]


def test_transforms_refuse_bad_arguments():
    x = ember.tensor([1.0, 2.0])
    with pytest.raises(ShapeMismatchError, match="0-d float"):
        grad(lambda x: x * 2)(x)
    with pytest.raises(InvalidParameterError, match="argnums 3 is out of range"):
        grad(lambda x: x.sum(), argnums=3)(x)
    with pytest.raises(InvalidParameterError, match="argnums"):
        grad(lambda x: x.sum(), argnums="0")(x)
    with pytest.raises(KindError, match="float tensor"):
        grad(lambda x: x.sum())(ember.tensor([1, 2]))
    with pytest.raises(InvalidParameterError, match="callable"):
        vmap(3)
    with pytest.raises(ShapeMismatchError, match="batch dim"):
        vmap(lambda a, b: a + b)(ember.ones(2, 3), ember.ones(3, 3))
    with pytest.raises(InvalidParameterError, match="size 0"):
        vmap(lambda a: a)(ember.ones(0, 3))
    with pytest.raises(ShapeMismatchError, match="tangent 0"):
        jvp(lambda a: a, (x,), (ember.ones(3),))
    out, fn = vjp(lambda a: a * 2, x)
    with pytest.raises(ShapeMismatchError, match="cotangent 0"):
        fn(ember.ones(3))
