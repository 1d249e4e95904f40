"""ember.torch.nn.SyncBatchNorm against PyTorch: on one process (no process group) it is
BatchNorm; on two processes (gloo, 127.0.0.1) its outputs, gradients, Hessian-vector products and
running statistics are those of one BatchNorm over the concatenated batch; convert_sync_batchnorm swaps the
BatchNorm layers of a model and keeps their parameters."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.distributed.launch import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
from sync_batch_norm_worker import SIZES, share  # noqa: E402


def T(a):
    return torch.from_numpy(np.asarray(a))


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("sync_bn")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE="2",
               OMP_NUM_THREADS="1")
    procs = []
    try:
        for rank in range(2):
            procs.append(subprocess.Popen(
                [sys.executable, os.path.join(HERE, "sync_batch_norm_worker.py"), str(out)],
                env=dict(env, RANK=str(rank), LOCAL_RANK=str(rank)), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True))
        errs = [p.communicate(timeout=400)[1] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, err in zip(procs, errs):
        assert p.returncode == 0, err
    return [dict(np.load(out / f"rank{r}.npz")) for r in range(2)]


def reference():
    """One PyTorch BatchNorm1d over the whole batch, the same two steps as the workers."""
    bn = torch.nn.BatchNorm1d(3, momentum=0.3).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64))
        bn.bias.copy_(torch.tensor([0.1, 0.2, -0.3], dtype=torch.float64))
    steps = []
    for step in range(2):
        x = torch.cat([T(share(10 + step, r, (3, 4))) for r in range(2)]).requires_grad_()
        g = torch.cat([T(share(20 + step, r, (3, 4))) for r in range(2)])
        bn.zero_grad()
        y = bn(x)
        (y * g).sum().backward()
        steps.append((y.detach(), x.grad, bn.weight.grad.clone(), bn.bias.grad.clone()))
    x = torch.cat([T(share(40, r, (3, 4))) for r in range(2)]).requires_grad_()
    g = torch.cat([T(share(41, r, (3, 4))) for r in range(2)])
    v = torch.cat([T(share(42, r, (3, 4))) for r in range(2)])
    vw = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64)
    y = bn(x)
    gx, gw = torch.autograd.grad((y * y * g).sum(), (x, bn.weight), create_graph=True)
    hvp = torch.autograd.grad((gx * v).sum() + (gw * vw).sum(), (x, bn.weight))
    bn.eval()
    x = torch.cat([T(share(30, r, (3, 4))) for r in range(2)])
    return bn, steps, bn(x).detach(), hvp


def test_two_processes_match_batch_norm_over_the_whole_batch(ranks):
    bn, steps, evaluated, _ = reference()
    cut = (slice(0, SIZES[0]), slice(SIZES[0], None))
    for step, (y, dx, dw, db) in enumerate(steps):
        for r in range(2):
            close(ranks[r][f"y{step}"], y[cut[r]])
            close(ranks[r][f"dx{step}"], dx[cut[r]])
        # each rank holds its own share of the parameters' gradients (DDP sums them)
        close(ranks[0][f"dw{step}"] + ranks[1][f"dw{step}"], dw)
        close(ranks[0][f"db{step}"] + ranks[1][f"db{step}"], db)
    for r in range(2):
        close(ranks[r]["running_mean"], bn.running_mean)
        close(ranks[r]["running_var"], bn.running_var)
        assert int(ranks[r]["num_batches_tracked"]) == int(bn.num_batches_tracked) == 3
        close(ranks[r]["eval"], evaluated[cut[r]])


def test_two_processes_give_batch_norms_hessian_vector_products(ranks):
    hx, hw = reference()[3]
    close(np.concatenate([ranks[0]["hvp_x"], ranks[1]["hvp_x"]]), hx)
    close(ranks[0]["hvp_w"] + ranks[1]["hvp_w"], hw)


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 6), (2, 3, 4, 5), (2, 3, 2, 2, 3), (0, 3, 4)])
@pytest.mark.parametrize("affine,track", [(True, True), (False, True), (True, False)])
def test_one_process_is_batch_norm(shape, affine, track):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape)
    g = rng.standard_normal(shape)
    tm = torch.nn.SyncBatchNorm(3, affine=affine, track_running_stats=track).double()
    em = et.nn.SyncBatchNorm(3, affine=affine, track_running_stats=track).double()
    if affine:
        with torch.no_grad():
            tm.weight.copy_(T(rng.standard_normal(3)))
            tm.bias.copy_(T(rng.standard_normal(3)))
    em.load_state_dict({k: et.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    assert list(em.state_dict()) == list(tm.state_dict())
    for train in (True, False):
        tm.train(train)
        em.train(train)
        tx, ex = T(x).requires_grad_(), et.tensor(x, requires_grad=True)
        ty, ey = tm(tx), em(ex)
        close(ey.detach().numpy(), ty.detach())
        (ty * T(g)).sum().backward()
        (ey * et.tensor(g)).sum().backward()
        close(ex.grad.numpy(), tx.grad)
        for name, p in tm.named_parameters():
            close(dict(em.named_parameters())[name].grad.numpy(), p.grad)
        tm.zero_grad()
        em.zero_grad()
        for name, b in tm.named_buffers():
            close(dict(em.named_buffers())[name].numpy(), b)


def test_repr_and_state_dict_keys():
    for kw in ({}, {"affine": False}, {"track_running_stats": False}, {"bias": False},
               {"eps": 1e-3, "momentum": None}):
        tm, em = torch.nn.SyncBatchNorm(4, **kw), et.nn.SyncBatchNorm(4, **kw)
        assert repr(em) == repr(tm)
        assert list(em.state_dict()) == list(tm.state_dict())


def test_convert_sync_batchnorm_swaps_batch_norms_and_keeps_their_tensors():
    def build(nn):
        return nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4),
                             nn.Sequential(nn.BatchNorm1d(2, affine=False), nn.InstanceNorm1d(2)),
                             nn.BatchNorm3d(5, bias=False))
    tm = torch.nn.SyncBatchNorm.convert_sync_batchnorm(build(torch.nn))
    before = build(et.nn)
    bn = before[1]
    em = et.nn.SyncBatchNorm.convert_sync_batchnorm(before)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert em[1].weight is bn.weight and em[1].running_mean is bn.running_mean
    single = et.nn.SyncBatchNorm.convert_sync_batchnorm(et.nn.BatchNorm1d(3).eval())
    assert type(single) is et.nn.SyncBatchNorm and not single.training
    plain = ember.nn.SyncBatchNorm.convert_sync_batchnorm(
        ember.nn.Sequential(ember.nn.BatchNorm1d(3), ember.nn.ReLU()))
    assert type(plain[0]) is ember.nn.SyncBatchNorm and type(plain[1]) is ember.nn.ReLU


def test_bad_arguments_raise_typed_errors():
    with pytest.raises(ember.errors.ShapeMismatchError, match="at least 2D"):
        et.nn.SyncBatchNorm(3)(et.ones(3))
    with pytest.raises(ValueError):  # PyTorch raises ValueError too
        torch.nn.SyncBatchNorm(3)(torch.ones(3))
    with pytest.raises(ember.errors.InvalidParameterError, match="process_group"):
        et.nn.SyncBatchNorm(3, process_group="world")
