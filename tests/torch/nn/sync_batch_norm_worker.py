"""One rank of tests/torch/nn/test_torch_sync_batch_norm.py's two-process run: an ember.torch
SyncBatchNorm trained for two steps on this rank's share of a batch; what it saw goes to
OUT/rank<R>.npz."""

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, ROOT)

import ember.distributed as dist  # noqa: E402
import ember.torch as torch  # noqa: E402

SIZES = (3, 2)  # the ranks' batch sizes: the two shares differ


def share(seed, rank, shape):
    """This rank's share (rows) of a batch drawn from ``seed``."""
    full = np.random.default_rng(seed).standard_normal((sum(SIZES),) + shape)
    start = sum(SIZES[:rank])
    return full[start:start + SIZES[rank]]


def main():
    outdir = sys.argv[1]
    dist.init_process_group(timeout=60.0)
    rank = dist.get_rank()
    out = {}
    bn = torch.nn.SyncBatchNorm(3, momentum=0.3).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64))
        bn.bias.copy_(torch.tensor([0.1, 0.2, -0.3], dtype=torch.float64))
    for step in range(2):
        x = torch.tensor(share(10 + step, rank, (3, 4)), requires_grad=True)
        g = torch.tensor(share(20 + step, rank, (3, 4)))
        bn.zero_grad()
        y = bn(x)
        (y * g).sum().backward()
        out[f"y{step}"] = y.detach().numpy()
        out[f"dx{step}"] = x.grad.numpy()
        out[f"dw{step}"] = bn.weight.grad.numpy()
        out[f"db{step}"] = bn.bias.grad.numpy()
    # a Hessian-vector product through the all-reduces: this rank's share of v and of the
    # objective sum((y * y * g)); the weight's direction vw is the same on every rank
    x = torch.tensor(share(40, rank, (3, 4)), requires_grad=True)
    g, v = torch.tensor(share(41, rank, (3, 4))), torch.tensor(share(42, rank, (3, 4)))
    vw = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64)
    y = bn(x)
    gx, gw = torch.autograd.grad((y * y * g).sum(), (x, bn.weight), create_graph=True)
    hx, hw = torch.autograd.grad((gx * v).sum() + (gw * vw).sum(), (x, bn.weight))
    out["hvp_x"], out["hvp_w"] = hx.numpy(), hw.numpy()
    out["running_mean"] = bn.running_mean.numpy()
    out["running_var"] = bn.running_var.numpy()
    out["num_batches_tracked"] = bn.num_batches_tracked.numpy()
    bn.eval()
    x = torch.tensor(share(30, rank, (3, 4)))
    out["eval"] = bn(x).detach().numpy()
    np.savez(os.path.join(outdir, f"rank{rank}.npz"), **out)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
