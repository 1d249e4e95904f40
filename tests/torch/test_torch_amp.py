"""Tests of ember.torch's autocast against torch's on the CPU: the torch-level state functions
(getters, setters, nesting), the dtypes and values of the lower-precision ops (matrix products,
convolutions, layers) and of the float32 ops inside ``autocast``, gradients through the casts,
the decorator, the warnings and errors, custom_fwd / custom_bwd, torch.cpu.amp and
torch.cuda.amp."""

import warnings

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from oracle import assert_close

TORCH_DT = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32,
            "float64": torch.float64}
ET_DT = {"bfloat16": et.bfloat16, "float16": et.float16, "float32": et.float32,
         "float64": et.float64}


@pytest.fixture(autouse=True)
def _reset_autocast_state():
    """Every test starts and ends with both libraries' default autocast state."""
    def reset(mod):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for kind in ("cpu", "cuda", "ipu", "xla"):
                mod.set_autocast_enabled(kind, False)
            mod.set_autocast_dtype("cpu", mod.bfloat16)
            mod.set_autocast_dtype("cuda", mod.float16)
            mod.set_autocast_dtype("ipu", mod.float16)
            mod.set_autocast_dtype("xla", mod.bfloat16)
            mod.set_autocast_cache_enabled(True)
            mod.clear_autocast_cache()
            depth = mod.autocast_increment_nesting() - 1
            mod.autocast_decrement_nesting()
            for _ in range(abs(depth)):  # back to 0
                (mod.autocast_decrement_nesting if depth > 0 else
                 mod.autocast_increment_nesting)()
    reset(torch), reset(et)
    yield
    reset(torch), reset(et)


def _dt(x):
    return str(x.dtype).replace("torch.", "")


# -- the state functions ------------------------------------------------------------------------

def _state(mod):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (mod.is_autocast_enabled(), mod.is_autocast_enabled("cpu"),
                mod.is_autocast_enabled("cuda"), mod.is_autocast_cpu_enabled(),
                mod.is_autocast_ipu_enabled(), mod.is_autocast_xla_enabled(),
                str(mod.get_autocast_dtype("cpu")).replace("torch.", ""),
                str(mod.get_autocast_dtype("cuda")).replace("torch.", ""),
                str(mod.get_autocast_cpu_dtype()).replace("torch.", ""),
                str(mod.get_autocast_gpu_dtype()).replace("torch.", ""),
                str(mod.get_autocast_ipu_dtype()).replace("torch.", ""),
                str(mod.get_autocast_xla_dtype()).replace("torch.", ""),
                mod.is_autocast_cache_enabled())


STEPS = [
    lambda m: m.set_autocast_enabled("cpu", True),
    lambda m: m.set_autocast_enabled(True),
    lambda m: m.set_autocast_cpu_enabled(False),
    lambda m: m.set_autocast_ipu_enabled(True),
    lambda m: m.set_autocast_xla_enabled(True),
    lambda m: m.set_autocast_dtype("cpu", m.float16),
    lambda m: m.set_autocast_cpu_dtype(m.bfloat16),
    lambda m: m.set_autocast_gpu_dtype(m.bfloat16),
    lambda m: m.set_autocast_ipu_dtype(m.bfloat16),
    lambda m: m.set_autocast_xla_dtype(m.float16),
    lambda m: m.set_autocast_cache_enabled(False),
    lambda m: m.set_autocast_enabled("cuda", False),
    lambda m: m.set_autocast_xla_enabled(False),
]


def test_state_functions_follow_torch_step_by_step():
    assert _state(et) == _state(torch)
    for step in STEPS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            step(torch), step(et)
        assert _state(et) == _state(torch)


