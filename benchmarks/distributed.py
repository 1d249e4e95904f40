"""The overhead of data-parallel training with ember.distributed on this machine.

    python benchmarks/distributed.py [--steps N] [--out FILE.json]

For the digits CNN (batch 32) and an MLP (784-1024-1024-10, batch 64), it times a training
step (forward, backward, Adam) on 1 rank with the full batch and on 2 ranks (127.0.0.1, gloo)
with half the batch each, and from ember.distributed.sync_stats the share of the step spent on
gradient synchronisation (the compatibility check plus waiting for the all-reduces), the time
from the last gradient to the end of backward, and the all-reduce time of one bucket alone.
The MLP runs with 4 MB buckets so that all-reduces overlap backward. Median of N steps after
warm-up; the BLAS runs on one thread. A machine with 2 cores cannot show a speed-up: 2 ranks
share them; the figures are the overhead.
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import ember  # noqa: E402
import ember.distributed as dist  # noqa: E402
from ember import nn, optim  # noqa: E402
from ember.nn import functional as F  # noqa: E402
from ember.train import build_model  # noqa: E402

MODELS = {
    "digits_cnn": (build_model, (1, 8, 8), 32, 25),
    "mlp": (lambda: nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024),
                                  nn.ReLU(), nn.Linear(1024, 10)), (784,), 64, 4),
}


def measure(name, steps, rank, world):
    make, shape, batch, cap = MODELS[name]
    ember.manual_seed(0)
    model = net = make()
    if world > 1:
        net = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap)
    opt = optim.Adam(model.parameters(), lr=1e-3)
    local = batch // world
    x = ember.randn(local, *shape)
    y = ember.randint(0, 10, (local,))
    times, sync, tail, check = [], [], [], []
    for i in range(steps + 3):
        if world > 1:
            dist.barrier()
        start = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        elapsed = time.perf_counter() - start
        if i >= 3:
            times.append(elapsed)
            if world > 1:
                s = dist.sync_stats
                sync.append(s["check"] + s["wait"])
                check.append(s["check"])
                tail.append(s["end"] - s["last_ready"])
    out = {"step_ms": 1e3 * statistics.median(times)}
    if world > 1:
        out["sync_ms"] = 1e3 * statistics.median(sync)
        out["check_ms"] = 1e3 * statistics.median(check)
        out["sync_share"] = statistics.median(sync) / statistics.median(times)
        out["last_gradient_to_end_ms"] = 1e3 * statistics.median(tail)
        out["buckets"] = dist.sync_stats["buckets"]
        n = min(cap * 1024 * 1024 // 4, model.num_params())
        buf = ember.zeros(n)
        bucket = []
        for _ in range(steps):
            dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(buf)
            bucket.append(time.perf_counter() - start)
        out["one_bucket_all_reduce_ms"] = 1e3 * statistics.median(bucket)
        out["bucket_floats"] = n
    return out


def rank_main(steps, path):
    from threadpoolctl import threadpool_limits
    dist.init_process_group(timeout=120)
    rank, world = dist.get_rank(), dist.get_world_size()
    with threadpool_limits(limits=1, user_api="blas"):
        results = {name: measure(name, steps, rank, world) for name in MODELS}
    if rank == 0:
        with open(path, "w") as f:
            json.dump(results, f)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if "RANK" in os.environ:
        return rank_main(args.steps, os.environ["EMBER_BENCH_OUT"])
    import tempfile
    from ember.distributed.launch import launch
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        for world in (1, 2):
            path = os.path.join(tmp, f"world{world}.json")
            env = dict(os.environ, EMBER_BENCH_OUT=path,
                       PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
            code = launch([sys.executable, os.path.abspath(__file__), "--steps",
                           str(args.steps)], world, env=env, timeout=1200)
            if code:
                sys.exit(f"distributed benchmark: world size {world} failed with code {code}")
            with open(path) as f:
                report[f"world{world}"] = json.load(f)
    for name in MODELS:
        one, two = report["world1"][name], report["world2"][name]
        two["overhead_vs_one_rank"] = two["step_ms"] / one["step_ms"]
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
