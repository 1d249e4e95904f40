"""ember.distributed on 2 real processes (gloo, 127.0.0.1): the collectives against PyTorch,
DistributedDataParallel training against single-process training, no_sync accumulation, the
compatibility checks, and a rank that dies. One run of tests/distributed/workers.py serves
every test here (starting processes is the slow part)."""

import numpy as np
import pytest
import torch

from dist_harness import run_ranks

TIMEOUT = 30  # the process group's timeout in the workers


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("two_ranks")
    import os
    os.environ["EMBER_TEST_TIMEOUT"] = str(TIMEOUT)
    try:
        results = run_ranks("collectives,training,incompatible,killed", out)
    finally:
        del os.environ["EMBER_TEST_TIMEOUT"]
    assert results[0][0] == 0, results[0][1]
    assert results[1][0] == 3, results[1][1]  # rank 1 ends itself in "killed"
    return [dict(np.load(out / f"rank{r}.npz")) for r in range(2)]


def T(a):
    return torch.from_numpy(np.asarray(a))


@pytest.mark.parametrize("i", range(5))
def test_all_reduce_broadcast_all_gather_match_torch(ranks, i):
    a, b = ranks
    both = torch.stack([T(a[f"in_{i}"]), T(b[f"in_{i}"])])
    expected = {"sum": both.sum(0), "mean": both.mean(0), "max": both.amax(0),
                "min": both.amin(0), "prod": both.prod(0)}
    for r in (a, b):
        for op, want in expected.items():
            got = T(r[f"ar_{op}_{i}"])
            assert got.dtype == torch.float32 and got.shape == want.shape
            torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)
        assert torch.equal(T(r[f"ar_async_{i}"]), T(a[f"ar_sum_{i}"]))
        assert torch.equal(T(r[f"bc_{i}"]), T(b[f"in_{i}"]))  # src=1
        assert torch.equal(T(r[f"bc_async_{i}"]), T(a[f"in_{i}"]))
        assert torch.equal(T(r[f"ag_{i}"]), both)
        assert bool(r[f"unchanged_{i}"])
    for op in expected:  # every rank gets the same bits
        assert np.array_equal(a[f"ar_{op}_{i}"], b[f"ar_{op}_{i}"])


def test_collectives_on_non_contiguous_int_and_reduce_scatter(ranks):
    a, b = ranks
    torch.testing.assert_close(T(a["nc_sum"]), T(a["nc_in"]) + T(b["nc_in"]))
    assert a["int_sum"].dtype == np.int64
    assert np.array_equal(a["int_sum"], np.arange(6).reshape(3, 2) * 5)
    assert np.array_equal(b["int_max"], np.arange(6).reshape(3, 2) * 3)
    total = T(a["rs_in"]) + T(b["rs_in"])
    torch.testing.assert_close(T(a["rs_sum"]), total[:2])
    torch.testing.assert_close(T(b["rs_sum"]), total[2:])
    torch.testing.assert_close(T(b["rs_mean"]), total[2:] / 2)
    assert np.array_equal(a["ag_async"], np.stack([a["rs_in"], b["rs_in"]]))


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-6), ("float64", 1e-12)])
def test_ddp_ranks_bit_identical_and_equal_to_single_process(ranks, dtype, tol):
    a, b = ranks
    assert np.array_equal(a[f"ddp_{dtype}"], b[f"ddp_{dtype}"])  # bit for bit across ranks
    assert a[f"ddp_{dtype}"].dtype == np.dtype(dtype)
    np.testing.assert_allclose(a[f"ddp_{dtype}"], a[f"single_{dtype}"], rtol=0, atol=tol)
    assert a[f"distributed_flags_{dtype}"].all()
    assert int(a["buckets_float32"]) == 1 and int(a["buckets_float64"]) == 4  # 25 MB vs tiny


def test_bit_for_bit_single_process_when_the_reduction_order_allows(ranks):
    a, b = ranks
    assert np.array_equal(a["elementwise_2"], a["elementwise_1"])
    assert np.array_equal(b["elementwise_2"], a["elementwise_1"])


def test_no_sync_accumulates_locally_then_averages(ranks):
    a, b = ranks
    assert not np.allclose(a["no_sync_local"], b["no_sync_local"])  # not synchronised
    assert np.array_equal(a["no_sync_grad"], b["no_sync_grad"])
    np.testing.assert_allclose(a["no_sync_grad"], a["no_sync_ref"], rtol=1e-5, atol=1e-6)


def test_distributed_sampler_shards_are_disjoint_and_cover(ranks):
    a, b = ranks
    both = np.concatenate([a["sampler"], b["sampler"]])
    assert len(a["sampler"]) == len(b["sampler"]) == 6
    assert sorted(set(both.tolist())) == list(range(11))  # 12 slots: one index padded twice


def test_a_model_that_differs_is_detected_on_every_rank(ranks):
    for r in ranks:
        msg = str(r["ddp_error"])
        assert "rank 1's model differs from rank 0's" in msg
        assert "(6, 4)" in msg and "(5, 4)" in msg
        msg = str(r["backward_error"])
        assert msg.startswith("backward: the ranks' graphs are incompatible")
        assert "(3, 6)" in msg and "(3, 5)" in msg
        assert bool(r["grad_after_error"])  # raised before any gradient was set
        assert r["after"].tolist() == [2.0]  # the group still works


def test_a_killed_rank_gives_a_typed_error_not_a_hang(ranks):
    a, _ = ranks
    msg = str(a["error"])
    assert msg.startswith("DistributedError: backward: the collective failed"), msg
    assert float(a["seconds"]) < TIMEOUT + 10