def test_nesting_counts_like_torch():
    seq = ["inc", "inc", "dec", "inc", "dec", "dec", "dec", "inc"]
    for mod in (torch, et):
        got = [getattr(mod, f"autocast_{s}rement_nesting")() for s in seq]
        if mod is torch:
            expected = got
    assert got == expected
    with torch.autocast("cpu"):
        t_in = torch.autocast_increment_nesting(), torch.autocast_decrement_nesting()
    with et.autocast("cpu"):
        e_in = et.autocast_increment_nesting(), et.autocast_decrement_nesting()
    assert e_in == t_in == (2, 1)


def test_deprecated_spellings_warn_like_torch():
    for mod in (torch, et):
        with pytest.warns(DeprecationWarning):
            mod.get_autocast_cpu_dtype()
        with pytest.warns(DeprecationWarning):
            mod.set_autocast_xla_enabled(False)


def test_autocast_sets_and_restores_the_state_like_torch():
    for mod in (torch, et):
        seen = []
        with mod.autocast("cpu", dtype=mod.float16, cache_enabled=False):
            seen.append(_state(mod))
            with mod.autocast("cpu", enabled=False):
                seen.append(_state(mod))
            seen.append(_state(mod))
        seen.append(_state(mod))
        if mod is torch:
            expected = seen
    assert seen == expected


def test_state_errors():
    with pytest.raises(TypeError):
        et.set_autocast_enabled("cpu", 1)
    with pytest.raises(TypeError):
        torch.set_autocast_enabled("cpu", 1)
    with pytest.raises(TypeError):
        et.set_autocast_dtype("cpu", "bfloat16")
    with pytest.raises(RuntimeError):
        torch.get_autocast_dtype("foo")
    with pytest.raises(RuntimeError):
        et.get_autocast_dtype("foo")
    with pytest.raises(TypeError):
        et.is_autocast_enabled(3)
    with pytest.raises(TypeError):
        et.set_autocast_cache_enabled(None)


# -- the ops ------------------------------------------------------------------------------------

def _arrays(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


LOWER_OPS = [
    ("mm", [(3, 4), (4, 5)], lambda m, a, b: m.mm(a, b)),
    ("matmul", [(2, 3, 4), (4, 5)], lambda m, a, b: m.matmul(a, b)),
    ("matmul-vector", [(4,), (4, 5)], lambda m, a, b: m.matmul(a, b)),
    ("@", [(3, 4), (4, 2)], lambda m, a, b: a @ b),
    ("Tensor.matmul", [(3, 4), (4, 2)], lambda m, a, b: a.matmul(b)),
    ("Tensor.mm", [(3, 4), (4, 2)], lambda m, a, b: a.mm(b)),
    ("bmm", [(2, 3, 4), (2, 4, 5)], lambda m, a, b: m.bmm(a, b)),
    ("Tensor.bmm", [(2, 3, 4), (2, 4, 5)], lambda m, a, b: a.bmm(b)),
    ("addmm", [(3, 5), (3, 4), (4, 5)], lambda m, c, a, b: m.addmm(c, a, b)),
    ("addmm-beta", [(5,), (3, 4), (4, 5)], lambda m, c, a, b: m.addmm(c, a, b, beta=0.5,
                                                                      alpha=2.0)),
    ("baddbmm", [(2, 3, 5), (2, 3, 4), (2, 4, 5)], lambda m, c, a, b: m.baddbmm(c, a, b)),
    ("addbmm", [(3, 5), (2, 3, 4), (2, 4, 5)], lambda m, c, a, b: m.addbmm(c, a, b)),
    ("multi_dot", [(3, 4), (4, 5), (5, 2)], lambda m, a, b, c: m.linalg.multi_dot([a, b, c])),
    ("einsum", [(3, 4), (4, 5)], lambda m, a, b: m.einsum("ij,jk->ik", a, b)),
    ("linear", [(3, 4), (2, 4), (2,)], lambda m, x, w, b: m.nn.functional.linear(x, w, b)),
    ("linear-nobias", [(2, 3, 4), (5, 4)], lambda m, x, w: m.nn.functional.linear(x, w)),
    ("conv1d", [(2, 3, 7), (4, 3, 3), (4,)],
     lambda m, x, w, b: m.nn.functional.conv1d(x, w, b, padding=1)),
    ("conv2d", [(1, 2, 6, 5), (3, 2, 3, 3), (3,)],
     lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, stride=2)),
    ("conv3d", [(1, 2, 4, 4, 4), (2, 2, 2, 2, 2)],
     lambda m, x, w: m.nn.functional.conv3d(x, w)),
    ("conv_transpose1d", [(1, 2, 5), (2, 3, 3)],
     lambda m, x, w: m.nn.functional.conv_transpose1d(x, w)),
    ("conv_transpose2d", [(1, 2, 4, 4), (2, 3, 3, 3), (3,)],
     lambda m, x, w, b: m.nn.functional.conv_transpose2d(x, w, b, stride=2)),
    ("conv_transpose3d", [(1, 2, 3, 3, 3), (2, 1, 2, 2, 2)],
     lambda m, x, w: m.nn.functional.conv_transpose3d(x, w)),
    ("prelu", [(2, 3, 4), (3,)], lambda m, x, w: m.nn.functional.prelu(x, w)),
    ("sdpa", [(2, 3, 4), (2, 3, 4), (2, 3, 4)],
     lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q, k, v)),
]


