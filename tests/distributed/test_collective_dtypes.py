"""The dtypes of ember/distributed/collectives.py: all_reduce and reduce_scatter refuse the
dtypes gloo cannot reduce (int16, uint16, uint32, uint64) with KindError before any
communication; broadcast, all_gather and DistributedDataParallel's copy of rank 0's state move
every real dtype (as bytes), checked on 2 real processes."""

import numpy as np
import pytest

import ember
import ember.distributed as dist
from ember.distributed.collectives import GLOO_REDUCES, REDUCE_OPS
from oracle import assert_unchanged, snapshot

from dist_harness import run_ranks
from workers import MOVED_DTYPES

NOT_REDUCED = ["int16", "uint16", "uint32", "uint64"]
REDUCERS = {
    "all_reduce": lambda t, op: dist.all_reduce(t, op=op),
    "all_reduce_async": lambda t, op: dist.all_reduce_async(t, op).wait(),
    "reduce_scatter": lambda t, op: dist.reduce_scatter(t, op=op),
    "reduce_scatter_async": lambda t, op: dist.reduce_scatter_async(t, op).wait(),
}


@pytest.fixture(scope="module")
def one_rank():
    dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0", timeout=20)
    yield
    dist.destroy_process_group()


@pytest.fixture
def no_communication(monkeypatch):
    """Fails the test if a collective reaches torch.distributed."""
    import torch.distributed as tdist
    reached = []
    for name in ("all_reduce", "reduce_scatter", "broadcast", "all_gather"):
        monkeypatch.setattr(tdist, name, lambda *a, _n=name, **k: reached.append(_n))
    return reached


@pytest.mark.parametrize("op", [o for o in REDUCE_OPS if o != "mean"])
@pytest.mark.parametrize("dtype", NOT_REDUCED)
@pytest.mark.parametrize("call", sorted(REDUCERS))
def test_unreducible_dtype_refused_before_communication(one_rank, no_communication, call,
                                                        dtype, op):
    t = ember.tensor([[1, 2], [3, 4]]).cast(dtype)
    before = snapshot(t)
    name = call.replace("_async", "")
    with pytest.raises(ember.KindError,
                       match=rf"^{name}: gloo cannot reduce {dtype} tensors; expected one of "
                             "float64, float32, float16, bfloat16, int64, int32, int8, uint8"):
        REDUCERS[call](t, op)
    assert no_communication == []
    assert_unchanged([t], before)


@pytest.mark.parametrize("dtype", NOT_REDUCED)
def test_mean_of_ints_refused_first(one_rank, no_communication, dtype):
    with pytest.raises(ember.KindError, match="op 'mean' is not defined for int tensors"):
        dist.all_reduce(ember.tensor([1, 2]).cast(dtype), op="mean")
    assert no_communication == []


@pytest.mark.parametrize("dtype,op", [(d, o) for d in GLOO_REDUCES for o in REDUCE_OPS
                                      if o != "mean" or d.startswith(("float", "bfloat"))])
def test_reducible_dtypes_reduce(one_rank, dtype, op):
    t = ember.tensor([[1, 2], [3, 4]]).cast(dtype)
    for got in (dist.all_reduce(t, op=op), dist.reduce_scatter(t, op=op)):
        assert got.dtype == t.dtype
        assert got.cast("float64").tolist() == [[1.0, 2.0], [3.0, 4.0]]


@pytest.mark.parametrize("dtype", MOVED_DTYPES + ("float64", "uint8"))
def test_moves_take_every_real_dtype_on_one_rank(one_rank, dtype):
    t = ember.tensor([[5, 0], [7, 1]]).cast(dtype)
    for got in (dist.broadcast(t), dist.broadcast_async(t).wait(), dist.all_gather(t)[0],
                dist.broadcast(t[1, 0])):
        assert got.dtype == t.dtype
    assert dist.broadcast(t).tolist() == t.tolist()
    assert [g.tolist() for g in dist.all_gather(t)] == [t.tolist()]
    assert dist.broadcast(t[1, 0]).tolist() == t[1, 0].tolist()


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("moved")
    results = run_ranks("moved", out)
    for code, err in results:
        assert code == 0, err
    return [dict(np.load(out / f"rank{r}.npz")) for r in range(2)]


def _rank_values(dtype, rank):
    return ember.tensor([[rank + 1, 0], [2 * rank + 3, 1]]).cast(dtype).cast("float64").numpy()


@pytest.mark.parametrize("dtype", MOVED_DTYPES)
def test_moves_on_two_ranks(two_ranks, dtype):
    mine = [_rank_values(dtype, r) for r in range(2)]
    for r in two_ranks:
        assert r[f"moved_dtype_{dtype}"] == dtype
        np.testing.assert_array_equal(r[f"moved_bc_{dtype}"], mine[1])
        np.testing.assert_array_equal(r[f"moved_bc0_{dtype}"], mine[0][0, 0])
        np.testing.assert_array_equal(r[f"moved_ag_{dtype}"], np.stack(mine))


def test_ddp_copies_an_int16_buffer(two_ranks):
    for r in two_ranks:
        np.testing.assert_array_equal(r["moved_ddp_buffer"], [7, 0])
