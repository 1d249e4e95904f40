"""The programs that the distributed tests start on 2 ranks (127.0.0.1, gloo); each writes what
it saw into OUT/rank<R>.npz for the test process to check against PyTorch."""

import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import ember  # noqa: E402
import ember.distributed as dist  # noqa: E402
from ember import nn, optim  # noqa: E402
from ember.nn import functional as F  # noqa: E402


def data(seed, shape, dtype="float32"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def mlp(dtype):
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3)).to(dtype=dtype)


def train_mlp(model, x, y, steps, lr=0.1):
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()


def collectives(rank, world, out):
    """Every collective, sync and async, on float/int tensors of several shapes."""
    shapes = [(), (3,), (2, 3), (0, 2), (4, 2)]
    for i, shape in enumerate(shapes):
        a = data(100 * rank + i, shape)
        t = ember.tensor(a)
        for op in ("sum", "mean", "max", "min", "prod"):
            out[f"ar_{op}_{i}"] = dist.all_reduce(t, op=op).numpy()
        out[f"ar_async_{i}"] = dist.all_reduce_async(t, "sum").wait().numpy()
        out[f"bc_{i}"] = dist.broadcast(t, src=1).numpy()
        out[f"bc_async_{i}"] = dist.broadcast_async(t, src=0).wait().numpy()
        out[f"ag_{i}"] = np.stack([g.numpy() for g in dist.all_gather(t)])
        out[f"in_{i}"] = a
        out[f"unchanged_{i}"] = np.array(np.array_equal(t.numpy(), a))
    nc = ember.tensor(data(7 + rank, (4, 6))).t()  # non-contiguous
    out["nc_in"] = nc.numpy()
    out["nc_sum"] = dist.all_reduce(nc).numpy()
    ints = ember.tensor(np.arange(6, dtype=np.int64).reshape(3, 2) * (rank + 2))
    out["int_sum"] = dist.all_reduce(ints).numpy()
    out["int_max"] = dist.all_reduce_async(ints, "max").wait().numpy()
    rs_in = ember.tensor(data(50 + rank, (4, 3)))
    out["rs_in"] = rs_in.numpy()
    out["rs_sum"] = dist.reduce_scatter(rs_in).numpy()
    out["rs_mean"] = dist.reduce_scatter_async(rs_in, "mean").wait().numpy()
    out["ag_async"] = np.stack([g.numpy() for g in dist.all_gather_async(rs_in).wait()])


def _device_has(name):
    """Whether the default device has the dtype ``name``."""
    try:
        ember.zeros(0).device.backend.native_dtype(ember.dtypes.as_dtype(name))
    except ember.KindError:
        return False
    return True


MOVED_DTYPES = ("int16", "uint16", "uint32", "uint64", "bool", "bfloat16", "int8")


def moved(rank, world, out):
    """broadcast and all_gather of the dtypes gloo cannot reduce (moved as bytes), and DDP's
    copy of rank 0's int16 buffer."""
    for dt in MOVED_DTYPES:
        if not _device_has(dt):  # the default device lacks it (array-api-strict: bfloat16)
            continue
        t = ember.tensor([[rank + 1, 0], [2 * rank + 3, 1]]).cast(dt)
        out[f"moved_bc_{dt}"] = dist.broadcast(t, src=1).cast("float64").numpy()
        out[f"moved_bc0_{dt}"] = dist.broadcast_async(t[0, 0], src=0).wait().cast(
            "float64").numpy()
        out[f"moved_ag_{dt}"] = np.stack([g.cast("float64").numpy()
                                          for g in dist.all_gather(t)])
        out[f"moved_dtype_{dt}"] = np.array(dist.broadcast(t).dtype.name)
    model = nn.Linear(2, 1)
    model.register_buffer("count", ember.tensor([rank + 7, -300 * rank]).cast("int16"))
    nn.parallel.DistributedDataParallel(model)(ember.ones(1, 2))
    out["moved_ddp_buffer"] = model.count.cast("int64").numpy()


