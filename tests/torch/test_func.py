"""ember.torch.func against torch.func 2.13: grad, grad_and_value, vjp, jvp, jacrev, jacfwd,
hessian, vmap and functional_call, values and nesting."""

import numpy as np
import pytest
import torch
import torch.func as tf

import ember.torch as et
import ember.torch.func as ef
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from ember.torch import nn as enn

RNG = np.random.default_rng(0)


def pair(shape):
    arr = RNG.standard_normal(shape)
    return et.tensor(arr), torch.tensor(arr)


def close(e, t, atol=1e-6):
    assert isinstance(e, et.Tensor), type(e)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=atol)
    assert tuple(e.shape) == tuple(t.shape)


def f(x, y):
    return (x.sin() * y + x ** 2).sum()


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_grad_argnums_nesting_and_aux(shape):
    (xe, xt), (ye, yt) = pair(shape), pair(shape)
    close(ef.grad(f)(xe, ye), tf.grad(f)(xt, yt))
    for a, b in zip(ef.grad(f, argnums=(0, 1))(xe, ye), tf.grad(f, argnums=(0, 1))(xt, yt)):
        close(a, b)
    second_e = ef.grad(lambda x, y: ef.grad(f)(x, y).sum())(xe, ye)
    second_t = tf.grad(lambda x, y: tf.grad(f)(x, y).sum())(xt, yt)
    close(second_e, second_t)

    def with_aux(x, y):
        return f(x, y), {"y": y * 2}
    ge, aux_e = ef.grad(with_aux, has_aux=True)(xe, ye)
    gt, aux_t = tf.grad(with_aux, has_aux=True)(xt, yt)
    close(ge, gt)
    close(aux_e["y"], aux_t["y"])


def test_grad_and_value():
    (xe, xt), (ye, yt) = pair(3), pair(3)
    (ge, ve), (gt, vt) = ef.grad_and_value(f)(xe, ye), tf.grad_and_value(f)(xt, yt)
    close(ge, gt)
    close(ve, vt)
    ge, (ve, ae) = ef.grad_and_value(lambda x: (f(x, ye), x.sum()), has_aux=True)(xe)
    gt, (vt, at) = tf.grad_and_value(lambda x: (f(x, yt), x.sum()), has_aux=True)(xt)
    close(ge, gt)
    close(ve, vt)
    close(ae, at)
    with pytest.raises(ShapeMismatchError):
        ef.grad(lambda x: x * 2)(xe)


def g2(x, y):
    return x * y.exp(), (x - y).tanh()


def test_vjp_and_jvp():
    (xe, xt), (ye, yt) = pair(4), pair(4)
    (ce, ct), (de, dt) = pair(4), pair(4)
    oe, fe = ef.vjp(g2, xe, ye)
    ot, ft = tf.vjp(g2, xt, yt)
    for a, b in zip(oe, ot):
        close(a, b)
    for a, b in zip(fe((ce, de)), ft((ct, dt))):
        close(a, b)
    oe, te = ef.jvp(g2, (xe, ye), (ce, de))
    ot, tt = tf.jvp(g2, (xt, yt), (ct, dt))
    for a, b in zip(te, tt):
        close(a, b)
    oe, te, aux = ef.jvp(lambda x: (x.sin(), x.cos()), (xe,), (ce,), has_aux=True)
    ot, tt, aux_t = tf.jvp(lambda x: (x.sin(), x.cos()), (xt,), (ct,), has_aux=True)
    close(te, tt)
    close(aux, aux_t)
    oe, fe, aux = ef.vjp(lambda x: (x.exp(), 7), xe, has_aux=True)
    assert aux == 7
    close(fe(ce)[0], tf.vjp(torch.exp, xt)[1](ct)[0])


def h(x):
    return x.sin() * x.sum()


def test_jacrev_jacfwd_hessian():
    (xe, xt), (ye, yt) = pair(3), pair(3)
    close(ef.jacrev(h)(xe), tf.jacrev(h)(xt))
    close(ef.jacfwd(h)(xe), tf.jacfwd(h)(xt))
    je = ef.jacrev(lambda a, b: a * b, argnums=(0, 1))(xe, ye)
    jt = tf.jacrev(lambda a, b: a * b, argnums=(0, 1))(xt, yt)
    for a, b in zip(je, jt):
        close(a, b)
    je, ae = ef.jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(xe)
    jt, at = tf.jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(xt)
    close(je, jt)
    close(ae, at)
    close(ef.hessian(lambda a: (a.sin() * a.sum()).sum())(xe),
          tf.hessian(lambda a: (a.sin() * a.sum()).sum())(xt))
    close(ef.jacrev(ef.jacrev(h))(xe), tf.jacrev(tf.jacrev(h))(xt))


