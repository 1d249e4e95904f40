"""The main job: train a small CNN on scikit-learn's 8x8 handwritten digits, with ember only.

``python -m ember train`` loads the 1797 digits bundled with scikit-learn (no download), scales
the pixels to [0, 1], splits them 80/20 (stratified, with the fixed seed ``DATA_SEED``, so the
test set never changes), trains ``build_model()`` with Adam and a cosine learning-rate schedule,
shows a progress bar per epoch, and writes ``digits.safetensors`` (the weights, PyTorch's names)
and ``digits.png`` (loss and accuracy per epoch). ``--device`` picks where it computes
(``"cpu"``, the NumPy backend, by default; ``"torch:cpu"``, ``"cuda"`` ...): the data and the
model (``Module.to_device``) go there, and the weights are written from it. ``python -m ember predict FILE`` rebuilds the
model, loads the weights and prints their accuracy on the same test set.

The extras it needs (scikit-learn, tqdm, matplotlib, safetensors) are installed by
``python3 dev.py run``.

Started on several ranks (``torchrun --nproc-per-node 2 -m ember train``, or ``python -m ember
train --nproc 2``, which starts the ranks itself), it trains data-parallel: every rank draws the
same shuffled order, takes every ``world_size``-th image of each global batch of
``batch_size`` images, and backward averages the gradients (``ember.distributed``); rank 0
shows the progress and writes the files. See docs/distributed.md.
"""

import contextlib
import os
import sys
import time

import ember
import ember.io
from ember.devices import as_device
from ember import nn, optim
from ember.nn import functional as F

__all__ = ["DATA_SEED", "DEFAULTS", "load_data", "build_model", "evaluate", "train", "predict",
           "plot_history", "MODEL_FILE", "PLOT_FILE"]

DATA_SEED = 0
MODEL_FILE = "digits.safetensors"
PLOT_FILE = "digits.png"
DEFAULTS = {"epochs": 15, "lr": 0.01, "batch_size": 32, "seed": 0}
EXTRAS = "scikit-learn, tqdm, matplotlib and safetensors"


class MissingExtras(ImportError):
    """A training extra is not installed."""


def _require(module):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as exc:
        raise MissingExtras(f"the training job needs {EXTRAS} ({exc}); install them with "
                            "`python3 dev.py run` or `pip install scikit-learn tqdm matplotlib "
                            "safetensors`") from None


def load_data(device=None):
    """``(x_train, y_train, x_test, y_test)``: the digits as float32 images of shape
    ``(N, 1, 8, 8)`` with pixels in [0, 1] and int64 labels; 1437 train, 360 test; on
    ``device`` (None: the default device).

    >>> from ember.train import load_data
    >>> x_train, y_train, x_test, y_test = load_data()
    >>> x_train.shape, x_test.shape, y_test.dtype
    ((1437, 1, 8, 8), (360, 1, 8, 8), ember.int64)
    >>> 0.0 <= x_train.min().item() and x_train.max().item() <= 1.0
    True
    """
    datasets = _require("sklearn.datasets")
    selection = _require("sklearn.model_selection")
    digits = datasets.load_digits()
    x_tr, x_te, y_tr, y_te = selection.train_test_split(
        digits.images, digits.target, test_size=0.2, random_state=DATA_SEED,
        stratify=digits.target)

    device = as_device(device, "load_data")

    def on_device(t):
        return t if t.device is device else ember.tensor(t, device=device)

    def images(a):
        return on_device((ember.from_numpy(a).cast("float32") / 16.0).reshape(-1, 1, 8, 8))

    def labels(a):
        return on_device(ember.from_numpy(a).cast("int64"))

    return images(x_tr), labels(y_tr), images(x_te), labels(y_te)


def build_model():
    """The CNN: two conv-batchnorm-relu-maxpool blocks (16 and 32 channels) and a linear layer
    to the 10 classes; 6186 parameters.

    >>> import ember
    >>> from ember.train import build_model
    >>> model = build_model()
    >>> model.num_params(), model(ember.zeros(4, 1, 8, 8)).shape
    (6186, (4, 10))
    """
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )


def evaluate(model, x, y):
    """``(loss, accuracy)`` of ``model`` on images ``x`` and labels ``y``, in eval mode
    (the model's mode is restored afterwards).

    >>> import ember
    >>> from ember.train import build_model, evaluate
    >>> loss, acc = evaluate(build_model(), ember.zeros(3, 1, 8, 8), ember.tensor([0, 1, 2]))
    >>> loss > 0, 0.0 <= acc <= 1.0
    (True, True)
    """
    was_training = model.training
    model.eval()
    try:
        with ember.no_grad():
            logits = model(x)
            loss = F.cross_entropy(logits, y).item()
            correct = (logits.argmax(1).reshape(-1) == y).sum().item()
    finally:
        model.train(was_training)
    return loss, correct / y.shape[0]


