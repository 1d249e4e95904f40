"""The backend's allocation guard (ember/backends/numpy/core.py ``allocates``): a result that
cannot be allocated raises InvalidParameterError naming the op the user called and the shape,
never NumPy's MemoryError or ValueError.

Every size here needs far more than 2**47 bytes (more than a 64-bit process can address), so
the allocation fails at once on any machine, overcommit or not; nothing large is ever touched.
"""

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import InvalidParameterError
be = ember.Device("cpu").backend  # the NumPy backend's kernels, called directly

B = 2 ** 40    # (B, B) has 2**80 elements: past what any array can address
M = 2 ** 24    # (M, M) float32 is 2**50 bytes: addressable, but no machine has the memory


def _ones(*shape, dtype="float32"):
    return ember.ones(1, dtype=dtype).reshape((1,) * len(shape)).expand(*shape)


def _small():
    return ember.tensor([[1.0, 2.0], [3.0, 4.0]])


CASES = {
    # op: (call, the op named in the message, the result shape named, or None)
    "rand": (lambda x: ember.rand(B, B), "rand", (B, B)),
    "rand (memory)": (lambda x: ember.rand(2 ** 48), "rand", (2 ** 48,)),
    "randn": (lambda x: ember.randn(B, B), "randn", (B, B)),
    "randint": (lambda x: ember.randint(0, 5, (B, B)), "randint", (B, B)),
    "random": (lambda x: ember.random((B, B)), "random", (B, B)),
    "repeat": (lambda x: x.repeat(B, B), "repeat", None),
    "repeat_dim": (lambda x: x.repeat_dim(0, 2 ** 47), "repeat_dim", (2 ** 48, 2)),
    "repeat_interleave": (lambda x: x.repeat_interleave(2 ** 47), "repeat_interleave", None),
    "ember.repeat_interleave": (lambda x: ember.repeat_interleave(x, 2 ** 47, 0),
                                "repeat_interleave", None),
    "one_hot": (lambda x: ember.tensor([1, 0]).one_hot(2 ** 48), "one_hot", (2, 2 ** 48)),
    "pad": (lambda x: x.pad(((B, B), (B, B))), "pad", (2 * B + 2, 2 * B + 2)),
    "pad2d": (lambda x: x.pad2d((B, B, B, B)), "pad2d", (2 * B + 2, 2 * B + 2)),
    "F.pad": (lambda x: F.pad(x, (B, B, B, B)), "pad", (2 * B + 2, 2 * B + 2)),
    "cat": (lambda x: ember.cat([_ones(2 ** 31, 2 ** 31, dtype="bool")] * 2), "cat", None),
    "stack": (lambda x: ember.stack([_ones(2 ** 31, 2 ** 31, dtype="bool")] * 2), "stack", None),
    "matmul": (lambda x: _ones(M, 1).matmul(_ones(1, M)), "matmul", (M, M)),
    "@": (lambda x: _ones(3, M, 1) @ _ones(1, M), "matmul", (3, M, M)),
    "outer": (lambda x: _ones(M).outer(_ones(M)), "outer", (M, M)),
    "einsum": (lambda x: ember.einsum("i,j->ij", _ones(M), _ones(M)), "einsum", None),
    "multinomial": (lambda x: ember.ones(3).multinomial(2 ** 48, replacement=True),
                    "multinomial", (2 ** 48,)),
    "categorical": (lambda x: ember.ones(2, 3).categorical(2 ** 48), "categorical",
                    (2, 2 ** 48)),
    "contiguous": (lambda x: _ones(M, M).contiguous(), "contiguous", (M, M)),
    "reshape (a copy)": (lambda x: ember.ones(2, 1).expand(2, 2 ** 48).reshape(-1), "reshape",
                         (2 ** 49,)),
    "tolist": (lambda x: _ones(M, M).tolist(), "tolist", (M, M)),
    "expand": (lambda x: ember.ones(1, 1).expand(B, B), "expand", (B, B)),
    "zeros": (lambda x: ember.zeros(B, B), "zeros", None),
    "full": (lambda x: ember.full((B, B), 2.0), "full", None),
    "arange": (lambda x: ember.arange(2 ** 62), "arange", None),
}


# cases whose input is a huge broadcast view, which holds one element only where the device's
# library has views (on JAX, making it is the impossible allocation: ``expand`` refuses it)
ON_VIEWS = {"cat", "stack", "matmul", "@", "outer", "contiguous", "reshape (a copy)", "tolist"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.layout) if n in ON_VIEWS
                                  else n for n in CASES])
def test_impossible_results_raise_the_typed_error(name):
    call, op, shape = CASES[name]
    x = _small()
    before = x.tolist()
    with pytest.raises(InvalidParameterError) as info:
        call(x)
    message = str(info.value)
    assert "too large to allocate" in message
    if op is not None:
        assert message.startswith(op + ":"), message
    if shape is not None:
        assert str(shape) in message, message
        assert info.value.param == "shape" and info.value.value == shape
    assert x.tolist() == before  # the input is unchanged


def test_unsqueeze_to_a_huge_rank_is_a_rank_error():
    with pytest.raises(InvalidParameterError, match=r"unsqueeze_to: .*rank 1099511627776.*at most 64"):
        _small().unsqueeze_to(B)


def test_possible_results_still_work():
    # the guard changes nothing when the allocation succeeds
    assert ember.ones(1, 1).expand(2, 3).contiguous().tolist() == [[1.0] * 3] * 2
    assert _small().repeat(1, 2).tolist() == [[1.0, 2.0, 1.0, 2.0], [3.0, 4.0, 3.0, 4.0]]
    assert ember.einsum("i,j->ij", ember.ones(2), ember.ones(3)).shape == (2, 3)


def _kernel_raising(exc):
    @be.allocates(lambda n: (n, n))
    def kernel(n):
        raise exc
    return kernel


@pytest.mark.numpy_only
def test_guard_translates_numpy_size_failures_only():
    with pytest.raises(InvalidParameterError, match=r"\(5, 5\) is too large .*not enough memory"):
        _kernel_raising(MemoryError("Unable to allocate"))(5)
    with pytest.raises(InvalidParameterError, match=r"more elements or bytes than an array"):
        _kernel_raising(ValueError("array is too big; `arr.size * ...`"))(5)
    # any other ValueError is a bug to see, not a size to report
    with pytest.raises(ValueError, match="unrelated") as info:
        _kernel_raising(ValueError("unrelated"))(5)
    assert not isinstance(info.value, ember.EmberError)


@pytest.mark.numpy_only
def test_guard_keeps_the_kernel_name_and_doc():
    assert be.random_uniform.__name__ == "random_uniform"
    assert be.mv_pad.__doc__ and "pad" in be.mv_pad.__name__
    a = np.arange(6.0).reshape(2, 3).T
    assert be.contiguous(a).flags.c_contiguous


@pytest.mark.layout  # the examples' broadcast views hold one element
def test_docs_internals_examples_run():
    # the examples of the section on the shared checks (the page's op template holds a
    # docstring, not an example to run)
    import doctest
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "internals.md")
    with open(path, encoding="utf-8") as f:
        page = f.read()
    section = page[page.index("## Sizes, ranks"):]
    section = section[:section.index("\n## ")]
    test = doctest.DocTestParser().get_doctest(section, {}, "internals.md", path, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.tries >= 7
    assert runner.failures == 0
