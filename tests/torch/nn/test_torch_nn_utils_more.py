"""Tests of ember.torch.nn.utils's total-norm helpers, batch-norm folding, the hook-based weight
and spectral normalizations, the weight memory formats and skip_init, against torch.nn.utils:
values, gradients, state_dict keys, the power iteration from the same u and v, bad input."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.torch import nn
from oracle import assert_close

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")  # torch's deprecated forms


def _np(t):
    return t.detach().numpy()


def _to_torch(m_e, m_t):
    """Load ember module ``m_e``'s state into torch module ``m_t``."""
    m_t.load_state_dict({k: torch.tensor(_np(v)) for k, v in m_e.state_dict().items()})
    return m_t


def _to_ember(m_t, m_e):
    m_e.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in m_t.state_dict().items()})
    return m_e


def _grads(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return [et.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


# -- get_total_norm, clip_grads_with_norm_, clip_grad_norm --------------------------------------

SHAPES = [[(3,), (2, 4)], [()], [(0,), (3, 2)], [(5, 1, 2)]]


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.5, float("inf")])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_get_total_norm_matches_torch(shapes, norm_type, dtype):
    e, t = _grads(shapes, dtype, 0)
    if norm_type == float("inf") and any(0 in s for s in shapes):  # no identity: both raise
        with pytest.raises(RuntimeError):
            torch.nn.utils.get_total_norm(t, norm_type)
        with pytest.raises(ValueError):
            nn.utils.get_total_norm(e, norm_type)
        return
    out = nn.utils.get_total_norm(e, norm_type)
    ref = torch.nn.utils.get_total_norm(t, norm_type)
    assert isinstance(out, et.Tensor)
    assert_close(out, ref, rtol=1e-6 if dtype == "float64" else 1e-5)


def test_get_total_norm_one_tensor_and_empty():
    x = np.arange(6.0).reshape(2, 3)
    assert_close(nn.utils.get_total_norm(et.tensor(x)),
                 torch.nn.utils.get_total_norm(torch.tensor(x)), rtol=1e-12)
    assert_close(nn.utils.get_total_norm([]), torch.nn.utils.get_total_norm([]))


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"),
                                    ("bfloat16", "float32")])
@pytest.mark.half_precision
def test_get_total_norm_of_mixed_dtypes_promotes_like_torch(dtypes):
    x = np.array([1.5, -2.25, 3.0])
    e = [et.tensor(x).to(getattr(et, d)) for d in dtypes]
    t = [torch.tensor(x).to(getattr(torch, d)) for d in dtypes]
    assert_close(nn.utils.get_total_norm(e), torch.nn.utils.get_total_norm(t), rtol=1e-6)


def test_get_total_norm_nonfinite():
    x = np.array([1.0, np.inf])
    assert_close(nn.utils.get_total_norm([et.tensor(x)]),
                 torch.nn.utils.get_total_norm([torch.tensor(x)]))
    with pytest.raises(RuntimeError):
        torch.nn.utils.get_total_norm([torch.tensor(x)], error_if_nonfinite=True)
    with pytest.raises(ValueError):
        nn.utils.get_total_norm([et.tensor(x)], error_if_nonfinite=True)


@pytest.mark.parametrize("max_norm", [0.5, 1e3])
@pytest.mark.parametrize("norm_type", [2.0, float("inf")])
def test_clip_grads_with_norm_matches_torch(max_norm, norm_type):
    shapes = [(3,), (2, 4), ()]
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in shapes]
    pe = [et.zeros(s, dtype=et.float64, requires_grad=True) for s in shapes]
    pt = [torch.zeros(s, dtype=torch.float64, requires_grad=True) for s in shapes]
    sum(((p * et.tensor(a)).sum() for p, a in zip(pe, arrays)), et.tensor(0.0)).backward()
    sum(((p * torch.tensor(a)).sum() for p, a in zip(pt, arrays)), torch.tensor(0.0)).backward()
    pe.append(et.zeros(2, requires_grad=True))  # no gradient: skipped
    pt.append(torch.zeros(2, requires_grad=True))
    total = nn.utils.get_total_norm([p.grad for p in pe if p.grad is not None], norm_type)
    ttotal = torch.nn.utils.get_total_norm([p.grad for p in pt if p.grad is not None], norm_type)
    assert nn.utils.clip_grads_with_norm_(pe, max_norm, total) is None
    torch.nn.utils.clip_grads_with_norm_(pt, max_norm, ttotal)
    for a, b in zip(pe[:-1], pt[:-1]):
        assert_close(a.grad, b.grad, rtol=1e-12)
    assert pe[-1].grad is None