@contextlib.contextmanager
def _one_blas_thread():
    """Run NumPy's BLAS on one thread: this model's matrices are tiny, and threads only add
    overhead (many times the work on a busy machine). A no-op without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn brings threadpoolctl
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _process_group():
    """``(rank, world_size, started)``: this process's place in a distributed run. A process
    launched by torchrun (``WORLD_SIZE`` > 1 in the environment) joins the process group,
    ``started`` then says the caller must leave it; a plain process is rank 0 of 1."""
    if int(os.environ.get("WORLD_SIZE", "1") or "1") <= 1:
        return 0, 1, False
    import ember.distributed as dist
    started = not dist.is_initialized()
    if started:
        dist.init_process_group()
    return dist.get_rank(), dist.get_world_size(), started


def train(epochs=DEFAULTS["epochs"], lr=DEFAULTS["lr"], batch_size=DEFAULTS["batch_size"],
          seed=DEFAULTS["seed"], out=".", progress=True, log=None, device=None):
    """Train the digits CNN and write ``digits.safetensors`` and ``digits.png`` into ``out``.

    Returns a dict: ``history`` (per-epoch ``train_loss``, ``train_acc``, ``test_loss``,
    ``test_acc`` lists), ``test_accuracy``, ``model_path``, ``plot_path``, ``seconds``.
    ``progress`` shows a tqdm bar per epoch on stderr; ``log`` (a file, default stdout) gets
    the summary lines. ``device`` (a device name or Device; None: the default device) is where
    the data and the model live. Launched on several ranks, it trains data-parallel with the
    same global ``batch_size``; only rank 0 prints and writes files.

    >>> import io, os, tempfile
    >>> from ember.train import train
    >>> out = tempfile.mkdtemp()
    >>> result = train(epochs=1, out=out, progress=False, log=io.StringIO())
    >>> sorted(os.listdir(out)), result["test_accuracy"] > 0.8
    (['digits.png', 'digits.safetensors'], True)
    """
    device = as_device(device, "train")
    tqdm = _require("tqdm").tqdm
    _require("matplotlib")
    _require("safetensors")
    rank, world, started = _process_group()
    try:
        return _train(epochs, lr, batch_size, seed, out, progress, log, tqdm, rank, world,
                      device)
    finally:
        if started:
            import ember.distributed as dist
            dist.destroy_process_group()


def _train(epochs, lr, batch_size, seed, out, progress, log, tqdm, rank, world, device):
    log = sys.stdout if log is None else log
    if rank == 0:
        os.makedirs(out, exist_ok=True)
        if not os.access(out, os.W_OK):
            raise PermissionError(f"cannot write into the output folder {out!r}")
    if batch_size < world:
        raise ember.InvalidParameterError(
            f"train: batch_size is {batch_size}; expected at least one image per rank (>= "
            f"{world})", "batch_size", batch_size)
    start = time.perf_counter()
    x_train, y_train, x_test, y_test = load_data(device)
    ember.manual_seed(seed)
    model = net = build_model().to_device(device)
    if world > 1:
        net = nn.parallel.DistributedDataParallel(model)
    optimizer = optim.Adam(model.parameters(), lr=lr)
    schedule = optim.CosineAnnealingLR(optimizer, T_max=epochs)
    n = x_train.shape[0]
    batches = (n + batch_size - 1) // batch_size
    history = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}
    with _one_blas_thread():
        for epoch in range(1, epochs + 1):
            model.train()
            order = ember.rand(n, device=device).argsort()
            seen = total_loss = correct = 0
            bar = tqdm(total=batches, desc=f"epoch {epoch:>{len(str(epochs))}}/{epochs}",
                       unit="batch", file=sys.stderr, disable=not progress or rank != 0,
                       leave=True, dynamic_ncols=True)
            for start_row in range(0, n, batch_size):
                idx = order[start_row:start_row + batch_size]
                if world > 1:  # this rank's share of the global batch
                    if idx.shape[0] < world:
                        continue
                    scale = idx[rank::world].shape[0] * world / idx.shape[0]
                    idx = idx[rank::world]
                xb, yb = x_train.select(0, idx), y_train.select(0, idx)
                logits = net(xb)
                loss = F.cross_entropy(logits, yb)
                optimizer.zero_grad()
                # backward averages over ranks: weighting each rank's mean by its share gives
                # the mean over the global batch when the shares differ
                (loss * scale if world > 1 and scale != 1 else loss).backward()
                optimizer.step()
                k = yb.shape[0]
                seen += k
                total_loss += loss.item() * k
                correct += (logits.argmax(1).reshape(-1) == yb).sum().item()
                bar.update(1)
                bar.set_postfix({"loss": f"{total_loss / seen:.4f}",
                                 "acc": f"{correct / seen:.4f}"}, refresh=False)
            schedule.step()
            if world > 1:  # the epoch's figures over every rank's images
                import ember.distributed as dist
                totals = dist.all_reduce(ember.tensor([total_loss, correct, seen],
                                                      dtype="float64"))
                total_loss, correct, seen = totals.tolist()
            test_loss, test_acc = evaluate(model, x_test, y_test)
            history["train_loss"].append(total_loss / seen)
            history["train_acc"].append(correct / seen)
            history["test_loss"].append(test_loss)
            history["test_acc"].append(test_acc)
            bar.set_postfix({"loss": f"{total_loss / seen:.4f}", "acc": f"{correct / seen:.4f}",
                             "test_acc": f"{test_acc:.4f}"}, refresh=False)
            bar.close()
    model_path = os.path.join(out, MODEL_FILE)
    plot_path = os.path.join(out, PLOT_FILE)
    test_accuracy = history["test_acc"][-1]
    metadata = {"model": "ember.train.build_model", "epochs": str(epochs), "lr": repr(lr),
                "batch_size": str(batch_size), "seed": str(seed), "data_seed": str(DATA_SEED),
                "test_accuracy": f"{test_accuracy:.4f}", "device": str(device)}
    if world > 1:
        metadata["world_size"] = str(world)
    if rank == 0:
        ember.io.save_file(model.state_dict(), model_path, metadata=metadata)
        plot_history(history, plot_path)
    seconds = time.perf_counter() - start
    if rank == 0:
        print(f"wrote {model_path} and {plot_path} ({seconds:.1f} s)", file=log)
        print(f"test accuracy: {test_accuracy:.4f}", file=log, flush=True)
    return {"history": history, "test_accuracy": test_accuracy, "model_path": model_path,
            "plot_path": plot_path, "seconds": seconds}


def predict(path, log=None, device=None):
    """Rebuild the model, load the weights in ``path`` and print (to ``log``, default stdout)
    and return their accuracy on the test split, computed on ``device`` (None: the default).

    >>> import io, os, tempfile
    >>> from ember.train import predict, train
    >>> out = tempfile.mkdtemp()
    >>> result = train(epochs=1, out=out, progress=False, log=io.StringIO())
    >>> predict(os.path.join(out, "digits.safetensors")) == result["test_accuracy"]
    test accuracy: ...
    True
    """
    log = sys.stdout if log is None else log
    device = as_device(device, "predict")
    _require("safetensors")
    state = ember.io.load_file(path)
    model = build_model()
    model.load_state_dict(state)
    model.to_device(device)
    _, _, x_test, y_test = load_data(device)
    with _one_blas_thread():
        _, accuracy = evaluate(model, x_test, y_test)
    print(f"test accuracy: {accuracy:.4f}", file=log, flush=True)
    return accuracy


def plot_history(history, path):
    """Draw the per-epoch loss and accuracy curves of ``history`` into the PNG file ``path``.

    >>> import os, tempfile
    >>> from ember.train import plot_history
    >>> path = os.path.join(tempfile.mkdtemp(), "curves.png")
    >>> plot_history({"train_loss": [1.0, 0.5], "test_loss": [1.1, 0.6],
    ...               "train_acc": [0.6, 0.9], "test_acc": [0.5, 0.85]}, path)
    >>> open(path, "rb").read(4)
    b'\x89PNG'
    """
    matplotlib = _require("matplotlib")
    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    epochs = list(range(1, len(history["train_loss"]) + 1))
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    ax_loss, ax_acc = fig.subplots(1, 2)
    ax_loss.plot(epochs, history["train_loss"], "o-", label="train")
    ax_loss.plot(epochs, history["test_loss"], "s-", label="test")
    ax_loss.set(title="cross-entropy loss", xlabel="epoch", ylabel="loss")
    ax_acc.plot(epochs, history["train_acc"], "o-", label="train")
    ax_acc.plot(epochs, history["test_acc"], "s-", label="test")
    ax_acc.set(title="accuracy", xlabel="epoch", ylabel="accuracy")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
        ax.xaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(f"ember: digits CNN, test accuracy {history['test_acc'][-1]:.4f}")
    fig.savefig(path, format="png", dpi=100)