def _run(fn, mod, arrays, dtype, in_dtype="float32", grad=False):
    tdt = TORCH_DT if mod is torch else ET_DT
    xs = [mod.tensor(a).to(tdt[in_dtype]) for a in arrays]
    if grad:
        xs = [x.requires_grad_() for x in xs]
    with mod.autocast("cpu", dtype=tdt[dtype]):
        out = fn(mod, *xs)
    return out, xs


@pytest.mark.parametrize("name,shapes,fn", LOWER_OPS, ids=[o[0] for o in LOWER_OPS])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_lower_precision_ops_match_torch(name, shapes, fn, dtype):
    arrays = _arrays(shapes, 0)
    oe, _ = _run(fn, et, arrays, dtype)
    ot, _ = _run(fn, torch, arrays, dtype)
    assert _dt(oe) == _dt(ot) == dtype
    tol = 2e-2 if dtype == "bfloat16" else 2e-3
    scale = max(float(np.abs(ot.float().detach().numpy()).max()), 1.0)
    np.testing.assert_allclose(oe.detach().float().numpy(), ot.detach().float().numpy(),
                               rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("name,shapes,fn", LOWER_OPS[:12], ids=[o[0] for o in LOWER_OPS[:12]])
@pytest.mark.parametrize("in_dtype", ["float64", "bfloat16", "float16"])
def test_inputs_of_other_dtypes_like_torch(name, shapes, fn, in_dtype):
    arrays = _arrays(shapes, 1)
    oe, _ = _run(fn, et, arrays, "bfloat16", in_dtype)
    ot, _ = _run(fn, torch, arrays, "bfloat16", in_dtype)
    assert _dt(oe) == _dt(ot)


@pytest.mark.parametrize("name,shapes,fn", LOWER_OPS, ids=[o[0] for o in LOWER_OPS])
@pytest.mark.half_precision
def test_gradients_through_autocast_match_torch(name, shapes, fn):
    arrays = _arrays(shapes, 2)
    oe, xe = _run(fn, et, arrays, "bfloat16", grad=True)
    ot, xt = _run(fn, torch, arrays, "bfloat16", grad=True)
    (oe.float() ** 2).sum().backward()
    (ot.float() ** 2).sum().backward()
    for a, b in zip(xe, xt):
        assert _dt(a.grad) == _dt(b.grad) == "float32"
        scale = max(float(b.grad.abs().max()), 1.0)
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=5e-2, atol=5e-2 * scale)


