"""PyTorch's aliasing and in-place patterns as a table of small programs (issue 25).

Each program is written once as ``prog(torch)`` and run twice: with ``torch`` bound to
``ember.torch`` and to PyTorch itself. The returned values (tensors: dtype, shape, values and
``requires_grad``; Python values as they are) must agree, or both runs must raise: then ember's
error must be an ``ember.errors.EmberError`` and an instance of the built-in exception class
PyTorch's error derives from (RuntimeError, ValueError, TypeError, IndexError).

Groups: 1 views alias, 2 in-place methods and setitem, 3 ``detach()`` and ``.data``,
5 autograd with in-place ops. Inputs are fixed values, so no random stream is compared.
"""

import numpy as np
import pytest
import torch as real_torch

import ember.torch as ember_torch
from ember.errors import EmberError

PROGRAMS = []


def program(fn):
    PROGRAMS.append(fn)
    return fn


def f(torch, *shape):
    """0, 1, 2, ... as a float32 tensor of ``shape``."""
    n = int(np.prod(shape)) if shape else 1
    return torch.arange(n, dtype=torch.float32).reshape(*shape)


def leaf(torch, values):
    return torch.tensor(values, requires_grad=True)


# --- group 1: views alias ---------------------------------------------------------------

@program
def view_int_index(torch):
    x = f(torch, 2, 3)
    v = x[0]
    v[1] = 10.0
    return x, v


@program
def view_slice(torch):
    x = f(torch, 5)
    v = x[1:3]
    v += 1
    return x, v


@program
def view_strided_columns(torch):
    x = torch.zeros(3, 4)
    v = x[:, ::2]
    v += 1
    return x, v


@program
def view_ellipsis_last(torch):
    x = f(torch, 2, 3, 4)
    v = x[..., 0]
    v.mul_(-1)
    return x


@program
def view_none_index(torch):
    x = f(torch, 3)
    v = x[None]
    v[0, 1] = 5.0
    return x, tuple(v.shape)


@program
def view_view(torch):
    x = f(torch, 6)
    v = x.view(2, 3)
    v[1] = 0.0
    return x


@program
def view_reshape_contiguous(torch):
    x = f(torch, 6)
    v = x.reshape(3, 2)
    v[:, 0] = -1.0
    return x


@program
def view_base_write_seen_by_view(torch):
    x = f(torch, 6)
    v = x.view(2, 3)
    x[4] = 100.0
    return v


@program
def view_base_inplace_seen_by_slice(torch):
    x = f(torch, 5)
    v = x[1:3]
    x.add_(10)
    return v


@program
def view_t(torch):
    x = f(torch, 2, 3)
    v = x.t()
    v[0, 1] = 9.0
    return x


@program
def view_T(torch):
    x = f(torch, 2, 3)
    x.T[2, 0] = -7.0
    return x


@program
def view_transpose(torch):
    x = f(torch, 2, 3, 2)
    v = x.transpose(0, 2)
    v[1, 2, 0] = 50.0
    return x


@program
def view_permute(torch):
    x = f(torch, 2, 3, 4)
    v = x.permute(2, 0, 1)
    v[3].fill_(-1.0)
    return x


@program
def view_narrow(torch):
    x = f(torch, 3, 4)
    v = x.narrow(1, 1, 2)
    v.zero_()
    return x


@program
def view_diagonal(torch):
    x = torch.zeros(3, 3)
    d = x.diagonal()
    d += 2
    return x


@program
def view_diagonal_offset(torch):
    x = torch.zeros(3, 4)
    x.diagonal(1).fill_(5.0)
    return x


@program
def view_unsqueeze(torch):
    x = f(torch, 3)
    v = x.unsqueeze(0)
    v[0, 2] = 1.5
    return x, tuple(v.shape)


@program
def view_squeeze(torch):
    x = torch.zeros(1, 3, 1)
    v = x.squeeze()
    v[1] = 4.0
    return x


@program
def view_select(torch):
    x = f(torch, 2, 3)
    x.select(1, 2).fill_(3.0)
    return x


@program
def view_unfold(torch):
    x = f(torch, 6)
    v = x.unfold(0, 2, 2)
    v[1, 0] = -5.0
    return x, v


@program
def view_unfold_overlapping_element(torch):
    x = f(torch, 5)
    u = x.unfold(0, 3, 1)
    u[1, 0] = 50.0
    return x, u


