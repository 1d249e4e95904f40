"""ember.distributed in this process: a process group of one rank (127.0.0.1), the argument
checks and typed errors, set_distributed/is_distributed, ParamId, DistributedSampler against
PyTorch's, and that ``import ember`` does not import torch."""

import doctest
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.utils.data

import ember
import ember.distributed as dist
from ember import nn
from ember.autodiff import engine
from ember.distributed import ParamId
from oracle import assert_close, assert_unchanged, has_views, snapshot, to_torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def group():
    dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0", timeout=20)
    try:
        yield
    finally:
        dist.destroy_process_group()


def test_import_ember_does_not_import_torch():
    code = ("import sys, ember, ember.nn, ember.distributed; "
            "x = ember.ones(2).require_grad().set_distributed(0); "
            "print('torch' in sys.modules, x.is_distributed())")
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("EMBER_DEVICE", None)  # the default device, "cpu": a torch default imports torch
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["False", "True"]


def test_set_distributed_marks_leaves_that_require_grad():
    w = ember.randn(3, 2).require_grad()
    assert not w.is_distributed()
    assert w.set_distributed(ParamId(4)) is w and w.is_distributed()
    assert ember.zeros(2).require_grad().set_distributed(5).is_distributed()
    assert not (w * 2).is_distributed() and not w.detach().is_distributed()
    plain = ember.zeros(2).without_autodiff()  # autodiff disabled: does nothing
    assert plain.set_distributed(1) is plain and not plain.is_distributed()
    with pytest.raises(ember.GraphError, match="set_distributed: the tensor is not a leaf"):
        (w * 2).set_distributed(1)
    with pytest.raises(ember.GraphError, match="require_grad"):
        ember.zeros(2).set_distributed(1)
    for bad in (-1, 1.5, "a", True, None):
        with pytest.raises(ember.InvalidParameterError, match="param_id must be a ParamId"):
            ember.zeros(2).require_grad().set_distributed(bad)


def test_param_id():
    assert ParamId(3) == ParamId(3) and ParamId(3) != ParamId(4) and hash(ParamId(3)) == hash(3)
    assert int(ParamId(3)) == 3 and str(ParamId(3)) == "3" and repr(ParamId(3)) == "ParamId(3)"
    a, b = ParamId(), ParamId()
    assert b.val() == a.val() + 1
    with pytest.raises(ember.InvalidParameterError, match=r"ParamId: value must be an int >= 0"):
        ParamId(-2)


def test_backward_without_a_process_group_is_single_process():
    assert engine.sync_hook is None and not dist.is_initialized()
    w = ember.tensor([1.0, 2.0]).require_grad().set_distributed(0)
    (w * w).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0]


def test_no_process_group_raises_distributed_error():
    for call in (dist.get_rank, dist.get_world_size, dist.barrier,
                 lambda: dist.all_reduce(ember.ones(2)),
                 lambda: nn.parallel.DistributedDataParallel(nn.Linear(1, 1))):
        with pytest.raises(ember.DistributedError, match="no process group is initialized"):
            call()
    dist.destroy_process_group()  # nothing to leave: no error
    assert issubclass(ember.DistributedError, RuntimeError)


