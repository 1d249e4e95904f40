"""How far ember's hot paths reach: the untracked ``a + b`` runs at most 3 Python frames deep
down to its kernel, and the backward of ``a * b`` runs code of at most 4 files besides the
autodiff engine, the Tensor class and the backends' device lookup (the op's family file with its
rule, the operator, the shape guard and its kernel's file), so a reader follows each in a few
files; a device whose backend fuses adds the fusion wrapper's kernel (ember/backends/lazy): one
frame and one file more. Counted with ``sys.setprofile`` on every backend."""

import sys

import ember

# the backends' device lookup: the registry asks each loaded backend whether it owns an array
# (``owns``/``adopt`` of the NumPy, torch and xp backends)
ENGINE = ("_tensor.py", "autodiff/api.py", "autodiff/engine.py", "autodiff/graph.py",
          "backends/__init__.py", "backends/registry.py", "backends/numpy/core.py",
          "backends/torch/core.py", "backends/xp/__init__.py")


def _calls(fn):
    """(depth, file under ember/, function) of every call ``fn`` makes into ember's Python,
    depth 1 being ``fn`` itself."""
    seen, depth = [], [0]

    def profile(frame, event, arg):
        if event == "call":
            depth[0] += 1
            name = frame.f_code.co_filename.replace("\\", "/")
            if "/ember/" in name:
                seen.append((depth[0], name.split("/ember/")[-1], frame.f_code.co_name))
        elif event == "return":
            depth[0] -= 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def _wrapped():
    """1 where the default device's backend is the fusion wrapper ``Lazy``, else 0."""
    return int(type(ember.ones(1).device.backend).__name__ == "Lazy")


def test_untracked_add_is_at_most_three_frames_deep():
    a, b = ember.ones(8), ember.ones(8)
    a + b  # the operator's kernel lookup is memoised on the first call
    calls = _calls(lambda: a + b)
    assert calls and max(d for d, _, _ in calls) <= 3 + _wrapped(), calls


def test_backward_of_a_product_touches_at_most_four_files_besides_the_engine():
    """The rule (its row in primitives.py, read by the operator and by ``mul`` alike), the
    operator that multiplies the gradient (ops/operators.py), the shape guard and the backend's
    kernel."""
    x = ember.ones(8).require_grad()
    y = ember.ones(8).require_grad()
    g = ember.ones(8)
    (x * y).backward(g)
    x.grad = y.grad = None
    z = x * y
    calls = _calls(lambda: z.backward(g))
    files = {f for _, f, _ in calls if f not in ENGINE}
    assert len(files) <= 4 + _wrapped(), sorted(files)
    assert x.grad.tolist() == [1.0] * 8 and y.grad.tolist() == [1.0] * 8