def test_clip_grads_with_norm_number_total():
    pe, pt = et.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    (pe * et.tensor([3.0, 4.0])).sum().backward()
    (pt * torch.tensor([3.0, 4.0])).sum().backward()
    nn.utils.clip_grads_with_norm_(pe, 1.0, 5.0)
    torch.nn.utils.clip_grads_with_norm_(pt, 1.0, torch.tensor(5.0))
    assert_close(pe.grad, pt.grad, rtol=1e-6)


def test_clip_grad_norm_deprecated_alias_matches_torch():
    pe, pt = et.zeros(3, requires_grad=True), torch.zeros(3, requires_grad=True)
    (pe * et.tensor([1.0, -2.0, 2.0])).sum().backward()
    (pt * torch.tensor([1.0, -2.0, 2.0])).sum().backward()
    assert_close(nn.utils.clip_grad_norm(pe, 1.0), torch.nn.utils.clip_grad_norm(pt, 1.0))
    assert_close(pe.grad, pt.grad, rtol=1e-6)


# -- batch-norm fusion --------------------------------------------------------------------------

def _bn_pair(cls_name, n, seed):
    be = getattr(nn, cls_name)(n)
    rng = np.random.default_rng(seed)
    state = {"weight": rng.standard_normal(n), "bias": rng.standard_normal(n),
             "running_mean": rng.standard_normal(n), "running_var": rng.uniform(0.5, 2.0, n),
             "num_batches_tracked": np.array(3)}
    be.load_state_dict({k: et.tensor(v.astype(np.int64 if k == "num_batches_tracked"
                                               else np.float32)) for k, v in state.items()})
    bt = _to_torch(be, getattr(torch.nn, cls_name)(n))
    return be.eval(), bt.eval()


CONVS = [("Conv1d", "BatchNorm1d", (2, 3, 3), (2, 2, 7), False),
         ("Conv2d", "BatchNorm2d", (2, 4, 3), (1, 2, 6, 5), False),
         ("Conv3d", "BatchNorm3d", (1, 2, 2), (1, 1, 4, 4, 4), False),
         ("ConvTranspose2d", "BatchNorm2d", (2, 3, 3), (1, 2, 4, 4), True)]


@pytest.mark.parametrize("conv_name,bn_name,args,xshape,transpose", CONVS)
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_conv_bn_eval_matches_torch(conv_name, bn_name, args, xshape, transpose, bias):
    ce = getattr(nn, conv_name)(*args, bias=bias).eval()
    ct = _to_torch(ce, getattr(torch.nn, conv_name)(*args, bias=bias)).eval()
    be, bt = _bn_pair(bn_name, args[1], 2)
    fe = nn.utils.fuse_conv_bn_eval(ce, be, transpose=transpose)
    ft = torch.nn.utils.fuse_conv_bn_eval(ct, bt, transpose=transpose)
    assert type(fe) is type(ce) and fe is not ce
    assert isinstance(fe.weight, nn.Parameter) and fe.weight.requires_grad
    assert_close(fe.weight, ft.weight, rtol=1e-5, atol=1e-6)
    assert_close(fe.bias, ft.bias, rtol=1e-5, atol=1e-6)
    x = np.random.default_rng(3).standard_normal(xshape).astype(np.float32)
    assert_close(fe(et.tensor(x)), ft(torch.tensor(x)), rtol=1e-4, atol=1e-5)
    assert_close(fe(et.tensor(x)), be(ce(et.tensor(x))), rtol=1e-4, atol=1e-5)
    assert ce.bias is None if not bias else ce.bias is not fe.bias


