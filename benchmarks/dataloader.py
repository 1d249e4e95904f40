"""Throughput of ember.torch's DataLoader against PyTorch's on a CPU-bound dataset.

    python benchmarks/dataloader.py [--batches N] [--batch-size B] [--repeats R] [--work W]

The dataset's ``__getitem__`` does NumPy work (W rounds of a 64x64 FFT filter of a random
image, about a millisecond per sample at the default W) and returns a float32 (3, 32, 32)
image, an int label and a float weight; both loaders use their default collate function.
For each loader and num_workers in (0, 2) it times an epoch of N batches of B samples
(shuffled), worker start-up included, and prints the best of R epochs as batches per second,
with the ratio ember / torch; the two loaders' epochs alternate, so that a change of the
machine's load hits both. BLAS and PyTorch run on one thread per process. On a machine whose
cores are busy with other work the figures are noisy: compare the ratios of one run.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.utils.data as td  # noqa: E402

import ember.torch as et  # noqa: E402
import ember.torch.utils.data as ed  # noqa: E402

torch.set_num_threads(1)
et.set_num_threads(1)


class Images:
    """A map-style dataset whose samples cost NumPy work (picklable, so any start method)."""

    def __init__(self, n, work):
        self.n, self.work = n, work

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        img = rng.standard_normal((3, 64, 64))
        for _ in range(self.work):
            spec = np.fft.rfft2(img)
            spec[:, 16:48, :] = 0  # a low-pass filter
            img = np.fft.irfft2(spec, s=img.shape[1:])
            img = np.tanh(img * 1.5)
        return img[:, ::2, ::2].astype(np.float32), int(i % 10), float(img.mean())


def epoch_rate(make_loader, batches):
    start = time.perf_counter()
    count = 0
    for x, y, w in make_loader():
        assert x.shape[1:] == (3, 32, 32)
        count += 1
    assert count == batches
    return count / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=24)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--work", type=int, default=3)
    args = parser.parse_args()
    ds = Images(args.batches * args.batch_size, args.work)
    loaders = {"ember.torch": ed.DataLoader, "torch": td.DataLoader}
    rows = []
    for workers in (0, 2):
        makers = {name: (lambda cls=cls: cls(ds, batch_size=args.batch_size, shuffle=True,
                                             num_workers=workers))
                  for name, cls in loaders.items()}
        rates = dict.fromkeys(loaders, 0.0)
        for make in makers.values():
            epoch_rate(make, args.batches)  # warm-up: imports, first allocations
        for _ in range(args.repeats):  # interleaved, so that a change of load hits both
            for name, make in makers.items():
                rates[name] = max(rates[name], epoch_rate(make, args.batches))
        rows.append((workers, rates))
    print(f"DataLoader throughput: {len(ds)} samples, batch {args.batch_size}, "
          f"work {args.work}, best of {args.repeats} epochs (start-up included), "
          f"{os.cpu_count()} CPUs")
    print()
    print("| num_workers | ember.torch (batches/s) | torch (batches/s) | ember / torch |")
    print("| --- | --- | --- | --- |")
    for workers, rates in rows:
        e, t = rates["ember.torch"], rates["torch"]
        print(f"| {workers} | {e:.1f} | {t:.1f} | {e / t:.2f} |")


if __name__ == "__main__":
    main()
