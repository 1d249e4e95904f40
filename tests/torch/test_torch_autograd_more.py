"""ember.torch.autograd against PyTorch 2.13, the second part: hooks on leaves (the engine's
hook point), post-accumulate-grad hooks, anomaly mode, ``autograd.graph`` (``grad_fn``,
``Node``), ``forward_ad``, the engine switches and runtime queries."""

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import ember
import ember.torch as et
import ember.torch.autograd.forward_ad as efw
from ember.errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError
from ember.torch import autograd as ea

RNG = np.random.default_rng(7)
SHAPES = [(), (0,), (3,), (2, 3)]


def pair(values, dtype="float64", requires_grad=True):
    """The same values as an ember.torch tensor and a torch tensor."""
    arr = np.asarray(values, dtype=dtype)
    return (et.tensor(arr, requires_grad=requires_grad),
            torch.tensor(arr, requires_grad=requires_grad))


def close(e, t, atol=1e-6):
    assert isinstance(e, et.Tensor), type(e)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=atol)


# -- Tensor.register_hook on leaves ---------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_leaf_hooks_run_in_order_and_replace(shape):
    vals = RNG.standard_normal(shape)

    def run(lib, x):
        seen = []
        h1 = x.register_hook(lambda g: seen.append(("first", g.tolist())))
        x.register_hook(lambda g: g * 3)
        x.register_hook(lambda g: seen.append(("third", g.tolist())))
        (x.sin() * 2).sum().backward()
        first = x.grad.clone()
        h1.remove()
        h1.remove()  # twice: nothing happens
        (x * x).sum().backward()
        return seen, first, x.grad

    xe, xt = pair(vals)
    se, fe, ge = run(et, xe)
    st, ft, gt = run(torch, xt)
    assert [s[0] for s in se] == [s[0] for s in st]
    for (_, a), (_, b) in zip(se, st):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)
    close(fe, ft)
    close(ge, gt)


def test_leaf_hook_in_autograd_grad_and_second_order():
    xe, xt = pair([0.5, -1.5, 2.0])
    for x in (xe, xt):
        x.register_hook(lambda g: g * 2)
    ge = ea.grad((xe ** 3).sum(), xe, create_graph=True)[0]
    gt = torch.autograd.grad((xt ** 3).sum(), xt, create_graph=True)[0]
    close(ge, gt)
    # the hook also applies to the gradient of the gradient
    close(ea.grad(ge.sum(), xe)[0], torch.autograd.grad(gt.sum(), xt)[0])
    assert xe.grad is None and xt.grad is None


def test_leaf_usable_after_autograd_grad():
    xe, xt = pair([1.0, 2.0])
    ea.grad((xe * xe).sum(), xe)
    torch.autograd.grad((xt * xt).sum(), xt)
    (xe * 3).sum().backward()
    (xt * 3).sum().backward()
    close(xe.grad, xt.grad)
    w = ember.tensor([1.0, 2.0]).require_grad()
    ember.autodiff.grad(lambda v: (v * v).sum())(w)
    assert (w * 3).sum().backward().get(w).tolist() == [3.0, 3.0]


def test_non_leaf_hooks_count_every_use_and_retain_in_grad():
    def run(lib, x):
        h = x * 3
        z = h * h  # recorded before the hook: its gradient still goes through it
        h.register_hook(lambda g: g * 2)
        h.retain_grad()
        loss = (z + h).sum()
        loss.register_hook(lambda g: g * 10)  # a hook on the root itself
        (gh,) = lib.autograd.grad(loss, h, retain_graph=True)
        first = h.grad.clone()
        (gx,) = lib.autograd.grad(loss, x, retain_graph=True)
        loss.backward()
        return gh, first, gx, h.grad, x.grad, h.retains_grad

    for vals in ([1.0, -2.0], 0.5, np.zeros((2, 0))):
        xe, xt = pair(vals)
        re, rt = run(et, xe), run(torch, xt)
        for a, b in zip(re[:5], rt[:5]):
            close(a, b)
        assert re[5] is rt[5] is True