@pytest.mark.parametrize("bn_features", [3, 1])
def test_fuse_linear_bn_eval_matches_torch(bn_features):
    le = nn.Linear(4, 3).eval()
    lt = _to_torch(le, torch.nn.Linear(4, 3)).eval()
    be, bt = _bn_pair("BatchNorm1d", bn_features, 4)
    fe = nn.utils.fuse_linear_bn_eval(le, be)
    ft = torch.nn.utils.fuse_linear_bn_eval(lt, bt)
    assert_close(fe.weight, ft.weight, rtol=1e-5, atol=1e-6)
    assert_close(fe.bias, ft.bias, rtol=1e-5, atol=1e-6)
    x = np.random.default_rng(5).standard_normal((5, 4)).astype(np.float32)
    assert_close(fe(et.tensor(x)), ft(torch.tensor(x)), rtol=1e-4, atol=1e-5)


def test_fuse_weights_with_missing_tensors_match_torch():
    rng = np.random.default_rng(6)
    w = rng.standard_normal((3, 2, 2))
    rm, rv = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    e = nn.utils.fuse_conv_bn_weights(et.tensor(w), None, et.tensor(rm), et.tensor(rv), 1e-3,
                                      None, None)
    t = torch.nn.utils.fuse_conv_bn_weights(torch.tensor(w), None, torch.tensor(rm),
                                            torch.tensor(rv), 1e-3, None, None)
    for a, b in zip(e, t):
        assert isinstance(a, nn.Parameter) and a.requires_grad == b.requires_grad
        assert_close(a, b, rtol=1e-12)
    bw, bb = rng.standard_normal(3), rng.standard_normal(3)
    lw = rng.standard_normal((3, 4))
    e = nn.utils.fuse_linear_bn_weights(et.tensor(lw, requires_grad=True), None, et.tensor(rm),
                                        et.tensor(rv), 1e-5, et.tensor(bw), et.tensor(bb))
    t = torch.nn.utils.fuse_linear_bn_weights(torch.tensor(lw, requires_grad=True), None,
                                              torch.tensor(rm), torch.tensor(rv), 1e-5,
                                              torch.tensor(bw), torch.tensor(bb))
    for a, b in zip(e, t):
        assert a.requires_grad == b.requires_grad and a.is_leaf
        assert_close(a, b, rtol=1e-12)


def test_fusion_bad_input():
    lin, bn = nn.Linear(2, 3), nn.BatchNorm1d(3)
    with pytest.raises(ValueError):
        nn.utils.fuse_linear_bn_eval(lin, bn)  # training mode
    with pytest.raises(ValueError):
        nn.utils.fuse_linear_bn_eval(lin.eval(), nn.BatchNorm1d(2).eval())
    with pytest.raises(ValueError):
        nn.utils.fuse_conv_bn_eval(nn.Conv1d(1, 2, 1).eval(),
                                   nn.BatchNorm1d(2, track_running_stats=False).eval())
    with pytest.raises(TypeError):
        nn.utils.fuse_conv_bn_weights([1.0], None, et.zeros(1), et.ones(1), 1e-5, None, None)


# -- weight_norm --------------------------------------------------------------------------------

@pytest.mark.parametrize("ctor,xshape", [(("Linear", 4, 3), (2, 4)),
                                         (("Conv2d", 2, 3, 3), (1, 2, 5, 5)),
                                         (("Conv1d", 3, 2, 1), (2, 3, 4))])