@program
def view_split(torch):
    x = f(torch, 5)
    a, b, c = x.split(2)
    b[0] = 9.0
    c.mul_(10)
    return x, a


@program
def view_chunk(torch):
    x = f(torch, 6, 2)
    chunks = x.chunk(3)
    chunks[1].zero_()
    return x


@program
def view_unbind(torch):
    x = f(torch, 3, 2)
    rows = x.unbind(0)
    rows[1].add_(100)
    return x, rows[2]


@program
def view_flatten_contiguous(torch):
    x = torch.zeros(2, 3)
    v = x.flatten()
    v[4] = 1.0
    return x


@program
def view_flatten_noncontiguous_is_copy(torch):
    x = f(torch, 2, 3)
    v = x.t().flatten()
    v[0] = 99.0
    return x, v


@program
def view_movedim(torch):
    x = f(torch, 2, 3, 4)
    v = x.movedim(0, 2)
    v[2, 1, 0] = -1.0
    return x


@program
def view_detach(torch):
    x = f(torch, 3)
    d = x.detach()
    d[0] = 5.0
    return x


@program
def view_data(torch):
    x = f(torch, 3)
    d = x.data
    d.mul_(2)
    return x


@program
def view_of_view(torch):
    x = f(torch, 3, 4)
    v = x[1:].t()[0]
    v.fill_(-2.0)
    return x, v


@program
def view_of_view_of_view(torch):
    x = f(torch, 4, 4)
    v = x.narrow(0, 1, 2).unsqueeze(0)[0, :, 1:3]
    v += 10
    w = x.view(16)
    return x, w[5:7]


@program
def view_sibling_sees_write(torch):
    x = f(torch, 2, 3)
    row = x[1]
    col = x[:, 2]
    row.zero_()
    return col


@program
def view_expand_add_raises(torch):
    x = torch.zeros(3)
    e = x.expand(2, 3)
    e.add_(1)
    return x


@program
def view_expand_mul_raises(torch):
    x = torch.ones(1, 3)
    e = x.expand(4, 3)
    e.mul_(2)
    return x


@program
def view_expand_copy_raises(torch):
    x = torch.zeros(3)
    e = x.expand(2, 3)
    e.copy_(torch.ones(2, 3))
    return x


@program
def view_expand_fill(torch):
    x = torch.zeros(3)
    x.expand(2, 3).fill_(4.0)
    return x


@program
def view_expand_sees_base_write(torch):
    x = torch.zeros(3)
    e = x.expand(2, 3)
    x[1] = 4.0
    return e


@program
def view_advanced_index_is_copy(torch):
    x = f(torch, 4)
    v = x[[0, 2]]
    v[0] = 100.0
    return x, v


@program
def view_mask_index_is_copy(torch):
    x = f(torch, 4)
    v = x[x > 1]
    v.zero_()
    return x, v


@program
def view_clone_is_copy(torch):
    x = f(torch, 3)
    c = x.clone()
    c += 1
    return x, c


@program
def view_contiguous(torch):
    x = f(torch, 2, 2)
    c = x.contiguous()
    c[0, 0] = 7.0
    d = x.t().contiguous()
    d[0, 1] = -7.0
    return x, c is x


# --- group 2: in-place methods, augmented assignment, setitem -------------------------------

@program
def inplace_add_returns_self(torch):
    x = f(torch, 3)
    r = x.add_(torch.tensor([1.0, 2.0, 3.0]), alpha=2)
    return x, r is x


@program
def inplace_sub(torch):
    x = f(torch, 3)
    v = x[1:]
    r = x.sub_(0.5)
    return x, v, r is x


@program
def inplace_mul_broadcast(torch):
    x = f(torch, 2, 3)
    x.mul_(torch.tensor([1.0, -1.0, 2.0]))
    return x


@program
def inplace_div(torch):
    x = f(torch, 4)
    x.div_(4)
    return x


@program
def inplace_div_int_raises(torch):
    x = torch.tensor([1, 2, 3])
    x.div_(2)
    return x


@program
def inplace_div_int_floor(torch):
    x = torch.tensor([7, -7, 3])
    x.div_(2, rounding_mode="floor")
    return x


@program
def inplace_clamp(torch):
    x = torch.tensor([-2.0, -0.5, 0.5, 3.0])
    v = x[1:]
    x.clamp_(-1.0, 1.0)
    return x, v


@program
def inplace_zero(torch):
    x = f(torch, 2, 2)
    r = x[0].zero_()
    return x, r