@pytest.mark.half_precision
def test_outside_autocast_and_disabled_regions_nothing_is_cast():
    a, b = _arrays([(3, 4), (4, 2)], 3)
    for mod in (torch, et):
        x, y = mod.tensor(a), mod.tensor(b)
        assert _dt(x @ y) == "float32"
        with mod.autocast("cpu"):
            with mod.autocast("cpu", enabled=False):
                assert _dt(mod.mm(x, y)) == "float32"
            assert _dt(mod.mm(x, y)) == "bfloat16"
            assert _dt(x + x) == "float32"  # not on the lists
        assert _dt(mod.mm(x, y)) == "float32"


def test_integer_inputs_are_not_cast():
    for mod in (torch, et):
        x = mod.arange(6).reshape(2, 3)
        with mod.autocast("cpu"):
            assert _dt(mod.mm(x, x.T)) == "int64"


FP32_OPS = [
    ("mse_loss", [(4, 5), (4, 5)], lambda m, a, b: m.nn.functional.mse_loss(a, b)),
    ("l1_loss", [(4, 5), (4, 5)], lambda m, a, b: m.nn.functional.l1_loss(a, b)),
    ("smooth_l1_loss", [(4, 5), (4, 5)], lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b)),
    ("huber_loss", [(4, 5), (4, 5)], lambda m, a, b: m.nn.functional.huber_loss(a, b)),
    ("kl_div", [(4, 5), (4, 5)],
     lambda m, a, b: m.nn.functional.kl_div(a, b, reduction="batchmean", log_target=True)),
    ("soft_margin_loss", [(4, 5), (4, 5)],
     lambda m, a, b: m.nn.functional.soft_margin_loss(a, b.sign())),
    ("cross_entropy", [(4, 5), (4, 5)],
     lambda m, a, b: m.nn.functional.cross_entropy(a, b.softmax(1))),
    ("bce_logits", [(4, 5), (4, 5)],
     lambda m, a, b: m.nn.functional.binary_cross_entropy_with_logits(a, b.sigmoid())),
    ("cdist", [(4, 5), (3, 5)], lambda m, a, b: m.cdist(a, b)),
    ("prod", [(4, 5)], lambda m, a: m.prod(a * 0.5 + 1, 1)),
    ("Tensor.prod", [(4, 5)], lambda m, a: (a * 0.5 + 1).prod()),
    ("trace", [(4, 5)], lambda m, a: m.trace(a)),
    ("quantile", [(4, 5)], lambda m, a: m.quantile(a, 0.25, dim=1)),
]


@pytest.mark.parametrize("name,shapes,fn", FP32_OPS, ids=[o[0] for o in FP32_OPS])
@pytest.mark.half_precision
def test_float32_ops_match_torch(name, shapes, fn):
    arrays = _arrays(shapes, 4)
    oe, _ = _run(fn, et, arrays, "bfloat16", "bfloat16")
    ot, _ = _run(fn, torch, arrays, "bfloat16", "bfloat16")
    assert _dt(oe) == _dt(ot) == "float32"
    assert_close(oe.detach(), ot.detach(), rtol=1e-5, atol=1e-5)


LAYERS = [("Linear", (4, 3), (2, 4)), ("Conv1d", (2, 3, 3), (2, 2, 6)),
          ("Conv2d", (2, 3, 3), (1, 2, 5, 5)), ("Conv3d", (1, 2, 2), (1, 1, 3, 3, 3)),
          ("ConvTranspose1d", (2, 3, 2), (1, 2, 4)), ("ConvTranspose2d", (2, 1, 3), (1, 2, 3, 3)),
          ("ConvTranspose3d", (1, 1, 2), (1, 1, 2, 2, 2)), ("PReLU", (), (2, 3))]


