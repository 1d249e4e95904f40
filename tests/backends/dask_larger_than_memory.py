"""The Dask device on a memory-limited local cluster: a reduction and a matrix product over an
array more than twice the memory its workers may use, in a process of its own (outside pytest,
whose sys.path may hold a directory named like a package). Prints one JSON object (sizes, values,
seconds); tests/backends/test_xp_dask.py runs it in a fresh process and checks the values.

    PYTHONPATH=. python3 tests/backends/dask_larger_than_memory.py [ROWS COLS WORKER_MIB]
"""

import json
import sys
import tempfile
import time


def main(rows=1_100_000, cols=256, worker_mib=512, workers=2):
    import dask
    from dask.distributed import Client, LocalCluster

    import ember
    out = {"rows": rows, "cols": cols, "bytes": rows * cols * 8,
           "worker_bytes": workers * worker_mib * 2 ** 20}
    with tempfile.TemporaryDirectory() as tmp, dask.config.set({"array.chunk-size": "16MiB"}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               memory_limit=f"{worker_mib}MiB", host="127.0.0.1",
                               dashboard_address=None, local_directory=tmp)
        client = Client(cluster, timeout=60)
        try:
            x = ember.ones(rows, cols, dtype=ember.float64, device="xp:dask")
            x = x * ember.arange(cols, dtype=ember.float64, device="xp:dask")  # x[i, j] == j
            start = time.perf_counter()
            out["sum"] = x.sum().item()
            out["sum_s"] = time.perf_counter() - start
            start = time.perf_counter()
            gram = x.T @ x  # gram[i, j] == rows * i * j
            out["gram_shape"] = list(gram.shape)
            out["gram_3_5"] = gram[3, 5].item()
            out["gram_last_2"] = gram[cols - 1, 2].item()
            out["gram_s"] = time.perf_counter() - start
            out["device"] = str(x.device)
        finally:
            client.close()
            cluster.close(timeout=30)
    print(json.dumps(out))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