@program
def inplace_fill(torch):
    x = torch.zeros(2, 3, dtype=torch.int64)
    x.fill_(7)
    x[1].fill_(2.9)
    return x


@program
def inplace_copy_broadcast(torch):
    x = torch.zeros(2, 3)
    x.copy_(torch.tensor([1.0, 2.0, 3.0]))
    return x


@program
def inplace_copy_cast(torch):
    x = torch.zeros(3, dtype=torch.int64)
    x.copy_(torch.tensor([1.7, -2.2, 3.9]))
    return x


@program
def inplace_copy_into_view(torch):
    x = torch.zeros(3, 3)
    x[:, 1].copy_(torch.tensor([1, 2, 3]))
    return x


@program
def inplace_masked_fill(torch):
    x = f(torch, 2, 3)
    x.masked_fill_(x > 2, -1.0)
    return x


@program
def inplace_index_add(torch):
    x = torch.zeros(3, 2)
    x.index_add_(0, torch.tensor([0, 2, 0]), torch.tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]))
    return x


@program
def inplace_scatter(torch):
    x = torch.zeros(2, 4)
    x.scatter_(1, torch.tensor([[0, 3], [1, 2]]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    return x


@program
def aug_arithmetic(torch):
    x = torch.tensor([6.0, 7.0, 8.0])
    v = x[:]
    before = id(x)
    x += 1
    x -= 2
    x *= 3
    x /= 5
    return x, v, id(x) == before


@program
def aug_floordiv_mod_pow(torch):
    x = torch.tensor([7, -7, 9])
    v = x[1:]
    x //= 2
    y = torch.tensor([7.5, -2.5, 4.0])
    y %= 2
    z = torch.tensor([1.0, 2.0, 3.0])
    z **= 2
    return x, v, y, z


@program
def aug_bitwise(torch):
    x = torch.tensor([12, 10, 6])
    v = x[:2]
    x &= 10
    a = x.clone()
    x |= 1
    b = x.clone()
    x ^= 3
    return a, b, x, v


@program
def aug_shifts(torch):
    x = torch.tensor([1, 2, 3])
    v = x[1:]
    x <<= 2
    a = x.clone()
    x >>= 1
    return a, x, v


@program
def aug_bool_or(torch):
    x = torch.tensor([True, False, False])
    x |= torch.tensor([False, False, True])
    return x


@program
def aug_matmul(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    x @= torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    return x


@program
def aug_int_plus_half_raises(torch):
    x = torch.tensor([1, 2])
    x += 0.5
    return x


@program
def aug_int_times_float_tensor_raises(torch):
    x = torch.tensor([1, 2])
    x *= torch.tensor([1.5, 2.0])
    return x


@program
def aug_float_plus_int_tensor(torch):
    x = torch.tensor([0.5, 1.5])
    x += torch.tensor([1, 2])
    return x


@program
def inplace_t_(torch):
    x = f(torch, 2, 3)
    r = x.t_()
    return x, tuple(x.shape), r is x


@program
def inplace_transpose_(torch):
    x = f(torch, 2, 3, 4)
    x.transpose_(0, 2)
    return x, tuple(x.shape)


@program
def inplace_squeeze_unsqueeze_(torch):
    x = f(torch, 1, 3, 1)
    x.squeeze_()
    s = tuple(x.shape)
    x.unsqueeze_(1)
    return x, s, tuple(x.shape)


@program
def setitem_int(torch):
    x = torch.zeros(2, 3)
    x[1] = 5.0
    x[0, 2] = -1.0
    return x


@program
def setitem_mask(torch):
    x = f(torch, 2, 3)
    x[x > 3] = 0.0
    return x


@program
def setitem_mask_values(torch):
    x = f(torch, 5)
    x[x >= 2] = torch.tensor([10.0, 20.0, 30.0])
    return x


@program
def setitem_index_tensor(torch):
    x = torch.zeros(5)
    x[torch.tensor([0, 3])] = torch.tensor([1.0, 2.0])
    return x


@program
def setitem_index_list_rows(torch):
    x = torch.zeros(3, 2)
    x[[0, 2]] = torch.tensor([4.0, 5.0])
    return x


@program
def setitem_ellipsis(torch):
    x = torch.zeros(2, 2, 3)
    x[..., 0] = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    return x


@program
def setitem_slice_augmented(torch):
    x = f(torch, 5)
    x[1:3] += 1
    return x


@program
def setitem_repeated_index_augmented(torch):
    x = torch.zeros(3)
    x[torch.tensor([0, 0, 2])] += 1
    return x


@program
def setitem_repeated_index_accumulate(torch):
    x = torch.zeros(3)
    x.index_put_((torch.tensor([0, 0, 2]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
    return x


@program
def setitem_broadcast_row(torch):
    x = torch.zeros(3, 3)
    x[1:] = torch.tensor([1.0, 2.0, 3.0])
    x[:, 0] = torch.tensor(9.0)
    return x


@program
def setitem_cast_int(torch):
    x = torch.zeros(3, dtype=torch.int64)
    x[0] = 2.7
    x[1:] = torch.tensor([-1.9, 3.5])
    return x


@program
def setitem_cast_float_from_int(torch):
    x = torch.zeros(2, 2)
    x[0] = torch.tensor([3, 4])
    return x


@program
def setitem_through_view(torch):
    x = torch.zeros(2, 3)
    v = x[:, 1:]
    v[v == 0] = 1.0
    return x


@program
def setitem_char_rnn_one_hot(torch):
    letters = [0, 3, 1, 2, 3]
    t = torch.zeros(len(letters), 1, 4)
    for li, letter in enumerate(letters):
        t[li][0][letter] = 1
    return t


# --- group 3: detach() and .data ---------------------------------------------------------

@program
def detach_shares_and_untracked(torch):
    p = leaf(torch, [1.0, 2.0, 3.0])
    d = p.detach()
    d[0] = 10.0
    return p, d, d.requires_grad, p.requires_grad


@program
def detach_add_changes_parameter(torch):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    p.detach().add_(1)
    return p


@program
def data_add_alpha_step(torch):
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    (p * p).sum().backward()
    p.data.add_(p.grad, alpha=-0.1)
    return p, p.grad, p.is_leaf


@program
def data_add_scaled_grad_step(torch):
    p = torch.nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    (p ** 3).sum().backward()
    p.data.add_(-0.01 * p.grad)
    return p


@program
def data_is_untracked_alias(torch):
    p = leaf(torch, [1.0, 2.0])
    d = p.data
    with torch.no_grad():
        p.mul_(3)
    return d, d.requires_grad


@program
def data_assign_keeps_identity(torch):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    before = id(p)
    p.data = torch.tensor([5.0, 6.0])
    return p, id(p) == before, isinstance(p, torch.nn.Parameter), p.requires_grad, p.is_leaf


@program
def data_assign_new_shape(torch):
    p = torch.nn.Parameter(torch.zeros(2))
    p.data = torch.ones(2, 2)
    return p, tuple(p.shape)


@program
def data_assign_then_sgd_step(torch):
    p = torch.nn.Parameter(torch.tensor([1.0, 1.0]))
    opt = torch.optim.SGD([p], lr=0.1)
    p.data = torch.tensor([3.0, -2.0])
    opt.zero_grad()
    (p * p).sum().backward()
    opt.step()
    return p, opt.param_groups[0]["params"][0] is p


@program
def data_fill_module_weight(torch):
    m = torch.nn.Linear(2, 1)
    m.weight.data.fill_(0.5)
    m.bias.data.zero_()
    return m(torch.tensor([[1.0, 3.0]])), m.weight


@program
def grad_zero_between_backwards(torch):
    x = leaf(torch, [1.0, 2.0])
    (x * x).sum().backward()
    first = x.grad.clone()
    x.grad.zero_()
    (x * 3).sum().backward()
    return first, x.grad


@program
def momentum_buffer_chain(torch):
    buf = torch.tensor([1.0, 2.0])
    g = torch.tensor([0.5, -0.5])
    r = buf.mul_(0.9).add_(g)
    return buf, r is buf


@program
def manual_sgd_under_no_grad(torch):
    p = leaf(torch, [1.0, 2.0])
    (p * p).sum().backward()
    with torch.no_grad():
        p -= 0.25 * p.grad
    return p, p.requires_grad, p.is_leaf


@program
def detach_requires_grad_new_leaf(torch):
    x = leaf(torch, [1.0, 2.0])
    y = (x * 2).detach().requires_grad_()
    (y * y).sum().backward()
    return y.grad, x.grad is None, y.is_leaf


# --- group 5: autograd and in-place ops ----------------------------------------------------

@program
def leaf_inplace_raises(torch):
    x = leaf(torch, [1.0, 2.0])
    x.add_(1)
    return x


@program
def leaf_setitem_raises(torch):
    x = leaf(torch, [1.0, 2.0])
    x[0] = 5.0
    return x


@program
def leaf_inplace_under_no_grad(torch):
    x = leaf(torch, [1.0, 2.0])
    with torch.no_grad():
        x.add_(1)
        x[1] = 7.0
    (x * x).sum().backward()
    return x, x.grad, x.requires_grad, x.is_leaf


@program
def leaf_view_write_raises(torch):
    x = leaf(torch, [1.0, 2.0, 3.0])
    v = x[:2]
    v.mul_(2)
    return x


@program
def leaf_relu_inplace_raises(torch):
    x = leaf(torch, [-1.0, 2.0])
    torch.nn.functional.relu(x, inplace=True)
    return x


@program
def grad_add_on_intermediate(torch):
    x = leaf(torch, [1.0, 2.0, 3.0])
    y = x * 2
    y.add_(1)
    (y * y).sum().backward()
    return y, x.grad


@program
def grad_setitem_on_intermediate(torch):
    x = leaf(torch, [1.0, 2.0, 3.0])
    y = x * 2
    y[0] = 0.0
    y.sum().backward()
    return y, x.grad


@program
def grad_slice_mul_on_intermediate(torch):
    x = leaf(torch, [1.0, 2.0, 3.0])
    y = x * 2
    y[1:].mul_(3)
    y.sum().backward()
    return y, x.grad


@program
def grad_setitem_tracked_value(torch):
    x = leaf(torch, [1.0, 2.0, 3.0])
    w = leaf(torch, [4.0])
    y = x.clone()
    y[1] = w[0] * w[0]
    (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    return y, x.grad, w.grad


@program
def grad_write_into_untracked(torch):
    x = leaf(torch, [1.0, 2.0])
    z = torch.zeros(3)
    z[1] = x[0] * 2
    z.sum().backward()
    return z, z.requires_grad, x.grad


@program
def grad_base_written_view_used(torch):
    x = leaf(torch, [1.0, 2.0, 3.0])
    y = x * 1
    v = y[1:]
    y.mul_(2)
    v.sum().backward()
    return v, x.grad


@program
def grad_view_written_base_used(torch):
    x = leaf(torch, [1.0, 2.0, 3.0])
    y = x * 1
    y[:2].mul_(3)
    (y * y).sum().backward()
    return y, x.grad


@program
def saved_exp_modified_raises(torch):
    x = leaf(torch, [0.0, 1.0])
    e = x.exp()
    e.add_(1)
    e.sum().backward()
    return x.grad


@program
def saved_sigmoid_modified_raises(torch):
    x = leaf(torch, [0.0, 1.0])
    s = x.sigmoid()
    s.mul_(2)
    s.sum().backward()
    return x.grad


@program
def saved_tanh_setitem_raises(torch):
    x = leaf(torch, [0.0, 1.0])
    t = x.tanh()
    t[0] = 0.0
    t.sum().backward()
    return x.grad


@program
def saved_input_of_mul_modified_raises(torch):
    x = leaf(torch, [1.0, 2.0])
    a = x * 2
    b = a * a
    a.add_(1)
    b.sum().backward()
    return x.grad


@program
def saved_input_via_view_modified_raises(torch):
    x = leaf(torch, [1.0, 2.0])
    a = x * 2
    b = a.sin()
    a[0] = 0.0
    b.sum().backward()
    return x.grad


@program
def unsaved_input_modified_ok(torch):
    x = leaf(torch, [1.0, 2.0, 3.0])
    a = x * 2
    b = a + 1
    a.add_(1)
    b.sum().backward()
    return a, b, x.grad


@program
def functional_relu_inplace(torch):
    x = leaf(torch, [-1.0, 0.5, 2.0])
    y = x * 2
    r = torch.nn.functional.relu(y, inplace=True)
    (r * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    return y, r is y, x.grad


@program
def relu_method_inplace(torch):
    x = leaf(torch, [-1.0, 0.5, 2.0])
    y = x - 0.25
    y.relu_()
    (y * y).sum().backward()
    return y, x.grad


@program
def module_relu_inplace(torch):
    x = leaf(torch, [-1.0, 0.5, 2.0])
    y = x * 3
    out = torch.nn.ReLU(inplace=True)(y)
    out.exp().sum().backward()
    return y, out is y, x.grad


@program
def module_leaky_relu_inplace(torch):
    x = leaf(torch, [-1.0, 0.5, -2.0])
    y = x * 2
    out = torch.nn.LeakyReLU(0.1, inplace=True)(y)
    (out * out).sum().backward()
    return y, out is y, x.grad


@program
def module_elu_inplace(torch):
    x = leaf(torch, [-1.0, 0.5, -2.0])
    y = x + 0.0
    out = torch.nn.ELU(inplace=True)(y)
    (out * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    return y, out is y, x.grad


@program
def module_hardtanh_inplace(torch):
    x = leaf(torch, [-2.0, 0.25, 3.0])
    y = x * 1.5
    out = torch.nn.Hardtanh(inplace=True)(y)
    (out * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    return y, out is y, x.grad


@program
def module_dropout_inplace(torch):
    x = leaf(torch, [-2.0, 0.25, 3.0])
    y = x * 2
    out = torch.nn.Dropout(p=0.0, inplace=True)(y)
    (out * out).sum().backward()
    return y, x.grad


@program
def sequential_inplace_relu(torch):
    m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(inplace=True))
    with torch.no_grad():
        m[0].weight.copy_(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))
        m[0].bias.copy_(torch.tensor([0.0, -3.0]))
    m(torch.tensor([[1.0, 2.0], [3.0, 1.0]])).sum().backward()
    return m[0].weight.grad, m[0].bias.grad


@program
def second_order_through_inplace(torch):
    x = leaf(torch, [1.0, 2.0])
    y = x * x
    y.mul_(x)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    g.sum().backward()
    return g, x.grad


# --- the comparison ----------------------------------------------------------------------

def run(prog, module):
    try:
        return "value", prog(module)
    except Exception as error:  # compared below: both must raise
        return "raised", error


def builtin_base(error):
    """The built-in exception class ``error``'s class derives from (PyTorch's ``RuntimeError``)."""
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


def normalize(value, module):
    if isinstance(value, module.Tensor):
        dtype = str(value.dtype).replace("torch.", "")
        return ("tensor", dtype, tuple(value.shape), value.requires_grad,
                np.asarray(value.detach().tolist(), dtype=np.float64))
    if isinstance(value, (tuple, list)):
        return tuple(normalize(v, module) for v in value)
    return value


def assert_same(e, t, where="result"):
    if isinstance(t, tuple) and t and t[0] == "tensor":
        assert isinstance(e, tuple) and e and e[0] == "tensor", f"{where}: {e!r} is not a tensor"
        assert e[1] == t[1], f"{where}: dtype {e[1]} != {t[1]}"
        assert e[2] == t[2], f"{where}: shape {e[2]} != {t[2]}"
        assert e[3] == t[3], f"{where}: requires_grad {e[3]} != {t[3]}"
        np.testing.assert_allclose(e[4], t[4], rtol=1e-6, atol=1e-6, err_msg=where)
    elif isinstance(t, tuple):
        assert isinstance(e, tuple) and len(e) == len(t), f"{where}: {e!r} != {t!r}"
        for i, (a, b) in enumerate(zip(e, t)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        assert type(e) is type(t) and e == t, f"{where}: {e!r} != {t!r}"


def test_table_size():
    assert len(PROGRAMS) >= 70
    assert len({p.__name__ for p in PROGRAMS}) == len(PROGRAMS)


# programs whose answer is a memory layout's: a copy where a device without one (JAX) has a view
LAYOUT_PROGRAMS = {"view_flatten_noncontiguous_is_copy", "view_contiguous"}


@pytest.mark.parametrize("prog", [pytest.param(p, marks=pytest.mark.layout)
                                  if p.__name__ in LAYOUT_PROGRAMS else p for p in PROGRAMS],
                         ids=lambda p: p.__name__)
def test_program(prog):
    t_kind, t_out = run(prog, real_torch)
    e_kind, e_out = run(prog, ember_torch)
    if t_kind == "raised":
        assert e_kind == "raised", (
            f"PyTorch raised {type(t_out).__name__}: {t_out}; ember returned {e_out!r}")
        assert isinstance(e_out, EmberError), f"not an EmberError: {type(e_out)}: {e_out}"
        base = builtin_base(t_out)
        assert isinstance(e_out, base), (
            f"ember raised {type(e_out).__name__} ({e_out}), not a {base.__name__} as PyTorch")
        return
    if e_kind == "raised":
        raise AssertionError(f"ember raised where PyTorch did not: "
                             f"{type(e_out).__name__}: {e_out}") from e_out
    assert_same(normalize(e_out, ember_torch), normalize(t_out, real_torch))