def test_vmap():
    (xe, xt), (ye, yt) = pair((4, 3)), pair((3, 4))
    close(ef.vmap(torch_dot)(xe, ye.T), tf.vmap(torch_dot)(xt, yt.T))
    close(ef.vmap(lambda a, b: a * b, in_dims=(1, None))(ye, xe[0]),
          tf.vmap(lambda a, b: a * b, in_dims=(1, None))(yt, xt[0]))
    close(ef.vmap(lambda a: a.cumsum(0), out_dims=1)(xe), tf.vmap(lambda a: a.cumsum(0),
                                                                out_dims=1)(xt))
    assert ef.vmap(lambda r: r.argmax(0))(xe).tolist() == \
        tf.vmap(lambda r: r.argmax(0))(xt).tolist()
    per_sample_e = ef.vmap(ef.grad(lambda w, x: (w * x).sum() ** 2), in_dims=(None, 0))(xe[0], xe)
    per_sample_t = tf.vmap(tf.grad(lambda w, x: (w * x).sum() ** 2), in_dims=(None, 0))(xt[0], xt)
    close(per_sample_e, per_sample_t)
    with pytest.raises(InvalidParameterError):
        ef.vmap(torch_dot, randomness="sometimes")


def torch_dot(a, b):
    return (a * b).sum()


def test_functional_call():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
    em = enn.Sequential(enn.Linear(3, 2), enn.Tanh(), enn.Linear(2, 1))
    params_t = {k: v.detach().clone() * 2 for k, v in tm.state_dict().items()}
    params_e = {k: et.tensor(v.numpy()) for k, v in params_t.items()}
    xe, xt = pair((5, 3))
    xe, xt = xe.float(), xt.float()
    close(ef.functional_call(em, params_e, (xe,)), tf.functional_call(tm, params_t, (xt,)),
          atol=1e-5)
    own = em[0].weight
    assert em[0].weight is own  # put back
    ge = ef.grad(lambda p, x: ef.functional_call(em, p, (x,)).sum())(params_e, xe)
    gt = tf.grad(lambda p, x: tf.functional_call(tm, p, (x,)).sum())(params_t, xt)
    for k in gt:
        close(ge[k], gt[k], atol=1e-5)
    partial = {"0.bias": et.zeros(2)}
    assert ef.functional_call(em, partial, xe).shape == (5, 1)
    with pytest.raises(InvalidParameterError, match="Missing key"):
        ef.functional_call(em, partial, (xe,), strict=True)
    with pytest.raises(KindError):
        ef.functional_call(em, [1], (xe,))


def test_functional_call_tied_weights():
    em = enn.Module()
    em.a = enn.Linear(2, 2, bias=False)
    em.b = enn.Linear(2, 2, bias=False)
    em.b.weight = em.a.weight
    em.forward = lambda x: em.b(em.a(x))
    x = et.ones(1, 2)
    out = ef.functional_call(em, {"a.weight": et.eye(2) * 2}, (x,))
    assert out.tolist() == [[4.0, 4.0]]
    out = ef.functional_call(em, {"a.weight": et.eye(2) * 2}, (x,), tie_weights=False)
    assert out.tolist() == (em.b(et.ones(1, 2) * 2)).tolist()


def make_models(lib_nn, n):
    torch.manual_seed(0)
    ref = [torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
           for _ in range(n)]
    if lib_nn is torch.nn:
        return ref
    out = []
    for r in ref:
        m = enn.Sequential(enn.Linear(3, 4), enn.ReLU(), enn.Linear(4, 2))
        m.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in r.state_dict().items()})
        out.append(m)
    return out


def test_per_sample_gradients_as_the_tutorial():
    def run(lib, func, nn, F):
        model = make_models(nn, 1)[0]
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def compute_loss(params, buffers, sample, target):
            predictions = func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
            return F.cross_entropy(predictions, target.unsqueeze(0))
        data = lib.tensor(np.arange(15, dtype=np.float32).reshape(5, 3) / 10)
        targets = lib.tensor(np.array([0, 1, 1, 0, 1]))
        grads = func.vmap(func.grad(compute_loss), in_dims=(None, None, 0, 0))(
            params, buffers, data, targets)
        return grads
    import ember.torch.nn.functional as EF
    ge = run(et, ef, enn, EF)
    gt = run(torch, tf, torch.nn, torch.nn.functional)
    assert list(ge) == list(gt)
    for k in gt:
        close(ge[k], gt[k], atol=1e-5)


def test_model_ensembling_as_the_tutorial():
    def run(lib, func, nn):
        models = make_models(nn, 3)
        params, buffers = func.stack_module_state(models)

        def fmodel(params, buffers, x):
            return func.functional_call(models[0], (params, buffers), (x,))
        x = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
        return params, func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    (pe, oe), (pt, ot) = run(et, ef, enn), run(torch, tf, torch.nn)
    assert {k: tuple(v.shape) for k, v in pe.items()} == {k: tuple(v.shape) for k, v in pt.items()}
    assert all(v.requires_grad for v in pe.values())
    close(oe, ot, atol=1e-5)


def test_transforms_over_parameter_dicts():
    def run(lib, func, nn):
        model = make_models(nn, 1)[0]
        params = {k: v.detach() for k, v in model.named_parameters()}
        x = lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))

        def fnet_single(params, x):
            return func.functional_call(model, params, (x.unsqueeze(0),)).squeeze(0)
        jac = func.vmap(func.jacrev(fnet_single), (None, 0))(params, x)
        out, fn = func.vjp(lambda p: fnet_single(p, x[0]), params)
        return jac, fn(lib.ones(2))[0]
    (je, ve), (jt, vt) = run(et, ef, enn), run(torch, tf, torch.nn)
    assert list(je) == list(jt) and list(ve) == list(vt)
    for k in jt:
        close(je[k], jt[k], atol=1e-5)
        close(ve[k], vt[k], atol=1e-5)
