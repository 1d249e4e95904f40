"""ember.torch.nn.functional.grouped_mm against PyTorch's F.grouped_mm (float32, bfloat16,
out_dtype) in its four layouts, gradients against PyTorch's, float64 values and second-order
gradients against per-group torch.matmul (PyTorch's kernel takes no float64 and has no double
backward), and typed errors."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.torch as et
import ember.torch.nn.functional as EF


def close(a, b, tol):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                               rtol=tol, atol=tol)


def arrays(seed, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


# (shape of mat_a, shape of mat_b, offs); N and K multiples of 8 (PyTorch's stride rule)
LAYOUTS = [((6, 8), (2, 8, 8), [2, 6]), ((7, 8), (3, 8, 8), [0, 3, 5]),
           ((5, 16), (2, 16, 8), [5, 5]),
           ((2, 4, 8), (2, 8, 8), None), ((3, 5, 8), (8, 16), [8, 8, 16]),
           ((2, 4, 8), (8, 16), [4, 12]), ((6, 8), (8, 8), [2, 8]), ((4, 8), (8, 8), [0, 8])]


def _valid(shape_a, shape_b, offs):
    """A mask of the result's entries that belong to a group (PyTorch leaves the others)."""
    if offs is None or (len(shape_a) == 2 and len(shape_b) == 2):
        return None
    if len(shape_a) == 2:
        mask = np.zeros((shape_a[0], shape_b[2]), bool)
        mask[:offs[-1]] = True
    else:
        mask = np.zeros((shape_a[1], shape_b[1]), bool)
        mask[:, :offs[-1]] = True
    return mask


def _pair(shape_a, shape_b, offs, dtype, grad=False):
    a, b = arrays(len(shape_a) + sum(shape_b), shape_a, shape_b)
    ta = torch.from_numpy(a).to(dtype).requires_grad_(grad)
    tb = torch.from_numpy(b).to(dtype).requires_grad_(grad)
    ea = et.tensor(a).to(getattr(et, str(dtype).split(".")[-1])).requires_grad_(grad)
    eb = et.tensor(b).to(getattr(et, str(dtype).split(".")[-1])).requires_grad_(grad)
    to = None if offs is None else torch.tensor(offs, dtype=torch.int32)
    eo = None if offs is None else et.tensor(offs, dtype=et.int32)
    return (ta, tb, to), (ea, eb, eo)


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.bfloat16, 1e-2)])
@pytest.mark.half_precision
def test_values_match_torch(layout, dtype, tol):
    (ta, tb, to), (ea, eb, eo) = _pair(*layout, dtype)
    want = TF.grouped_mm(ta, tb, offs=to)
    got = EF.grouped_mm(ea, eb, offs=eo)
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    mask = _valid(*layout)
    g, w = got.float().numpy(), want.float().numpy()
    if mask is not None:
        close(g[mask], w[mask], tol)
        assert (g[~mask] == 0).all()
    else:
        close(g, w, tol)


@pytest.mark.parametrize("layout", LAYOUTS[:2] + LAYOUTS[4:6], ids=str)
@pytest.mark.half_precision
def test_out_dtype_float32_for_bfloat16(layout):
    # PyTorch's CPU kernel refuses out_dtype; its float32 product of the same bfloat16 values
    (ta, tb, to), (ea, eb, eo) = _pair(*layout, torch.bfloat16)
    want = TF.grouped_mm(ta.float(), tb.float(), offs=to)
    got = EF.grouped_mm(ea, eb, offs=eo, out_dtype=et.float32)
    assert got.dtype == et.float32 and want.dtype == torch.float32
    mask = _valid(*layout)
    mask = np.ones(tuple(want.shape), bool) if mask is None else mask
    close(got.numpy()[mask], want.numpy()[mask], 1e-5)


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_gradients_match_torch(layout):
    (ta, tb, to), (ea, eb, eo) = _pair(*layout, torch.float32, grad=True)
    want = TF.grouped_mm(ta, tb, offs=to)
    got = EF.grouped_mm(ea, eb, offs=eo)
    mask = _valid(*layout)
    mask = np.ones(tuple(want.shape), bool) if mask is None else mask
    seed = np.where(mask, arrays(1, tuple(want.shape))[0], 0.0).astype(np.float32)
    (want * torch.from_numpy(seed)).sum().backward()
    (got * et.tensor(seed)).sum().backward()
    # the rows of mat_a (columns of mat_b) in no group: PyTorch leaves them unset, ember 0
    ga, gb, wa, wb = ea.grad.numpy(), eb.grad.numpy(), ta.grad.numpy(), tb.grad.numpy()
    offs = layout[2]
    if offs is not None and ga.ndim == 2 and gb.ndim == 3:
        assert (ga[offs[-1]:] == 0).all()
        ga, wa = ga[:offs[-1]], wa[:offs[-1]]
    if offs is not None and ga.ndim == 3 and gb.ndim == 2:
        assert (gb[:, offs[-1]:] == 0).all()
        gb, wb = gb[:, :offs[-1]], wb[:, :offs[-1]]
    close(ga, wa, 1e-5)
    close(gb, wb, 1e-5)


