"""The command line of ember.

    python -m ember train [--epochs N] [--lr LR] [--batch-size B] [--seed S] [--out DIR]
                          [--nproc N] [--device D]
        train a small CNN on scikit-learn's 8x8 digits; writes digits.safetensors and digits.png
        (--nproc N: data-parallel on N local processes; torchrun works too; --device D: where
        it computes, "cpu" (NumPy), "torch:cpu", "cuda", "cuda:N", "mps")
    python -m ember predict FILE [--device D]
        the test accuracy of the weights in FILE (a digits.safetensors from train)
    python -m ember tour
        print the spec's movement examples run on ember
"""

import argparse
import math
import sys


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _int_at_least(low):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected an int >= {low}")
        if value < low:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected an int >= {low}")
        return value
    return parse


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected a number > 0")
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected a number > 0")
    return value


def _seed(text):
    value = _int_at_least(0)(text)
    if value >= 2 ** 64:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected an int in [0, 2**64)")
    return value


def _parser():
    from .train import DEFAULTS
    parser = _Parser(prog="python -m ember", description="ember's command line: the training "
                     "job, prediction from a saved model, and the tour of the spec's examples.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{train,predict,tour}")
    tr = sub.add_parser("train", help="train a small CNN on scikit-learn's 8x8 digits",
                        description="Train a small CNN on scikit-learn's 8x8 digits (80/20 split "
                        "with a fixed seed), show a progress bar per epoch, print the test "
                        "accuracy and write digits.safetensors and digits.png.")
    tr.add_argument("--epochs", type=_int_at_least(1), default=DEFAULTS["epochs"],
                    help="passes over the training set (default %(default)s)")
    tr.add_argument("--lr", type=_positive_float, default=DEFAULTS["lr"],
                    help="Adam's initial learning rate, annealed along a cosine "
                    "(default %(default)s)")
    tr.add_argument("--batch-size", type=_int_at_least(1), default=DEFAULTS["batch_size"],
                    help="images per step (default %(default)s)")
    tr.add_argument("--seed", type=_seed, default=DEFAULTS["seed"],
                    help="seed of the initial weights and the shuffling (default %(default)s)")
    tr.add_argument("--out", default=".", metavar="DIR",
                    help="folder for digits.safetensors and digits.png (default: the current "
                    "folder; created if missing)")
    tr.add_argument("--nproc", type=_int_at_least(1), default=1, metavar="N",
                    help="train data-parallel on N processes of this machine (127.0.0.1, "
                    "torch.distributed with gloo; needs PyTorch) with the same global batch "
                    "(default %(default)s)")
    tr.add_argument("--device", default=None, metavar="D",
                    help="where to compute: 'cpu' (NumPy), 'torch:cpu', 'cuda', 'cuda:N', "
                    "'mps' (default: EMBER_DEVICE, else 'cpu')")
    pr = sub.add_parser("predict", help="test accuracy of a saved digits model",
                        description="Rebuild the digits CNN, load the weights in FILE and print "
                        "their accuracy on the test split.")
    pr.add_argument("file", metavar="FILE", help="a digits.safetensors written by train")
    pr.add_argument("--device", default=None, metavar="D",
                    help="where to compute (as train's --device)")
    sub.add_parser("tour", help="run and print the spec's movement examples")
    return parser


def main(argv=None):
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code.
    Usage errors print one line on stderr and exit with code 2.

    >>> from ember.__main__ import main
    >>> main(["train", "--epochs", "0"])
    Traceback (most recent call last):
    ...
    SystemExit: 2
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "tour":
        from .tour import run
        run()
        return 0
    from .errors import EmberError
    from .train import MissingExtras, predict, train
    prog = f"{parser.prog} {args.command}"
    try:
        if args.command == "train":
            import os
            if os.path.exists(args.out) and not os.path.isdir(args.out):
                parser.exit(2, f"{prog}: error: --out {args.out!r} is a file; expected a "
                            "folder\n")
            if args.nproc > 1:
                return _launch(parser, prog, args, argv)
            train(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, seed=args.seed,
                  out=args.out, device=args.device)
        else:
            predict(args.file, device=args.device)
    except FileNotFoundError as exc:
        name = exc.filename if exc.filename is not None else str(exc)
        print(f"{prog}: error: no such file or folder: {name}", file=sys.stderr)
        return 2
    except (EmberError, OSError, MissingExtras) as exc:
        print(f"{prog}: error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    return 0


def _launch(parser, prog, args, argv):
    """Start ``args.nproc`` ranks of this training command on 127.0.0.1; rank 0 prints."""
    import os
    from .distributed.group import is_available
    from .distributed.launch import launch
    if args.batch_size < args.nproc:
        parser.exit(2, f"{prog}: error: --batch-size {args.batch_size} is smaller than --nproc "
                    f"{args.nproc}; expected at least one image per process\n")
    if "RANK" in os.environ:
        parser.exit(2, f"{prog}: error: --nproc is given inside a distributed run (RANK is "
                    "set); use either torchrun or --nproc\n")
    if not is_available():
        print(f"{prog}: error: --nproc needs PyTorch (torch.distributed); install it with "
              "`pip install 'ember[distributed]'` or run `python3 dev.py run train --nproc N`",
              file=sys.stderr)
        return 2
    argv = list(sys.argv[1:] if argv is None else argv)
    rest, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--nproc":
            skip = True
        elif not a.startswith("--nproc="):
            rest.append(a)
    return launch([sys.executable, "-m", "ember", *rest], args.nproc)


if __name__ == "__main__":
    sys.exit(main())
