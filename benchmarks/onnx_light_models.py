"""The light models shipped in the onnx package (AlexNet, DenseNet-121, Inception v1/v2,
ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512) on ember's CPU backend against
onnxruntime (one thread each): max difference of the outputs with random weights put into the
initializers (``--weights random``, the default) or with the weights the files ship
(``--weights shipped``, all 0.02: a weak check, outputs often saturate), and the forward-time
ratio.

    python benchmarks/onnx_light_models.py [--models resnet50,squeezenet] [--device cpu]
                                           [--weights random|shipped]
"""

import argparse
import glob
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def randomized(model, rng):
    """``model`` with every float initializer replaced by small random values."""
    from onnx import numpy_helper
    for init in model.graph.initializer:
        arr = numpy_helper.to_array(init)
        if arr.dtype.kind == "f":
            scale = np.sqrt(2.0 / max(arr[0].size if arr.ndim > 1 else arr.size, 1))
            new = (rng.standard_normal(arr.shape) * scale).astype(arr.dtype)
            if arr.ndim <= 1:  # biases and means small; scales and variances near 1
                positive = any(k in init.name.lower() for k in ("var", "riv", "scale", "gamma",
                                                               "_s", "weight"))
                new = (np.abs(rng.standard_normal(arr.shape)) * 0.1 + 0.9 if positive else
                       rng.standard_normal(arr.shape) * 0.01).astype(arr.dtype)
            init.CopyFrom(numpy_helper.from_array(new, init.name))
    return model


def logits(model):
    """``model`` answering the input of its final Softmax (random weights saturate it)."""
    out = model.graph.output[0]
    for node in model.graph.node:
        if node.op_type == "Softmax" and node.output[0] == out.name:
            out.name = node.input[0]
            model.graph.node.remove(node)
            break
    return model


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--weights", default="random", choices=("random", "shipped"))
    args = ap.parse_args(argv)
    import onnx
    import onnxruntime as ort
    import ember
    import ember.onnx
    ember.set_num_threads(1)
    folder = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
    rng = np.random.default_rng(0)
    wanted = [m for m in args.models.split(",") if m]
    for path in sorted(glob.glob(os.path.join(folder, "light_*.onnx"))):
        name = os.path.basename(path)[len("light_"):-len(".onnx")]
        if wanted and name not in wanted:
            continue
        model = onnx.load(path)
        model = logits(randomized(model, rng) if args.weights == "random" else model)
        inits = {i.name for i in model.graph.initializer}
        inp = [i for i in model.graph.input if i.name not in inits][0]
        shape = [d.dim_value or 1 for d in inp.type.tensor_type.shape.dim]
        x = rng.standard_normal(shape).astype(np.float32)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        sess = ort.InferenceSession(model.SerializeToString(), opts)
        t0 = time.perf_counter()
        expected = sess.run(None, {inp.name: x})[0]
        t_ort = time.perf_counter() - t0
        try:
            m = ember.onnx.load(model, device=args.device)
            with ember.no_grad():
                m(x)  # warm-up (compiled kernels)
                t0 = time.perf_counter()
                got = m(x).numpy()
                t_ember = time.perf_counter() - t0
            diff = float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-12))
            same_top = bool((got.reshape(len(got), -1).argmax(1)
                             == expected.reshape(len(expected), -1).argmax(1)).all())
            print(f"{name:14s} max rel diff {diff:.1e} (output std {expected.std():.1e}, "
                  f"same top class {same_top})   ember {t_ember:.3f}s   onnxruntime "
                  f"{t_ort:.3f}s   ratio {t_ember / t_ort:.1f}", flush=True)
        except Exception as exc:  # noqa: BLE001  (a report, not a test)
            print(f"{name:14s} FAILED {type(exc).__name__}: {str(exc)[:200]}", flush=True)


if __name__ == "__main__":
    main()