def training(rank, world, out):
    """DDP on an MLP: rank r gets half of every global batch; also single-process references
    computed on every rank with the full batch (no process group involved)."""
    for dtype in ("float32", "float64"):
        x = data(1, (8, 6), dtype)
        y = data(2, (8, 3), dtype)
        ember.manual_seed(rank)  # different initial weights: DDP must copy rank 0's
        model = mlp(dtype)
        # float64 with tiny buckets: one all-reduce per parameter, overlapped with backward
        cap = 25 if dtype == "float32" else 1e-4
        ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap)
        half = slice(4 * rank, 4 * rank + 4)
        opt = optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
        for _ in range(5):
            opt.zero_grad()
            F.mse_loss(ddp(ember.tensor(x[half])), ember.tensor(y[half])).backward()
            opt.step()
        out[f"ddp_{dtype}"] = np.concatenate([p.numpy().ravel() for p in model.parameters()])
        ember.manual_seed(0)
        ref = mlp(dtype)
        train_mlp(ref, ember.tensor(x), ember.tensor(y), 5)
        out[f"single_{dtype}"] = np.concatenate([p.numpy().ravel() for p in ref.parameters()])
        out[f"buckets_{dtype}"] = np.array(dist.sync_stats["buckets"])
        out[f"distributed_flags_{dtype}"] = np.array([p.is_distributed()
                                                      for p in model.parameters()])
    # an elementwise model on one sample per rank: the only sum over ranks is the batch's own
    # sum of two terms, so the result is bit for bit the single-process one
    x, y = data(5, (2, 5), "float64"), data(6, (2, 5), "float64")
    for ranks in (2, 1):
        w = ember.tensor(data(8, (5,), "float64")).require_grad()
        if ranks == 2:
            w.set_distributed(dist.ParamId(0))
            xs, ys = ember.tensor(x[rank:rank + 1]), ember.tensor(y[rank:rank + 1])
        else:
            xs, ys = ember.tensor(x), ember.tensor(y)
        opt = optim.SGD([w], lr=0.1)
        for _ in range(4):
            opt.zero_grad()
            ((xs * w - ys) ** 2).mean().backward()
            opt.step()
        out[f"elementwise_{ranks}"] = w.numpy()
    # no_sync: two local micro-batches accumulated, the second synchronised
    x, y = data(3, (8, 6)), data(4, (8, 3))
    ember.manual_seed(0)
    model = mlp("float32")
    ddp = nn.parallel.DistributedDataParallel(model)
    quarter = [slice(2 * rank, 2 * rank + 2), slice(4 + 2 * rank, 6 + 2 * rank)]
    with ddp.no_sync():
        F.mse_loss(ddp(ember.tensor(x[quarter[0]])), ember.tensor(y[quarter[0]])).backward()
    out["no_sync_local"] = model[0].weight.grad.numpy().copy()
    F.mse_loss(ddp(ember.tensor(x[quarter[1]])), ember.tensor(y[quarter[1]])).backward()
    out["no_sync_grad"] = model[0].weight.grad.numpy()
    ember.manual_seed(0)
    ref = mlp("float32")
    for q in range(2):
        rows = [r for k in range(2) for r in range(2 * k + 4 * q, 2 * k + 4 * q + 2)]
        F.mse_loss(ref(ember.tensor(x[rows])), ember.tensor(y[rows])).backward()
    out["no_sync_ref"] = ref[0].weight.grad.numpy()
    # sampler
    sampler = dist.DistributedSampler(11, seed=3)
    sampler.set_epoch(2)
    out["sampler"] = sampler.indices().numpy()
    out["stats"] = np.array([dist.sync_stats["check"], dist.sync_stats["end"]])


def incompatible(rank, world, out):
    """A model that differs on rank 1: DDP and distributed backward both raise, on both ranks."""
    width = 5 if rank == 0 else 6
    model = nn.Linear(4, width)
    try:
        nn.parallel.DistributedDataParallel(model)
        out["ddp_error"] = np.array("none")
    except ember.ShapeMismatchError as exc:
        out["ddp_error"] = np.array(str(exc))
    w = ember.ones(3, width).require_grad().set_distributed(dist.ParamId(0))
    try:
        ember.ones(2, 3).matmul(w).sum().backward()
        out["backward_error"] = np.array("none")
    except ember.GraphError as exc:
        out["backward_error"] = np.array(str(exc))
    out["grad_after_error"] = np.array(w.grad is None)
    # the group still works afterwards
    out["after"] = dist.all_reduce(ember.tensor([1.0])).numpy()


def killed(rank, world, out):
    """Rank 1 dies after joining; rank 0's distributed backward must raise DistributedError."""
    model = nn.Linear(4, 2)
    ddp = nn.parallel.DistributedDataParallel(model)
    if rank == 1:
        np.savez(os.path.join(out.pop("_dir"), "rank1.npz"), **out)
        os._exit(3)
    time.sleep(0.5)
    start = time.perf_counter()
    try:
        for _ in range(3):
            ddp(ember.ones(2, 4)).sum().backward()
        out["error"] = np.array("none")
    except ember.DistributedError as exc:
        out["error"] = np.array(type(exc).__name__ + ": " + str(exc))
    out["seconds"] = np.array(time.perf_counter() - start)


def main():
    name, outdir = sys.argv[1], sys.argv[2]
    dist.init_process_group(timeout=float(os.environ.get("EMBER_TEST_TIMEOUT", "30")))
    rank, world = dist.get_rank(), dist.get_world_size()
    out = {"_dir": outdir}
    for part in name.split(","):  # "killed" comes last: rank 1 saves what it has and dies
        globals()[part](rank, world, out)
    out.pop("_dir", None)
    np.savez(os.path.join(outdir, f"rank{rank}.npz"), **out)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
