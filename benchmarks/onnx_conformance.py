"""onnx's own conformance cases (shipped with the ``onnx`` package; no downloads) on ember and,
when installed, on onnxruntime: pass counts per category, and each ember failure with its
reason (``--failures``).

    python benchmarks/onnx_conformance.py [--kinds node,simple,pytorch-converted,pytorch-operator]
                                          [--failures] [--limit N]
"""

import argparse
import collections
import glob
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KINDS = ("node", "simple", "pytorch-converted", "pytorch-operator")


def load_case(case):
    """(model, [(inputs, outputs)]) of a test case of onnx.backend.test.loader."""
    import onnx
    from onnx import numpy_helper
    if getattr(case, "model", None) is not None:  # generated in memory (the node cases)
        def plain(values):  # a few cases give expected outputs as TensorProtos
            return [numpy_helper.to_array(v) if isinstance(v, onnx.TensorProto) else v
                    for v in values]
        return case.model, [(plain(i), plain(o)) for i, o in case.data_sets]
    model = onnx.load(os.path.join(case.model_dir, "model.onnx"))
    sets = []
    for d in sorted(glob.glob(os.path.join(case.model_dir, "test_data_set*"))):
        def read(prefix):
            out = []
            for path in sorted(glob.glob(os.path.join(d, f"{prefix}_*.pb")),
                               key=lambda p: int(p.rsplit("_", 1)[1][:-3])):
                t = onnx.TensorProto()
                with open(path, "rb") as fh:
                    t.ParseFromString(fh.read())
                out.append(numpy_helper.to_array(t))
            return out
        sets.append((read("input"), read("output")))
    return model, sets


def check(run, model, sets, rtol, atol):
    """None when ``run(model, inputs)`` gives every expected output, else the reason."""
    try:
        rep = run(model)
        for inputs, expected in sets:
            got = rep(inputs)
            if len(got) < len(expected):
                return f"{len(got)} outputs, expected {len(expected)}"
            pairs = list(zip(got, expected))
            while pairs:
                g, e = pairs.pop()
                if isinstance(e, list) or e is None:  # a sequence or an empty optional
                    if e is None or g is None or len(g) != len(e):
                        if not (e is None and g is None):
                            return "wrong sequence or optional"
                        continue
                    pairs.extend(zip(g, e))
                    continue
                g = np.asarray(g)
                if g.shape != e.shape:
                    return f"shape {g.shape}, expected {e.shape}"
                if g.dtype != e.dtype:
                    return f"dtype {g.dtype}, expected {e.dtype}"
                if e.dtype.kind in "fc":
                    np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
                else:
                    np.testing.assert_array_equal(g, e)
    except AssertionError:
        return "wrong values"
    except Exception as exc:  # noqa: BLE001  (the reason is the result)
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
    return None


def ember_runner(model):
    from ember.onnx.backend import EmberBackend
    rep = EmberBackend.prepare(model)
    return lambda inputs: rep.run(inputs)


def ort_runner(model):
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts)
    names = [i.name for i in sess.get_inputs()]
    return lambda inputs: sess.run(None, dict(zip(names, inputs)))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--failures", action="store_true")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--no-ort", action="store_true")
    args = ap.parse_args(argv)
    from onnx.backend.test.loader import load_model_tests
    try:
        import onnxruntime  # noqa: F401
        with_ort = not args.no_ort
    except ImportError:
        with_ort = False
    reasons = collections.Counter()
    for kind in args.kinds.split(","):
        cases = [c for c in load_model_tests(kind=kind) if c.model_dir or getattr(c, "model", None) is not None][:args.limit]
        ours = theirs = 0
        for case in cases:
            model, sets = load_case(case)
            rtol, atol = getattr(case, "rtol", 1e-3), getattr(case, "atol", 1e-7)
            why = check(ember_runner, model, sets, rtol, atol)
            ours += why is None
            if why is not None:
                reasons[why.split(":")[0] if why.startswith("Unsupported") else why[:60]] += 1
                if args.failures:
                    print(f"  FAIL {case.name}: {why}")
            if with_ort:
                theirs += check(ort_runner, model, sets, rtol, atol) is None
        n = len(cases)
        line = f"{kind:20s} ember {ours}/{n} ({100 * ours / max(n, 1):.0f} %)"
        if with_ort:
            line += f"   onnxruntime {theirs}/{n} ({100 * theirs / max(n, 1):.0f} %)"
        print(line, flush=True)
    print("most common failure reasons:")
    for why, count in reasons.most_common(15):
        print(f"  {count:5d}  {why}")


if __name__ == "__main__":
    main()
