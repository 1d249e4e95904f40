"""ember.torch.autograd against PyTorch 2.13: grad and backward with PyTorch's arguments,
custom Functions (first and second order), autograd.functional, gradcheck, grad modes,
Variable and tensor hooks."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError
from ember.torch import autograd as ea


def pair(values, dtype="float64", requires_grad=True):
    """The same values as an ember.torch tensor and a torch tensor."""
    arr = np.asarray(values, dtype=dtype)
    return (et.tensor(arr, requires_grad=requires_grad),
            torch.tensor(arr, requires_grad=requires_grad))


def close(e, t, atol=1e-6):
    assert isinstance(e, et.Tensor), type(e)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=atol)
    assert tuple(e.shape) == tuple(t.shape)


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_grad_first_and_second_order(shape):
    vals = RNG.standard_normal(shape)
    xe, xt = pair(vals)
    ye, yt = pair(RNG.standard_normal(shape))
    fe = (xe.sin() * ye + xe ** 3).sum()
    ft = (xt.sin() * yt + xt ** 3).sum()
    ge = ea.grad(fe, (xe, ye), create_graph=True)
    gt = torch.autograd.grad(ft, (xt, yt), create_graph=True)
    assert isinstance(ge, tuple) and len(ge) == 2
    for a, b in zip(ge, gt):
        close(a, b)
    close(ea.grad(ge[0].sum(), xe, retain_graph=True)[0],
          torch.autograd.grad(gt[0].sum(), xt, retain_graph=True)[0])
    close(ea.grad(ge[0].sum(), ye)[0], torch.autograd.grad(gt[0].sum(), yt)[0])
    assert ge[0].requires_grad and not ea.grad(fe.detach() * xe.sum(), xe)[0].requires_grad


def test_grad_outputs_several_outputs_and_nonleaf_inputs():
    xe, xt = pair([1.0, 2.0, 3.0])
    he, ht = xe * 2, xt * 2
    oe, ot = [he ** 2, he.exp()], [ht ** 2, ht.exp()]
    ve, vt = pair([1.0, -1.0, 0.5], requires_grad=False)
    ge = ea.grad(oe, [xe, he], [ve, ve], retain_graph=True)
    gt = torch.autograd.grad(ot, [xt, ht], [vt, vt], retain_graph=True)
    for a, b in zip(ge, gt):
        close(a, b)
    bat_e = ea.grad(oe[0], xe, et.eye(3, dtype=et.float64), is_grads_batched=True)[0]
    bat_t = torch.autograd.grad(ot[0], xt, torch.eye(3, dtype=torch.float64),
                                is_grads_batched=True)[0]
    close(bat_e, bat_t)


def test_grad_unused_and_errors():
    xe, _ = pair([1.0, 2.0])
    ze, _ = pair([3.0])
    out = (xe * 2).sum()
    with pytest.raises(GraphError, match="appears to not have been used"):
        ea.grad(out, [xe, ze], retain_graph=True)
    assert ea.grad(out, [xe, ze], allow_unused=True, retain_graph=True)[1] is None
    assert ea.grad(out, [xe, ze], materialize_grads=True)[1].tolist() == [0.0]
    with pytest.raises(GraphError, match="only for scalar outputs"):
        ea.grad(xe * 2, xe)
    with pytest.raises(GraphError, match="does not require grad"):
        ea.grad(et.ones(2).sum(), xe)
    with pytest.raises(GraphError, match="does not require grad"):
        ea.grad((xe * 2).sum(), et.ones(2))
    with pytest.raises(ShapeMismatchError):
        ea.grad(xe * 2, xe, et.ones(3, dtype=et.float64))
    with pytest.raises(KindError):
        ea.grad("x", xe)
    with pytest.raises(InvalidParameterError):
        ea.grad((xe * 2).sum(), xe, allow_unused=False, materialize_grads=True)


def test_backward_accumulates_and_inputs():
    xe, xt = pair([1.0, -2.0])
    ye, yt = pair([0.5, 3.0])
    for _ in range(2):
        ea.backward([(xe * ye).sum(), (xe ** 2).sum()])
        torch.autograd.backward([(xt * yt).sum(), (xt ** 2).sum()])
    close(xe.grad, xt.grad)
    close(ye.grad, yt.grad)
    he, ht = xe * 3, xt * 3
    ea.backward(he, grad_tensors=et.tensor([1.0, 2.0], dtype=et.float64), inputs=[he, ye])
    torch.autograd.backward(ht, grad_tensors=torch.tensor([1.0, 2.0], dtype=torch.float64),
                            inputs=[ht, yt])
    close(he.grad, ht.grad)
    close(xe.grad, xt.grad)  # not accumulated: x is not among inputs
    close(ye.grad, yt.grad)


class TorchCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.k, None


class EmberCube(ea.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.k, None


def test_function_first_and_second_order():
    xe, xt = pair([0.5, -1.5, 2.0])
    ye, yt = EmberCube.apply(xe, 2.0), TorchCube.apply(xt, 2.0)
    assert isinstance(ye, et.Tensor) and ye.requires_grad
    close(ye, yt)
    ge = ea.grad(ye.sum(), xe, create_graph=True)[0]
    gt = torch.autograd.grad(yt.sum(), xt, create_graph=True)[0]
    close(ge, gt)
    close(ea.grad(ge.sum(), xe)[0], torch.autograd.grad(gt.sum(), xt)[0])
    with ea.no_grad():
        assert not EmberCube.apply(xe, 1.0).requires_grad


def make_split(lib, base):
    class Split(base):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            idx = (x > 0).long() if lib is torch else (x > 0).to(et.int64)
            ctx.mark_non_differentiable(idx)
            ctx.record = ctx.needs_input_grad
            return x * y, x + y, idx

        @staticmethod
        def backward(ctx, g_prod, g_sum, g_idx):
            x, y = ctx.saved_tensors
            return g_prod * y + g_sum, g_prod * x + g_sum
    return Split


def test_function_several_outputs_and_non_differentiable():
    xe, xt = pair([1.0, -2.0])
    ye, yt = pair([3.0, 4.0], requires_grad=False)
    se, st = make_split(et, ea.Function), make_split(torch, torch.autograd.Function)
    pe, qe, ie = se.apply(xe, ye)
    pt, qt, it = st.apply(xt, yt)
    assert not ie.requires_grad and ie.tolist() == it.tolist()
    (pe * 2 + qe * 3).sum().backward()
    (pt * 2 + qt * 3).sum().backward()
    close(xe.grad, xt.grad)
    ue, ut = pair([1.0, 1.0])
    (se.apply(ue, ye)[0]).sum().backward()  # the second output unused: zeros for it
    (st.apply(ut, yt)[0]).sum().backward()
    close(ue.grad, ut.grad)


def test_function_setup_context_and_once_differentiable():
    class Exp(ea.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        @ea.once_differentiable
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out

    xe, xt = pair([0.1, 0.7])
    ye = Exp.apply(xe)
    close(ea.grad(ye.sum(), xe, retain_graph=True)[0], torch.autograd.grad(xt.exp().sum(), xt)[0])
    with pytest.raises(GraphError, match="does not require grad"):  # as PyTorch's
        ea.grad(ea.grad(ye.sum(), xe, create_graph=True, retain_graph=True)[0].sum(), xe)
    seed = et.ones(2, dtype=et.float64, requires_grad=True)
    g = ea.grad(ye, xe, seed, create_graph=True)[0]
    with pytest.raises(GraphError, match="once_differentiable"):
        ea.grad(g.sum(), seed)


def test_function_gradient_count_and_shape_errors():
    class Bad(ea.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    class WrongShape(ea.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum()

    xe, _ = pair([1.0, 2.0])
    with pytest.raises(GraphError, match="incorrect number of gradients"):
        Bad.apply(xe).sum().backward()
    with pytest.raises(ShapeMismatchError, match="invalid gradient at index 0"):
        WrongShape.apply(xe).sum().backward()


def f_tuple(x, y):
    return (x * y).sin(), x.exp() * y.sum()


@pytest.mark.parametrize("create_graph", [False, True])
def test_functional_jacobian_vjp_jvp(create_graph):
    xe, xt = pair(RNG.standard_normal(3))
    ye, yt = pair(RNG.standard_normal(3))
    je = ea.functional.jacobian(f_tuple, (xe, ye), create_graph=create_graph)
    jt = torch.autograd.functional.jacobian(f_tuple, (xt, yt), create_graph=create_graph)
    for row_e, row_t in zip(je, jt):
        for a, b in zip(row_e, row_t):
            close(a, b)
            assert a.requires_grad == b.requires_grad
    ve, vt = pair(RNG.standard_normal(3), requires_grad=False)
    oe, ge = ea.functional.vjp(lambda x: x.tanh() * 2, xe, ve, create_graph=create_graph)
    ot, gt = torch.autograd.functional.vjp(lambda x: x.tanh() * 2, xt, vt,
                                           create_graph=create_graph)
    close(oe, ot)
    close(ge, gt)
    oe, te = ea.functional.jvp(f_tuple, (xe, ye), (ve, ve), create_graph=create_graph)
    ot, tt = torch.autograd.functional.jvp(f_tuple, (xt, yt), (vt, vt),
                                           create_graph=create_graph)
    for a, b in zip(te, tt):
        close(a, b)
    single = ea.functional.jacobian(lambda x: x ** 2, xe)
    close(single, torch.autograd.functional.jacobian(lambda x: x ** 2, xt))


def rosen(x):
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def test_functional_hessian_hvp_vhp():
    xe, xt = pair([0.5, -0.3, 1.2])
    ve, vt = pair([1.0, 2.0, -1.0], requires_grad=False)
    close(ea.functional.hessian(rosen, xe), torch.autograd.functional.hessian(rosen, xt))
    for name in ("hvp", "vhp"):
        oe, re_ = getattr(ea.functional, name)(rosen, xe, ve)
        ot, rt = getattr(torch.autograd.functional, name)(rosen, xt, vt)
        close(oe, ot)
        close(re_, rt, atol=1e-5)
    he = ea.functional.hessian(lambda a, b: (a * b ** 2).sum(), (xe, xe * 1))
    ht = torch.autograd.functional.hessian(lambda a, b: (a * b ** 2).sum(), (xt, xt * 1))
    for row_e, row_t in zip(he, ht):
        for a, b in zip(row_e, row_t):
            close(a, b)


def test_functional_strict_and_errors():
    xe, _ = pair([1.0, 2.0])
    ye, _ = pair([1.0, 2.0])
    with pytest.raises(GraphError, match="independent of input 1"):
        ea.functional.jacobian(lambda a, b: a * 2, (xe, ye), strict=True)
    jac = ea.functional.jacobian(lambda a, b: a * 2, (xe, ye))
    assert jac[1].tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(InvalidParameterError, match="can only be None"):
        ea.functional.vjp(lambda a: a * 2, xe)
    with pytest.raises(KindError):
        ea.functional.hessian(lambda a: (a, a), xe)
    with pytest.raises(InvalidParameterError):
        ea.functional.jacobian(lambda a: a, xe, strategy="sideways")


def test_gradcheck_and_gradgradcheck():
    xe, _ = pair(RNG.standard_normal(4))
    ye, _ = pair(RNG.standard_normal(4))
    assert ea.gradcheck(lambda a, b: (a * b).sin(), (xe, ye))
    assert ea.gradgradcheck(lambda a, b: a.exp() * b, (xe, ye))
    assert ea.gradcheck(EmberCube.apply, (xe, 3.0))
    assert ea.gradgradcheck(EmberCube.apply, (xe, 3.0))

    class Wrong(ea.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    assert not ea.gradcheck(Wrong.apply, (xe,), raise_exception=False)
    with pytest.raises(ea.GradcheckError, match="Jacobian mismatch"):
        ea.gradcheck(Wrong.apply, (xe,))
    with pytest.raises(InvalidParameterError):
        ea.gradcheck(lambda a: a, (et.ones(2),))


def test_grad_modes():
    xe, _ = pair([1.0])

    @ea.no_grad()
    def f():
        return (xe * 2).requires_grad

    @ea.set_grad_enabled(False)
    def g():
        return (xe * 2).requires_grad

    assert not f() and not g() and (xe * 2).requires_grad
    with ea.no_grad():
        with ea.enable_grad():
            assert (xe * 2).requires_grad
        assert not (xe * 2).requires_grad
    with ea.inference_mode():
        assert not (xe * 2).requires_grad
    ea.set_grad_enabled(False)
    assert not (xe * 2).requires_grad
    ea.set_grad_enabled(True)
    assert (xe * 2).requires_grad
    with pytest.raises(InvalidParameterError):
        ea.set_grad_enabled("no")


def test_variable():
    v = ea.Variable(et.tensor([1.0, 2.0]), requires_grad=True)
    t = torch.autograd.Variable(torch.tensor([1.0, 2.0]), requires_grad=True)
    assert isinstance(v, et.Tensor) and v.requires_grad == t.requires_grad and v.is_leaf
    assert isinstance(et.ones(1), ea.Variable) and not isinstance(3, ea.Variable)


def test_tensor_hooks_and_retain_grad():
    def run(lib, xs):
        x = xs
        h = x * 3
        h.retain_grad()
        seen = []
        handle = h.register_hook(lambda g: seen.append(g.tolist()))
        h.register_hook(lambda g: g * 2)
        (h ** 2).sum().backward()
        handle.remove()
        return seen, h.grad.tolist(), x.grad.tolist(), h.retains_grad
    xe, xt = pair([1.0, -2.0])
    assert run(et, xe) == run(torch, xt)
    xe.register_hook(lambda g: g * 5)  # a leaf: hooked by the engine (test_torch_autograd_more)
    xt.register_hook(lambda g: g * 5)
    (xe * 2).sum().backward()
    (xt * 2).sum().backward()
    assert xe.grad.tolist() == xt.grad.tolist()
    xe.retain_grad()  # a leaf: nothing to do, as PyTorch


def test_function_mark_dirty():
    def run(lib, base):
        class AddOne(base):
            @staticmethod
            def forward(ctx, x):
                x.add_(1) if lib is torch else x.copy_(x + 1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        h = a * 1
        out = AddOne.apply(h)
        (out * 3).sum().backward()
        leaf = lib.tensor([1.0], requires_grad=True)
        try:
            AddOne.apply(leaf)
            error = None
        except RuntimeError as exc:
            error = "leaf" in str(exc)
        return out is h, out.tolist(), a.grad.tolist(), error
    assert run(et, ea.Function) == run(torch, torch.autograd.Function)
