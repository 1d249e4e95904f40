"""The collectives refuse complex tensors (docs/complex.md: distributed takes real tensors only)
before any communication, in a one-process group."""

import numpy as np
import pytest

import ember
import ember.distributed as dist
from oracle import assert_unchanged, snapshot

CALLS = {
    "all_reduce": lambda z: dist.all_reduce(z),
    "all_reduce_mean": lambda z: dist.all_reduce(z, op="mean"),
    "broadcast": lambda z: dist.broadcast(z, 0),
    "all_gather": lambda z: dist.all_gather(z),
    "reduce_scatter": lambda z: dist.reduce_scatter(z),
}


@pytest.fixture(scope="module")
def one_rank():
    dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    yield
    dist.destroy_process_group()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_complex_refused(one_rank, name, dtype):
    z = ember.from_numpy(np.array([1 + 2j, -3j], dtype=dtype))
    before = snapshot(z)
    op = name.replace("_mean", "")
    with pytest.raises(ember.KindError, match=rf"{op}.*complex.*\(tensor has dtype"):
        CALLS[name](z)
    assert_unchanged([z], before)


def test_real_tensors_still_reduce(one_rank):
    assert dist.all_reduce(ember.tensor([1.0, 2.0]), op="mean").tolist() == [1.0, 2.0]