def test_init_process_group_checks_its_arguments(monkeypatch):
    for key in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(key, raising=False)
    cases = [
        (dict(backend="nccl"), "backend 'nccl' is not supported"),
        (dict(timeout=0), "timeout must be a number of seconds > 0"),
        (dict(init_method="http://x"), "init_method must be a string starting with"),
        (dict(), "the environment variable RANK is not set"),
        (dict(rank=0), "the environment variable WORLD_SIZE is not set"),
        (dict(rank=2, world_size=2), r"rank is 2; expected an int in \[0, 2\)"),
        (dict(rank=0, world_size=0), "world_size is 0; expected an int >= 1"),
        (dict(rank=0, world_size=1), "the environment variable MASTER_ADDR is not set"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ember.InvalidParameterError, match=message):
            dist.init_process_group(**kwargs)
    monkeypatch.setenv("RANK", "x")
    with pytest.raises(ember.InvalidParameterError, match="RANK='x' is not an int"):
        dist.init_process_group()
    assert not dist.is_initialized()


def test_one_rank_group(group):
    assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
    assert engine.sync_hook is not None
    with pytest.raises(ember.DistributedError, match="already initialized"):
        dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    dist.barrier()


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32"])
def test_collectives_of_one_rank_equal_the_input(group, rng, shape, dtype):
    t = ember.tensor(rng.standard_normal(shape) * 4).cast(dtype)
    before = snapshot(t)
    ops = ("sum", "max", "min", "prod") + (("mean",) if t.kind == "float" else ())
    for op in ops:
        out = dist.all_reduce(t, op=op)
        assert_close(out, to_torch(t), rtol=0, atol=0)
        assert out.dtype == t.dtype and out._data is not t._data
    assert_close(dist.all_reduce_async(t, "sum").wait(), to_torch(t), rtol=0, atol=0)
    assert_close(dist.broadcast(t, 0), to_torch(t), rtol=0, atol=0)
    [g] = dist.all_gather_async(t).wait()
    assert_close(g, to_torch(t), rtol=0, atol=0)
    if shape:
        assert_close(dist.reduce_scatter(t), to_torch(t), rtol=0, atol=0)
    assert_unchanged([t], before)


def test_collectives_on_non_contiguous_views(group, rng):
    base = ember.tensor(rng.standard_normal((4, 6)).astype(np.float32))
    view = base.t()[::2]
    assert view.is_contiguous() is not has_views(view)  # a strided view where views are
    assert_close(dist.all_reduce(view), to_torch(view), rtol=0, atol=0)
    work = dist.broadcast_async(view)
    assert "Work" in repr(work)
    assert_close(work.wait(), to_torch(view), rtol=0, atol=0)
    assert work.is_completed() and work.wait() is work.wait()


def test_collectives_reject_bad_input(group):
    x = ember.ones(2, 2)
    before = snapshot(x)
    cases = [
        (lambda: dist.all_reduce(x, op="avg"), ember.InvalidParameterError, "op 'avg' is unknown"),
        (lambda: dist.all_reduce([1.0]), ember.InvalidParameterError, "tensor must be a Tensor"),
        (lambda: dist.all_reduce(ember.tensor([True])), ember.KindError, "bool tensors"),
        (lambda: dist.all_reduce(ember.tensor([1]), op="mean"), ember.KindError,
         "op 'mean' is not defined for int tensors"),
        (lambda: dist.broadcast(x, src=1), ember.InvalidParameterError,
         r"src is 1; expected a rank in \[0, 1\)"),
        (lambda: dist.reduce_scatter(ember.tensor(1.0)), ember.ShapeMismatchError,
         "reduce_scatter: tensor has no dim 0"),
        (lambda: dist.reduce_scatter_async(x, "max").wait().shape, None, None),
    ]
    for call, error, message in cases:
        if error is None:
            assert call() == (2, 2)
            continue
        with pytest.raises(error, match=message):
            call()
    assert_unchanged([x], before)


def test_one_rank_backward_and_ddp(group, rng):
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1e-5)
    assert all(p.is_distributed() for p in model.parameters())
    assert [n for n, _ in ddp.named_parameters()][0] == "module.0.weight"
    x = ember.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    ref = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    ref.load_state_dict(model.state_dict())
    grads = ddp(x).sum().backward()
    ref(x).sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert_close(p.grad, to_torch(q.grad), rtol=0, atol=0)
        assert grads.get(p) is p.grad
    stats = dist.sync_stats
    assert stats["buckets"] == 6 and 0 <= stats["check"] <= stats["last_ready"] <= stats["end"]
    with ddp.no_sync():
        ddp(x).sum().backward()  # accumulates locally
    ref(x).sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert_close(p.grad, to_torch(q.grad), rtol=0, atol=0)
    for bad, message in [(dict(bucket_cap_mb=0), "bucket_cap_mb is 0"),
                         (dict(broadcast_buffers=1), "broadcast_buffers must be a bool")]:
        with pytest.raises(ember.InvalidParameterError, match=message):
            nn.parallel.DistributedDataParallel(model, **bad)
    with pytest.raises(ember.InvalidParameterError, match="module must be an ember.nn.Module"):
        nn.parallel.DistributedDataParallel(lambda x: x)


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (4, 4, False),
                                                  (2, 3, False), (0, 2, False)])