def test_leaf_hook_errors():
    xe, _ = pair([1.0, 2.0])
    with pytest.raises(InvalidParameterError):
        xe.register_hook(3)
    with pytest.raises(GraphError):
        et.ones(2).register_hook(lambda g: g)
    xe.register_hook(lambda g: g[:1])
    with pytest.raises(ShapeMismatchError, match="changed the size"):
        (xe * 2).sum().backward()
    ye, _ = pair([1.0, 2.0])
    ye.register_hook(lambda g: "not a tensor")
    with pytest.raises(KindError):
        (ye * 2).sum().backward()


def test_leaf_hook_does_not_touch_plain_ember():
    w = ember.tensor([1.0, 2.0]).require_grad()
    grads = (w * w).sum().backward()
    assert grads.get(w).tolist() == [2.0, 4.0] and w.grad.tolist() == [2.0, 4.0]


# -- register_post_accumulate_grad_hook ---------------------------------------------------

def test_post_accumulate_grad_hook_sees_the_sum_and_can_step():
    vals = RNG.standard_normal((2, 3))

    def run(lib, p):
        seen = []

        def step(t):
            seen.append(t.grad.clone())
            with lib.no_grad():
                t.sub_(0.1 * t.grad)
            t.grad = None
        handle = p.register_post_accumulate_grad_hook(step)
        for _ in range(3):
            (p.tanh() ** 2).sum().backward()
        handle.remove()
        (p * 2).sum().backward()
        return seen, p, p.grad

    pe, pt = pair(vals)
    se, pe2, ge = run(et, pe)
    st, pt2, gt = run(torch, pt)
    assert len(se) == len(st) == 3
    for a, b in zip(se, st):
        close(a, b)
    close(pe2, pt2)
    close(ge, gt)