@pytest.mark.parametrize("dim", [0, 1, None, -1, -2])
def test_weight_norm_matches_torch(ctor, xshape, dim):
    name, *args = ctor
    me = getattr(nn, name)(*args)
    mt = _to_torch(me, getattr(torch.nn, name)(*args))
    nn.utils.weight_norm(me, dim=dim)
    torch.nn.utils.weight_norm(mt, dim=dim)
    assert list(me.state_dict()) == list(mt.state_dict())
    assert [n for n, _ in me.named_parameters()] == [n for n, _ in mt.named_parameters()]
    for k in ("weight_g", "weight_v"):
        assert tuple(me.state_dict()[k].shape) == tuple(mt.state_dict()[k].shape)
        assert_close(me.state_dict()[k], mt.state_dict()[k], rtol=1e-6)
    # a change of g is seen at the next call, and gradients reach g and v
    with et.no_grad():
        me.weight_g.mul_(2.0)
    with torch.no_grad():
        mt.weight_g.mul_(2.0)
    x = np.random.default_rng(7).standard_normal(xshape).astype(np.float32)
    ye, yt = me(et.tensor(x)), mt(torch.tensor(x))
    assert_close(ye, yt, rtol=1e-5, atol=1e-6)
    (ye ** 2).sum().backward()
    (yt ** 2).sum().backward()
    for k in ("weight_g", "weight_v", "bias"):
        assert_close(getattr(me, k).grad, getattr(mt, k).grad, rtol=1e-4, atol=1e-5)
    nn.utils.remove_weight_norm(me)
    torch.nn.utils.remove_weight_norm(mt)
    assert list(me.state_dict()) == list(mt.state_dict())
    assert isinstance(me.weight, nn.Parameter) and me.weight.is_leaf
    assert_close(me.weight, mt.weight, rtol=1e-5, atol=1e-6)
    assert len(me._forward_pre_hooks) == 0


def test_weight_norm_float64_values():
    me = nn.Linear(3, 2).double()
    mt = _to_torch(me, torch.nn.Linear(3, 2).double())
    nn.utils.weight_norm(me, name="weight")
    torch.nn.utils.weight_norm(mt)
    x = np.arange(6.0).reshape(2, 3)
    assert_close(me(et.tensor(x)), mt(torch.tensor(x)), rtol=1e-12)


def test_weight_norm_errors_match_torch():
    m, mt = nn.utils.weight_norm(nn.Linear(2, 2)), torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))
    with pytest.raises(RuntimeError):
        torch.nn.utils.weight_norm(mt)
    with pytest.raises(RuntimeError):
        nn.utils.weight_norm(m)
    with pytest.raises(ValueError):
        torch.nn.utils.remove_weight_norm(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError):
        nn.utils.remove_weight_norm(nn.Linear(2, 2))
    with pytest.raises(ValueError):
        nn.utils.weight_norm(nn.Linear(2, 2), name="nope")
    with pytest.raises(TypeError):
        nn.utils.weight_norm(ember.nn.Linear(2, 2))


# -- spectral_norm ------------------------------------------------------------------------------

SN = [(("Linear", 5, 3), (2, 5), None), (("Conv2d", 2, 3, 3), (1, 2, 5, 5), None),
      (("ConvTranspose2d", 2, 3, 3), (1, 2, 4, 4), None), (("Conv1d", 3, 4, 2), (2, 3, 5), 1)]


