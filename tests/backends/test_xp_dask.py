"""The Dask device on a memory-limited local cluster: a reduction and a matrix product over an
array more than twice the memory its workers may use complete with the right values (Dask
computes chunk by chunk, spilling to disk past its limits)."""

import pytest

import ember

pytest.importorskip("dask.distributed")

ROWS, COLS = 1_100_000, 256  # 2.25 GB of float64
WORKERS, LIMIT = 2, 512 * 2 ** 20  # two workers of 512 MiB: 1 GiB in all


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    import dask
    from dask.distributed import Client, LocalCluster
    with dask.config.set({"array.chunk-size": "16MiB"}):
        local = LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                             memory_limit=LIMIT, host="127.0.0.1", dashboard_address=None,
                             local_directory=str(tmp_path_factory.mktemp("dask")))
        client = Client(local, timeout=60)
        try:
            yield client
        finally:
            client.close()
            local.close(timeout=30)


@pytest.mark.once
def test_sum_and_gram_of_an_array_twice_the_workers_memory(cluster):
    assert ROWS * COLS * 8 > 2 * WORKERS * LIMIT
    x = ember.ones(ROWS, COLS, dtype=ember.float64, device="xp:dask")
    x = x * ember.arange(COLS, dtype=ember.float64, device="xp:dask")  # x[i, j] == j
    assert x.device == ember.Device("xp:dask")
    assert x.sum().item() == ROWS * COLS * (COLS - 1) / 2
    gram = x.T @ x  # gram[i, j] == ROWS * i * j
    assert gram.shape == (COLS, COLS)
    assert gram[3, 5].item() == ROWS * 15.0
    assert gram[COLS - 1, 2].item() == ROWS * 2.0 * (COLS - 1)