def test_post_accumulate_grad_hook_errors():
    xe, xt = pair([1.0])
    with pytest.raises(GraphError, match="non-leaf"):
        (xe * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError):
        (xt * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(InvalidParameterError):
        xe.register_post_accumulate_grad_hook(None)
    xe.register_post_accumulate_grad_hook(lambda t: 1)
    with pytest.raises(GraphError, match="must return None"):
        (xe * 2).sum().backward()


# -- anomaly mode -------------------------------------------------------------------------

def _nan_message(lib, fn, vals):
    x = lib.tensor(vals, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        fn(x).sum().backward()
    return str(info.value)


@pytest.mark.parametrize("fn", [lambda x: x.sqrt(), lambda x: x.sqrt() * 0,
                                lambda x: (x * 0).sqrt()])
def test_detect_anomaly_names_the_step(fn):
    vals = [-1.0, 0.0]
    with ea.detect_anomaly():
        me = _nan_message(et, fn, vals)
    with pytest.warns(UserWarning), torch.autograd.detect_anomaly():
        mt = _nan_message(torch, fn, vals)
    assert me == mt
    # outside anomaly mode the NaN goes to .grad, as PyTorch's
    xe, xt = pair(vals)
    fn(xe).sum().backward()
    fn(xt).sum().backward()
    np.testing.assert_array_equal(np.isnan(xe.grad.numpy()), np.isnan(xt.grad.numpy()))


def test_anomaly_error_is_typed_and_in_autograd_grad():
    xe, _ = pair([-4.0])
    with ea.detect_anomaly():
        with pytest.raises(ea.AnomalyError) as info:
            ea.grad(xe.sqrt().sum(), xe)
    assert isinstance(info.value, GraphError) and "SqrtBackward0" in str(info.value)


def test_anomaly_switches_as_pytorch():
    def states(lib):
        out = [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        with lib.autograd.detect_anomaly(check_nan=False):
            out += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        out.append(lib.is_anomaly_enabled())
        lib.autograd.set_detect_anomaly(True)
        out.append(lib.is_anomaly_enabled())
        lib.autograd.set_detect_anomaly(False)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            out += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        out += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        return out

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert states(et) == states(torch)

    @ea.detect_anomaly()
    def inside():
        return et.is_anomaly_enabled()
    assert [inside(), et.is_anomaly_enabled()] == [True, False]


def test_anomaly_check_nan_false_lets_nan_through():
    xe, _ = pair([-1.0])
    with ea.detect_anomaly(check_nan=False):
        xe.sqrt().sum().backward()
    assert np.isnan(xe.grad.numpy()).all()
    with pytest.raises(InvalidParameterError):
        ea.detect_anomaly(check_nan="yes")
    with pytest.raises(InvalidParameterError):
        ea.set_detect_anomaly(1)


# -- autograd.graph and Tensor.grad_fn ----------------------------------------------------

def _ops(x, w):
    return [x * w, x + w, x - w, x / w, x.exp(), x.sin(), x.sqrt(), x.sum(), x.mean(),
            x.tanh(), x.pow(2), -x, x.log(), x.sigmoid(), x.abs()]


def test_grad_fn_names_as_pytorch():
    xe, xt = pair(RNG.uniform(1, 2, (2, 3)))
    we, wt = pair(RNG.uniform(1, 2, (2, 3)))
    assert [y.grad_fn.name() for y in _ops(xe, we)] == [y.grad_fn.name() for y in _ops(xt, wt)]
    assert xe.grad_fn is None and xt.grad_fn is None
    assert et.ones(2).grad_fn is None and torch.ones(2).grad_fn is None


def _structure(fn):
    """The graph under ``fn`` as nested (name, children) tuples, None for constants."""
    if fn is None:
        return None
    return (fn.name(), tuple((_structure(f), k) for f, k in fn.next_functions))


def test_next_functions_as_pytorch():
    def build(lib, x, w):
        c = lib.ones(3)
        return ((x * w + c).tanh() * x).sum()
    xe, xt = pair(RNG.standard_normal(3))
    we, wt = pair(RNG.standard_normal(3))
    ye, yt = build(et, xe, we), build(torch, xt, wt)
    assert _structure(ye.grad_fn) == _structure(yt.grad_fn)
    leaf = ye.grad_fn.next_functions[0][0].next_functions[1][0]
    assert leaf.name() == "torch::autograd::AccumulateGrad" and leaf.variable is xe
    assert ye.grad_fn == ye.grad_fn and hash(ye.grad_fn) == hash(ye.grad_fn)
    assert ye.grad_fn != leaf


def test_grad_fn_skips_hook_steps():
    xe, xt = pair([1.0, 2.0])
    ce, ct = pair([3.0, 4.0], requires_grad=False)
    ye, yt = xe * ce, xt * ct
    ye.register_hook(lambda g: g)
    yt.register_hook(lambda g: g)
    assert ye.grad_fn.name() == yt.grad_fn.name() == "MulBackward0"
    assert _structure((ye + ce).grad_fn) == _structure((yt + ct).grad_fn)


def test_node_hooks_as_pytorch():
    vals = RNG.standard_normal((2, 2))

    def run(lib, x):
        seen = []
        y = x * 3
        z = y.exp()
        fn = z.grad_fn
        fn.register_prehook(lambda go: (go[0] * 2,))
        h = fn.register_hook(lambda gi, go: seen.append((gi[0].clone(), go[0].clone())))
        fn.register_hook(lambda gi, go: (gi[0] + 1,))
        y.grad_fn.metadata["tag"] = "mine"
        z.sum().backward(retain_graph=True)
        first = x.grad.clone()
        h.remove()
        z.sum().backward()
        return seen, first, x.grad, y.grad_fn.metadata

    xe, xt = pair(vals)
    se, fe, ge, me = run(et, xe)
    st, ft, gt, mt = run(torch, xt)
    assert len(se) == len(st) == 1
    close(se[0][0], st[0][0])
    close(se[0][1], st[0][1])
    close(fe, ft)
    close(ge, gt)
    assert me == mt == {"tag": "mine"}


def test_accumulate_grad_prehook_and_gradient_edge():
    def run(lib, x):
        edge = lib.autograd.graph.get_gradient_edge(x)
        edge.node.register_prehook(lambda go: (go[0] * 10,))
        (x * x).sum().backward()
        y = x * 2
        return (edge.node.name(), edge.output_nr,
                lib.autograd.graph.get_gradient_edge(y).node.name(), x.grad)

    xe, xt = pair([1.0, -3.0])
    re, rt = run(et, xe), run(torch, xt)
    assert re[:3] == rt[:3]
    close(re[3], rt[3])
    with pytest.raises(GraphError):
        ea.graph.get_gradient_edge(et.ones(1))
    with pytest.raises(GraphError):
        ea.graph.get_gradient_edge(xe).node.register_hook(lambda gi, go: None)


# -- forward_ad ---------------------------------------------------------------------------

FUNCS = [
    lambda lib, d, c: (d * c).sin() + d ** 2,
    lambda lib, d, c: (d.exp() * c).sum(),
    lambda lib, d, c: (d.tanh() / (1 + c * c)).mean(),
    lambda lib, d, c: lib.where(d > 0, d * c, -d),
]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", range(len(FUNCS)))
def test_forward_ad_tangent_as_pytorch(shape, k):
    x, t, c = (RNG.standard_normal(shape) for _ in range(3))
    out = []
    for lib, fw in ((et, efw), (torch, tfw)):
        with fw.dual_level():
            d = fw.make_dual(lib.tensor(x), lib.tensor(t))
            p, tan = fw.unpack_dual(FUNCS[k](lib, d, lib.tensor(c)))
            out.append((p, tan))
    (pe, te), (pt, tt) = out
    close(pe, pt)
    if k == 2 and 0 in shape:  # the mean of nothing: PyTorch's tangent is 0/0, ember's J t 0
        assert np.isnan(tt.item()) and te.item() == 0.0
        return
    close(te, tt, atol=1e-10)
    assert pe.requires_grad == pt.requires_grad


def test_forward_ad_matmul_two_duals():
    a, b, ta, tb = (RNG.standard_normal((3, 3)) for _ in range(4))
    out = []
    for lib, fw in ((et, efw), (torch, tfw)):
        with fw.dual_level():
            da = fw.make_dual(lib.tensor(a), lib.tensor(ta))
            db = fw.make_dual(lib.tensor(b), lib.tensor(tb))
            y = (da @ db).softmax(-1)
            out.append(fw.unpack_dual(y).tangent)
            out.append(fw.unpack_dual(da).tangent)
    close(out[0], out[2], atol=1e-10)
    close(out[1], out[3])


def test_forward_ad_none_tangents_and_reverse_mode_through():
    xe, xt = pair([1.0, 2.0])
    res = []
    for lib, fw, x in ((et, efw, xe), (torch, tfw, xt)):
        with fw.dual_level():
            d = fw.make_dual(x, lib.tensor([1.0, 0.0], dtype=lib.float64))
            res.append(fw.unpack_dual(lib.ones(2)).tangent)
            (d * d).sum().backward()
        res.append(fw.unpack_dual(d).tangent)  # the level is gone
    assert res == [None, None, None, None]
    close(xe.grad, xt.grad)


def test_forward_ad_errors():
    x = et.ones(2)
    with pytest.raises(GraphError):
        efw.make_dual(x, x)
    with efw.dual_level():
        with pytest.raises(GraphError, match="Nested"):
            efw.enter_dual_level()
        with pytest.raises(ShapeMismatchError, match="different size"):
            efw.make_dual(x, et.ones(3))
        with pytest.raises(KindError):
            efw.make_dual(et.ones(2, dtype=et.int64), et.ones(2, dtype=et.int64))
        with pytest.raises(KindError):
            efw.unpack_dual([1.0])
    with pytest.raises(InvalidParameterError):
        efw.exit_dual_level()
    assert efw.unpack_dual(x).tangent is None


# -- engine switches and runtime queries --------------------------------------------------

@pytest.mark.parametrize("names", [("set_multithreading_enabled", "is_multithreading_enabled")])
def test_multithreading_switch_as_pytorch(names):
    def states(lib):
        setter, getter = (getattr(lib.autograd, n) for n in names)
        out = [getter()]
        with setter(False):
            out.append(getter())
        out.append(getter())
        setter(False)
        out.append(getter())
        setter(True)

        out.append(setter(False).clone().mode)
        setter(True)
        return out
    assert states(et) == states(torch)

    @ea.set_multithreading_enabled(False)
    def f():
        return ea.is_multithreading_enabled()
    assert [f(), ea.is_multithreading_enabled()] == [False, True]
    with pytest.raises(InvalidParameterError):
        ea.set_multithreading_enabled("no")


def test_enforce_grad_layout_policy_gradients_unchanged():
    vals = RNG.standard_normal((4, 2, 3))
    res = []
    for lib in (et, torch):
        p = lib.tensor(vals).permute(2, 0, 1).detach().requires_grad_()
        with lib.autograd.enforce_grad_layout_policy(False):
            (p * 2).sum().backward()
        res.append(p.grad)
    close(*res)
    assert ea.enforce_grad_layout_policy(True).clone().mode is True


def test_runtime_queries():
    class Like:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return None
    for v in (et.ones(1), ember.ones(1), Like(), 3, None, [1.0]):
        tv = torch.ones(1) if isinstance(v, ember.Tensor) else v
        assert ea.is_tensor_like(v) == torch.autograd.is_tensor_like(tv)
    assert ea.is_view_replay_enabled() is torch.autograd.is_view_replay_enabled() is False
    assert ea.kineto_available() is False  # ember has no Kineto (PyTorch's build has it)


# -- NestedIOFunction ---------------------------------------------------------------------

class _Affine(ea.NestedIOFunction):
    """y = (x * w[0] + w[1], (x * x,)) with the nested gradients written out."""

    def forward_extended(self, x, w):
        self.save_for_backward(x, w)
        self.flags = self.needs_input_grad
        return x * w[0] + w[1], (x * x,)

    def backward_extended(self, gy, rest):
        (gz,) = rest
        x, (a, b) = self.saved_tensors
        return gy * a + gz * 2 * x, (gy * x, gy)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_nested_io_function_against_pytorch_autograd(shape):
    x, a, b = (RNG.standard_normal(shape) for _ in range(3))
    xe, xt = pair(x)
    ae, at = pair(a)
    be, bt = pair(b, requires_grad=False)
    op = _Affine()
    ye, (ze,) = op(xe, (ae, be))
    yt, zt = xt * at + bt, xt * xt
    close(ye, yt)
    close(ze, zt)
    assert op.flags == (True, True, False)
    (ye.sin().sum() + ze.sum()).backward()
    (yt.sin().sum() + zt.sum()).backward()
    close(xe.grad, xt.grad)
    close(ae.grad, at.grad)
    assert be.grad is None


def test_nested_io_function_non_differentiable_output():
    class Split(ea.NestedIOFunction):
        def forward_extended(self, x):
            idx = (x > 0).to(et.float64)
            self.mark_non_differentiable(idx)
            return [x * 2, idx]

        def backward_extended(self, g, g_idx):
            return g * 2

    xe, xt = pair([-1.0, 2.0])
    ye, ie = Split()(xe)
    assert isinstance(ye, et.Tensor) and not ie.requires_grad
    ye.sum().backward()
    (xt * 2).sum().backward()
    close(xe.grad, xt.grad)
    with pytest.raises(NotImplementedError):
        ea.NestedIOFunction()(xe)