def test_sampler_without_shuffle_matches_torch(n, replicas, drop_last):
    for rank in range(replicas):
        ours = dist.DistributedSampler(list(range(n)), num_replicas=replicas, rank=rank,
                                       shuffle=False, drop_last=drop_last)
        theirs = torch.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=rank,
                                                     shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_sampler_shuffles_per_epoch_the_same_on_every_rank():
    def shares(epoch):
        out = []
        for rank in range(3):
            s = dist.DistributedSampler(20, num_replicas=3, rank=rank, seed=5)
            s.set_epoch(epoch)
            out.append(s.indices().tolist())
        return out

    e0, e1 = shares(0), shares(1)
    assert e0 == shares(0) and e0 != e1
    for shares_ in (e0, e1):
        flat = sum(shares_, [])
        assert len(flat) == 21 and set(flat) == set(range(20))
    assert dist.DistributedSampler(5).num_replicas == 1  # no group: one rank


@pytest.mark.parametrize("kwargs,message", [
    (dict(dataset=object()), "dataset must have a len"),
    (dict(dataset=4, num_replicas=0), "num_replicas is 0"),
    (dict(dataset=4, num_replicas=2, rank=2), r"rank is 2; expected an int in \[0, 2\)"),
    (dict(dataset=4, seed=-1), "seed is -1"),
    (dict(dataset=4, shuffle=1), "shuffle must be a bool"),
])
def test_sampler_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ember.InvalidParameterError, match=message):
        dist.DistributedSampler(**kwargs)
    with pytest.raises(ember.InvalidParameterError, match="epoch is -1"):
        dist.DistributedSampler(4).set_epoch(-1)


def test_doctests_of_the_distributed_modules():
    import ember.distributed.collectives as c
    import ember.distributed.group as g
    import ember.distributed.params as p
    import ember.distributed.sampler as s
    import ember.nn.parallel as par
    for module in (dist, c, g, p, s, par):
        result = doctest.testmod(module)
        assert result.failed == 0, module.__name__
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for test in finder.find(ember.Tensor.set_distributed, "set_distributed"):
        assert runner.run(test).failed == 0
    assert runner.summarize(verbose=False).attempted >= 2


def test_docs_distributed_md_examples_run():
    path = os.path.join(ROOT, "docs", "distributed.md")
    result = doctest.testfile(path, module_relative=False)
    assert result.attempted >= 15 and result.failed == 0


def _has(device, dtype):
    try:
        ember.Device(device).backend.native_dtype(ember.dtypes.as_dtype(dtype))
    except ember.KindError:
        return False
    return True


@pytest.mark.parametrize("device", [str(d) for d in ember.devices()])
def test_collectives_keep_the_device(group, device):
    x = np.arange(6.0).reshape(3, 2)
    for dtype in ("float32", "bfloat16", "int64"):
        if not _has(device, dtype):  # array-api-strict and Dask have no bfloat16
            continue
        t = ember.tensor(x, device=device).cast(dtype)
        outs = [dist.all_reduce(t), dist.broadcast(t), dist.all_gather(t)[0],
                dist.reduce_scatter(t), dist.all_reduce_async(t, "max").wait()]
        if dtype != "int64":
            outs.append(dist.all_reduce(t, "mean"))
        for out in outs:
            assert out.device == device and out.dtype.name == dtype
            assert out.tolist() == t.tolist()
        assert t.tolist() == ember.tensor(x, device=device).cast(dtype).tolist()  # unchanged
    s = dist.DistributedSampler(10, seed=1, device=device)
    assert s.indices().device == device
    assert list(s) == list(dist.DistributedSampler(10, seed=1, device="cpu"))