@pytest.mark.parametrize("ctor,xshape,dim", SN)
@pytest.mark.parametrize("iters", [1, 3])
def test_spectral_norm_matches_torch_from_the_same_u(ctor, xshape, dim, iters):
    name, *args = ctor
    mt = torch.nn.utils.spectral_norm(getattr(torch.nn, name)(*args), n_power_iterations=iters,
                                      dim=dim)
    me = nn.utils.spectral_norm(getattr(nn, name)(*args), n_power_iterations=iters, dim=dim)
    assert list(me.state_dict()) == list(mt.state_dict())
    assert [n for n, _ in me.named_parameters()] == [n for n, _ in mt.named_parameters()]
    for k in ("weight_u", "weight_v"):
        assert tuple(me.state_dict()[k].shape) == tuple(mt.state_dict()[k].shape)
    _to_ember(mt, me)
    x = np.random.default_rng(8).standard_normal(xshape).astype(np.float32)
    for _ in range(2):  # training: each call takes power-iteration steps
        ye, yt = me(et.tensor(x)), mt(torch.tensor(x))
        assert_close(ye, yt, rtol=1e-4, atol=1e-5)
        for k in ("weight_u", "weight_v"):
            assert_close(getattr(me, k), getattr(mt, k), rtol=1e-4, atol=1e-5)
        assert_close(me.weight, mt.weight, rtol=1e-4, atol=1e-5)
    (ye ** 2).sum().backward()
    (yt ** 2).sum().backward()
    assert_close(me.weight_orig.grad, mt.weight_orig.grad, rtol=1e-3, atol=1e-5)
    # eval: no power iteration, the buffers stay
    me.eval(), mt.eval()
    u = _np(me.weight_u).copy()
    assert_close(me(et.tensor(x)), mt(torch.tensor(x)), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(_np(me.weight_u), u)
    nn.utils.remove_spectral_norm(me)
    torch.nn.utils.remove_spectral_norm(mt)
    assert list(me.state_dict()) == list(mt.state_dict())
    assert isinstance(me.weight, nn.Parameter)
    assert_close(me.weight, mt.weight, rtol=1e-4, atol=1e-6)


def test_spectral_norm_state_dict_keys_and_initial_weight():
    me = nn.Linear(3, 2)
    w = _np(me.weight).copy()
    nn.utils.spectral_norm(me)
    assert list(me.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    np.testing.assert_array_equal(_np(me.weight), w)  # as PyTorch: the raw weight until a call
    assert abs(np.linalg.norm(_np(me.weight_u)) - 1) < 1e-5


def test_spectral_norm_errors_match_torch():
    with pytest.raises(ValueError):
        torch.nn.utils.spectral_norm(torch.nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(ValueError):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(RuntimeError):
        nn.utils.spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 2)))
    with pytest.raises(ValueError):
        torch.nn.utils.remove_spectral_norm(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError):
        nn.utils.remove_spectral_norm(nn.Linear(2, 2))
    with pytest.raises(ValueError):
        nn.utils.spectral_norm(nn.Linear(2, 2), dim=2)


# -- memory formats, skip_init ------------------------------------------------------------------

@pytest.mark.parametrize("fn,fmt", [("convert_conv2d_weight_memory_format", "channels_last"),
                                    ("convert_conv3d_weight_memory_format", "channels_last_3d"),
                                    ("convert_conv2d_weight_memory_format",
                                     "contiguous_format")])
def test_convert_weight_memory_format_keeps_values_like_torch(fn, fmt):
    me = nn.Sequential(nn.Conv2d(2, 3, 3), nn.Conv3d(1, 2, 2), nn.ConvTranspose2d(2, 2, 2))
    mt = _to_torch(me, torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.Conv3d(1, 2, 2),
                                           torch.nn.ConvTranspose2d(2, 2, 2)))
    params = list(me.parameters())
    assert getattr(nn.utils, fn)(me, getattr(et, fmt)) is me
    assert getattr(torch.nn.utils, fn)(mt, getattr(torch, fmt)) is mt
    assert list(me.parameters()) == params
    for (k, a), (k2, b) in zip(me.state_dict().items(), mt.state_dict().items()):
        assert k == k2
        assert_close(a, b)
    with pytest.raises(ValueError):
        getattr(nn.utils, fn)(me, "channels_last")
    with pytest.raises(TypeError):
        getattr(nn.utils, fn)(ember.nn.Linear(1, 1), et.channels_last)


@pytest.mark.parametrize("cls,args", [("Linear", (4, 3)), ("Conv2d", (2, 3, 3)),
                                      ("Embedding", (5, 2))])
def test_skip_init_builds_the_module_like_torch(cls, args):
    me = nn.utils.skip_init(getattr(nn, cls), *args, device="cpu")
    mt = torch.nn.utils.skip_init(getattr(torch.nn, cls), *args, device="cpu")
    assert type(me) is getattr(nn, cls)
    assert [(k, tuple(v.shape)) for k, v in me.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in mt.state_dict().items()]
    assert all(p.requires_grad for p in me.parameters())


def test_skip_init_bad_input():
    class NoDevice(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.n = n

    with pytest.raises(RuntimeError):
        torch.nn.utils.skip_init(type("T", (torch.nn.Module,), {"__init__": NoDevice.__init__}),
                                 1)
    with pytest.raises(RuntimeError):
        nn.utils.skip_init(NoDevice, 1)
    with pytest.raises(TypeError):
        nn.utils.skip_init(int, 1)