def _reference(a, b, offs):
    """The groups' products with torch.matmul (float64, differentiable twice)."""
    if offs is None:
        return a @ b
    starts = [0] + offs[:-1]
    if a.ndim == 2 and b.ndim == 2:
        return torch.stack([a[:, s:e] @ b[s:e] for s, e in zip(starts, offs)])
    if a.ndim == 2:
        parts = [a[s:e] @ b[i] for i, (s, e) in enumerate(zip(starts, offs))]
        parts.append(a.new_zeros((a.shape[0] - offs[-1], b.shape[2])))
        return torch.cat(parts, 0)
    parts = [a[i] @ b[:, s:e] for i, (s, e) in enumerate(zip(starts, offs))]
    parts.append(a.new_zeros((a.shape[1], b.shape[1] - offs[-1])))
    return torch.cat(parts, 1)


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_float64_values_and_hessian_vector_products(layout):
    (ta, tb, _), (ea, eb, eo) = _pair(*layout, torch.float64, grad=True)
    offs = layout[2]
    bias = arrays(3, (tuple(_reference(ta, tb, offs).shape)[-1],))[0]
    rng = np.random.default_rng(4)
    results = []
    for lib, a, b, out in ((torch, ta, tb, _reference(ta, tb, offs) + torch.from_numpy(bias)),
                           (et, ea, eb, EF.grouped_mm(ea, eb, offs=eo, bias=et.tensor(bias)))):
        r = lib.from_numpy(rng.standard_normal(tuple(out.shape))) if lib is torch else \
            et.tensor(np.random.default_rng(4).standard_normal(tuple(out.shape)))
        f = (out * out * r).sum()
        ga, gb = lib.autograd.grad(f, (a, b), create_graph=True)
        v = np.random.default_rng(5)
        inner = (ga * lib.tensor(v.standard_normal(tuple(a.shape)))).sum() + \
            (gb * lib.tensor(v.standard_normal(tuple(b.shape)))).sum()
        ha, hb = lib.autograd.grad(inner, (a, b))
        results.append([out.detach().numpy(), ga.detach().numpy(), gb.detach().numpy(),
                        ha.numpy(), hb.numpy()])
    for got, want in zip(results[1], results[0]):
        close(got, want, 1e-6)


def test_empty_groups_and_an_empty_input():
    # (PyTorch's CPU kernel refuses a 0-row mat_a)
    b = et.tensor(arrays(0, (2, 8, 8))[0])
    out = EF.grouped_mm(et.ones(0, 8, dtype=et.float64), b, offs=et.tensor([0, 0], dtype=et.int32))
    assert tuple(out.shape) == (0, 8)
    a = et.tensor(arrays(1, (3, 8))[0])
    out = EF.grouped_mm(a, b, offs=et.tensor([0, 2], dtype=et.int32))
    close(out.numpy()[:2], (torch.from_numpy(a.numpy()[:2]) @ torch.from_numpy(b.numpy()[1])), 1e-6)
    assert (out.numpy()[2] == 0).all()


def test_bad_arguments_raise_typed_errors():
    a, b = et.ones(6, 8), et.ones(2, 8, 8)
    offs = et.tensor([2, 6], dtype=et.int32)
    errors = ember.errors
    with pytest.raises(errors.KindError, match="int32"):
        EF.grouped_mm(a, b, offs=et.tensor([2, 6]))
    with pytest.raises(errors.InvalidParameterError, match="offs"):
        EF.grouped_mm(a, b)
    with pytest.raises(errors.InvalidParameterError, match="offs"):
        EF.grouped_mm(et.ones(2, 4, 8), b, offs=offs)
    with pytest.raises(errors.InvalidParameterError, match="non-decreasing"):
        EF.grouped_mm(a, b, offs=et.tensor([4, 2], dtype=et.int32))
    with pytest.raises(errors.InvalidParameterError, match="non-decreasing"):
        EF.grouped_mm(a, b, offs=et.tensor([2, 7], dtype=et.int32))
    with pytest.raises(errors.ShapeMismatchError, match="batch sizes"):
        EF.grouped_mm(a, b, offs=et.tensor([2, 4, 6], dtype=et.int32))
    with pytest.raises(errors.ShapeMismatchError, match="contraction"):
        EF.grouped_mm(et.ones(6, 4), b, offs=offs)
    with pytest.raises(errors.ShapeMismatchError, match="2-d or 3-d"):
        EF.grouped_mm(et.ones(8), b, offs=offs)
    with pytest.raises(errors.KindError, match="same dtype"):
        EF.grouped_mm(a, b.double(), offs=offs)
    with pytest.raises(errors.KindError):
        EF.grouped_mm(a.long(), b.long(), offs=offs)
    with pytest.raises(errors.InvalidParameterError, match="out_dtype"):
        EF.grouped_mm(a, b, offs=offs, out_dtype=et.float16)
    with pytest.raises(RuntimeError, match="int32"):  # PyTorch refuses the same
        TF.grouped_mm(torch.ones(6, 8), torch.ones(2, 8, 8), offs=torch.tensor([2, 6]))