@pytest.mark.parametrize("cls,args,xshape", LAYERS, ids=[c[0] for c in LAYERS])
@pytest.mark.half_precision
def test_layers_run_in_the_autocast_dtype_like_torch(cls, args, xshape):
    me = getattr(et.nn, cls)(*args)
    mt = getattr(torch.nn, cls)(*args)
    mt.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in me.state_dict().items()})
    (x,) = _arrays([xshape], 5)
    with et.autocast("cpu"):
        ye = me(et.tensor(x))
    with torch.autocast("cpu"):
        yt = mt(torch.tensor(x))
    assert _dt(ye) == _dt(yt) == "bfloat16"
    np.testing.assert_allclose(ye.detach().float().numpy(), yt.detach().float().numpy(),
                               rtol=2e-2, atol=2e-2)
    (ye.float() ** 2).sum().backward()
    (yt.float() ** 2).sum().backward()
    for (n, pe), (_, pt) in zip(me.named_parameters(), mt.named_parameters()):
        assert _dt(pe) == _dt(pe.grad) == _dt(pt.grad) == "float32", n
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=5e-2,
                                   atol=5e-2 * max(float(pt.grad.abs().max()), 1.0))
    # the layer's own weights are untouched after the call
    assert list(me.state_dict()) == list(mt.state_dict())
    assert all(_dt(v) == "float32" for v in me.state_dict().values())
    assert "weight" not in me.__dict__


@pytest.mark.half_precision
def test_a_small_model_trains_in_autocast_like_torch():
    me = et.nn.Sequential(et.nn.Linear(6, 8), et.nn.ReLU(), et.nn.Linear(8, 3))
    mt = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    mt.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in me.state_dict().items()})
    x, = _arrays([(5, 6)], 6)
    target = np.array([0, 1, 2, 1, 0])
    with et.autocast("cpu"):
        le = et.nn.functional.cross_entropy(me(et.tensor(x)), et.tensor(target))
    with torch.autocast("cpu"):
        lt = torch.nn.functional.cross_entropy(mt(torch.tensor(x)), torch.tensor(target))
    assert _dt(le) == _dt(lt) == "float32"
    assert abs(le.item() - lt.item()) < 2e-2
    le.backward(), lt.backward()
    for pe, pt in zip(me.parameters(), mt.parameters()):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=5e-2, atol=2e-2)


@pytest.mark.half_precision
def test_decorator_and_nesting_with_different_dtypes():
    a, b = _arrays([(3, 4), (4, 2)], 7)
    for mod in (torch, et):
        @mod.autocast("cpu", dtype=mod.float16)
        def f(x, y):
            inner = mod.mm(x, y)
            with mod.autocast("cpu", dtype=mod.bfloat16):
                return _dt(inner), _dt(mod.mm(x, y))
        got = f(mod.tensor(a), mod.tensor(b))
        if mod is torch:
            expected = got
        assert not mod.is_autocast_enabled("cpu")
    assert got == expected == ("float16", "bfloat16")


@pytest.mark.half_precision
def test_cache_disabled_and_cleared_give_the_same_values():
    w = et.nn.Parameter(et.tensor(_arrays([(3, 4)], 8)[0]))
    x = et.ones(2, 4)
    with et.autocast("cpu"):
        first = et.nn.functional.linear(x, w)
        second = et.nn.functional.linear(x, w)
        et.clear_autocast_cache()
        third = et.nn.functional.linear(x, w)
    with et.autocast("cpu", cache_enabled=False):
        fourth = et.nn.functional.linear(x, w)
        assert not et.is_autocast_cache_enabled()
    assert et.is_autocast_cache_enabled()
    for y in (second, third, fourth):
        np.testing.assert_array_equal(y.detach().float().numpy(), first.detach().float().numpy())


# -- warnings and errors ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cpu_autocast_with_an_unsupported_dtype_warns_and_stays_off(dtype):
    a, b = _arrays([(3, 4), (4, 2)], 9)
    for mod, dts in ((torch, TORCH_DT), (et, ET_DT)):
        with pytest.warns(UserWarning):
            ctx = mod.autocast("cpu", dtype=dts[dtype])
        with ctx:
            assert not mod.is_autocast_enabled("cpu")
            assert _dt(mod.mm(mod.tensor(a), mod.tensor(b))) == "float32"


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present")
def test_cuda_autocast_without_cuda_warns_and_stays_off():
    for mod in (torch, et):
        with pytest.warns(UserWarning):
            ctx = mod.autocast("cuda")
        with ctx:
            assert not mod.is_autocast_enabled("cuda")


def test_autocast_bad_arguments():
    with pytest.raises(TypeError):
        et.autocast(3)
    with pytest.raises(RuntimeError):
        et.autocast("foo")
    with pytest.raises(RuntimeError):
        torch.autocast("foo")
    with pytest.raises(TypeError):
        et.autocast("cpu", enabled=1)
    with pytest.raises(TypeError):
        et.autocast("cpu", dtype="bfloat16")
    assert et.amp.is_autocast_available("cpu") == torch.amp.is_autocast_available("cpu")


# -- custom_fwd / custom_bwd --------------------------------------------------------------------

def _function(mod, cast):
    seen = {}

    class Scale(mod.autograd.Function):
        @staticmethod
        @mod.amp.custom_fwd(device_type="cpu", cast_inputs=cast)
        def forward(ctx, x, w):
            seen["fwd"] = (_dt(x), _dt(w), mod.is_autocast_enabled("cpu"))
            ctx.save_for_backward(x, w)
            return mod.mm(x, w)

        @staticmethod
        @mod.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            seen["bwd"] = (_dt(g), mod.is_autocast_enabled("cpu"))
            return mod.mm(g, w.T).to(x.dtype), mod.mm(x.T, g).to(w.dtype)
    return Scale, seen


@pytest.mark.parametrize("cast", [None, "float32"])
@pytest.mark.half_precision
def test_custom_fwd_bwd_match_torch(cast):
    a, b = _arrays([(3, 4), (4, 2)], 10)
    results = []
    for mod, dts in ((torch, TORCH_DT), (et, ET_DT)):
        fn, seen = _function(mod, None if cast is None else dts[cast])
        x = mod.tensor(a).requires_grad_()
        w = mod.tensor(b).requires_grad_()
        with mod.autocast("cpu"):
            y = fn.apply(x, w)
        y.float().sum().backward()
        results.append((seen["fwd"], seen["bwd"], _dt(y), _dt(x.grad)))
    assert results[0] == results[1]


def test_custom_fwd_needs_a_device_type():
    with pytest.raises(TypeError):
        et.amp.custom_fwd(lambda ctx, x: x)
    with pytest.raises(TypeError):
        et.amp.custom_fwd(device_type=None)


# -- torch.cpu.amp, torch.cuda.amp --------------------------------------------------------------

@pytest.mark.half_precision
def test_cpu_amp_is_deprecated_autocast_like_torch():
    import ember.torch.cpu.amp as ecpu
    a, b = _arrays([(3, 4), (4, 2)], 11)
    for mod, cpu_amp in ((torch, torch.cpu.amp), (et, ecpu)):
        with pytest.warns(FutureWarning):
            ctx = cpu_amp.autocast()
        with ctx:
            assert _dt(mod.mm(mod.tensor(a), mod.tensor(b))) == "bfloat16"
        with pytest.warns(FutureWarning):
            scaler = cpu_amp.GradScaler(init_scale=4.0)
        assert scaler.get_scale() == 4.0 and scaler.is_enabled()
    assert et.cpu.amp is ecpu


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present")
def test_cuda_amp_without_cuda_like_torch():
    from ember.torch.cuda.amp import GradScaler, autocast
    import ember.torch.cuda.amp as ecuda
    assert ecuda.amp_definitely_not_available() == torch.cuda.amp.common \
        .amp_definitely_not_available()
    with pytest.warns(FutureWarning):
        with pytest.warns(UserWarning):
            scaler = GradScaler()
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0
    with pytest.warns(FutureWarning):
        with pytest.warns(UserWarning):
            autocast()
    assert et.cuda.amp is ecuda
