"""The spec's examples, checked where no op family's test file holds them.

- Every printed example of ``movement-tinygrad.txt`` runs here verbatim (the spec's own code,
  with ``Tensor`` being ``ember.Tensor``) and must print exactly the spec's output. One
  normalization: tinygrad's default int dtype is int32, ember's is int64 (API.md, "Kinds and
  dtypes"), so NumPy's repr of the split/chunk parts carries no ``, dtype=int32``.
- The struct-level indexing example of ``tensor-burn.txt`` and Burn's creation examples with
  their device argument in Burn's place (``Tensor.from_data(data, device)``).
- ``BURN_INDEX`` records, for each function of ``tensor-burn.txt`` whose example prints a result,
  the family test that checks that result; ``test_burn_index_*`` keep the record true.
  The stack examples of ``stack-dart-tensorbuffer.txt`` are ``test_segments.py::
  test_dart_stack_examples``; ``segments-torchlean.txt`` has laws, not printed examples
  (Hypothesis properties in ``test_segments.py``).
"""

import ast
import functools
import io
import pathlib
from contextlib import redirect_stdout

import numpy as np
import pytest

import ember
from ember import Tensor

# -- movement-tinygrad.txt: (op, code, printed output), in the spec's order --------------------

TINYGRAD_EXAMPLES = [
    ("reshape", r"""
t = Tensor.arange(6)
print(t.reshape(2, 3).numpy())
""", """
[[0 1 2]
 [3 4 5]]
"""),
    ("expand", r"""
t = Tensor([1, 2, 3])
print(t.expand(4, -1).numpy())
""", """
[[1 2 3]
 [1 2 3]
 [1 2 3]
 [1 2 3]]
"""),
    ("permute", r"""
t = Tensor.arange(6).reshape(2, 3)
print(t.numpy())
""", """
[[0 1 2]
 [3 4 5]]
"""),
    ("permute", r"""
print(t.permute(1, 0).numpy())
""", """
[[0 3]
 [1 4]
 [2 5]]
"""),
    ("flip", r"""
t = Tensor.arange(6).reshape(2, 3)
print(t.numpy())
""", """
[[0 1 2]
 [3 4 5]]
"""),
    ("flip", r"""
print(t.flip(0).numpy())
""", """
[[3 4 5]
 [0 1 2]]
"""),
    ("flip", r"""
print(t.flip((0, 1)).numpy())
""", """
[[5 4 3]
 [2 1 0]]
"""),
    ("shrink", r"""
t = Tensor.arange(9).reshape(3, 3)
print(t.numpy())
""", """
[[0 1 2]
 [3 4 5]
 [6 7 8]]
"""),
    ("shrink", r"""
print(t.shrink(((None, (1, 3)))).numpy())
""", """
[[1 2]
 [4 5]
 [7 8]]
"""),
    ("shrink", r"""
print(t.shrink((((0, 2), (0, 2)))).numpy())
""", """
[[0 1]
 [3 4]]
"""),
    ("pad", r"""
t = Tensor.arange(6).reshape(2, 3)
print(t.numpy())
""", """
[[0 1 2]
 [3 4 5]]
"""),
    ("pad", r"""
print(t.pad(((None, (1, 2)))).numpy())
""", """
[[0 0 1 2 0 0]
 [0 3 4 5 0 0]]
"""),
    ("pad", r"""
print(t.pad(((None, (1, 2))), -2).numpy())
""", """
[[-2  0  1  2 -2 -2]
 [-2  3  4  5 -2 -2]]
"""),
    ("gather", r"""
t = Tensor([[1, 2], [3, 4]])
print(t.numpy())
""", """
[[1 2]
 [3 4]]
"""),
    ("gather", r"""
print(t.gather(1, Tensor([[0, 0], [1, 0]])).numpy())
""", """
[[1 1]
 [4 3]]
"""),
    ("cat", r"""
t0, t1, t2 = Tensor([[1, 2]]), Tensor([[3, 4]]), Tensor([[5, 6]])
print(t0.cat(t1, t2, dim=0).numpy())
""", """
[[1 2]
 [3 4]
 [5 6]]
"""),
    ("cat", r"""
print(t0.cat(t1, t2, dim=1).numpy())
""", """
[[1 2 3 4 5 6]]
"""),
    ("stack", r"""
t0, t1, t2 = Tensor([1, 2]), Tensor([3, 4]), Tensor([5, 6])
print(t0.stack(t1, t2, dim=0).numpy())
""", """
[[1 2]
 [3 4]
 [5 6]]
"""),
    ("stack", r"""
print(t0.stack(t1, t2, dim=1).numpy())
""", """
[[1 3 5]
 [2 4 6]]
"""),
    ("repeat", r"""
t = Tensor([1, 2, 3])
print(t.repeat(4, 2).numpy())
""", """
[[1 2 3 1 2 3]
 [1 2 3 1 2 3]
 [1 2 3 1 2 3]
 [1 2 3 1 2 3]]
"""),
    ("repeat", r"""
print(t.repeat(4, 2, 1).shape)
""", """
(4, 2, 3)
"""),
    ("repeat_interleave", r"""
t = Tensor([1, 2, 3])
print(t.repeat_interleave(2).numpy())
""", """
[1 1 2 2 3 3]
"""),
    ("split", r"""
t = Tensor.arange(10).reshape(5, 2)
print(t.numpy())
""", """
[[0 1]
 [2 3]
 [4 5]
 [6 7]
 [8 9]]
"""),
    ("split", r"""
split = t.split(2)
print("\n".join([repr(x.numpy()) for x in split]))
""", """
array([[0, 1],
       [2, 3]], dtype=int32)
array([[4, 5],
       [6, 7]], dtype=int32)
array([[8, 9]], dtype=int32)
"""),
    ("split", r"""
split = t.split([1, 4])
print("\n".join([repr(x.numpy()) for x in split]))
""", """
array([[0, 1]], dtype=int32)
array([[2, 3],
       [4, 5],
       [6, 7],
       [8, 9]], dtype=int32)
"""),
    ("chunk", r"""
chunked = Tensor.arange(11).chunk(6)
print("\n".join([repr(x.numpy()) for x in chunked]))
""", """
array([0, 1], dtype=int32)
array([2, 3], dtype=int32)
array([4, 5], dtype=int32)
array([6, 7], dtype=int32)
array([8, 9], dtype=int32)
array([10], dtype=int32)
"""),
    ("chunk", r"""
chunked = Tensor.arange(12).chunk(6)
print("\n".join([repr(x.numpy()) for x in chunked]))
""", """
array([0, 1], dtype=int32)
array([2, 3], dtype=int32)
array([4, 5], dtype=int32)
array([6, 7], dtype=int32)
array([8, 9], dtype=int32)
array([10, 11], dtype=int32)
"""),
    ("chunk", r"""
chunked = Tensor.arange(13).chunk(6)
print("\n".join([repr(x.numpy()) for x in chunked]))
""", """
array([0, 1, 2], dtype=int32)
array([3, 4, 5], dtype=int32)
array([6, 7, 8], dtype=int32)
array([ 9, 10, 11], dtype=int32)
array([12], dtype=int32)
"""),
    ("squeeze", r"""
t = Tensor.zeros(2, 1, 2, 1, 2)
print(t.squeeze().shape)
""", """
(2, 2, 2)
"""),
    ("squeeze", r"""
print(t.squeeze(0).shape)
""", """
(2, 1, 2, 1, 2)
"""),
    ("squeeze", r"""
print(t.squeeze(1).shape)
""", """
(2, 2, 1, 2)
"""),
    ("unsqueeze", r"""
t = Tensor([1, 2, 3, 4])
print(t.unsqueeze(0).numpy())
""", """
[[1 2 3 4]]
"""),
    ("unsqueeze", r"""
print(t.unsqueeze(1).numpy())
""", """
[[1]
 [2]
 [3]
 [4]]
"""),
    ("pad2d", r"""
t = Tensor.arange(9).reshape(1, 1, 3, 3)
print(t.numpy())
""", """
[[[[0 1 2]
   [3 4 5]
   [6 7 8]]]]
"""),
    ("pad2d", r"""
print(t.pad2d((1, 1, 2, 0), value=-float("inf")).numpy())
""", """
[[[[-inf -inf -inf -inf -inf]
   [-inf -inf -inf -inf -inf]
   [-inf   0.   1.   2. -inf]
   [-inf   3.   4.   5. -inf]
   [-inf   6.   7.   8. -inf]]]]
"""),
    ("transpose", r"""
t = Tensor.arange(6).reshape(2, 3)
print(t.numpy())
""", """
[[0 1 2]
 [3 4 5]]
"""),
    ("transpose", r"""
print(t.transpose(0, 1).numpy())
""", """
[[0 3]
 [1 4]
 [2 5]]
"""),
    ("flatten", r"""
t = Tensor.arange(8).reshape(2, 2, 2)
print(t.flatten().numpy())
""", """
[0 1 2 3 4 5 6 7]
"""),
    ("flatten", r"""
print(t.flatten(start_dim=1).numpy())
""", """
[[0 1 2 3]
 [4 5 6 7]]
"""),
    ("unflatten", r"""
print(Tensor.ones(3, 4, 1).unflatten(1, (2, 2)).shape)
""", """
(3, 2, 2, 1)
"""),
    ("unflatten", r"""
print(Tensor.ones(3, 4, 1).unflatten(1, (-1, 2)).shape)
""", """
(3, 2, 2, 1)
"""),
    ("unflatten", r"""
print(Tensor.ones(5, 12, 3).unflatten(-2, (2, 2, 3, 1, 1)).shape)
""", """
(5, 2, 2, 3, 1, 1, 3)
"""),
]


def _run_op_examples(op):
    """Run the examples of ``op`` in one namespace (later ones use earlier ones' names, as in
    the spec's session); yield (code, printed, expected) for each."""
    namespace = {"Tensor": Tensor}
    for name, code, expected in TINYGRAD_EXAMPLES:
        if name != op:
            continue
        out = io.StringIO()
        with redirect_stdout(out):
            exec(code.strip(), namespace)  # the spec's own example code (a fixed string above)
        yield code.strip(), out.getvalue().strip(), expected.strip().replace(", dtype=int32", "")


TINYGRAD_OPS = list(dict.fromkeys(name for name, _, _ in TINYGRAD_EXAMPLES))


def test_tinygrad_example_count():
    assert len(TINYGRAD_EXAMPLES) == 42
    assert TINYGRAD_OPS == ["reshape", "expand", "permute", "flip", "shrink", "pad", "gather",
                            "cat", "stack", "repeat", "repeat_interleave", "split", "chunk",
                            "squeeze", "unsqueeze", "pad2d", "transpose", "flatten", "unflatten"]


@pytest.mark.parametrize("op", TINYGRAD_OPS)
def test_tinygrad_examples_print_the_spec_output(op):
    for code, printed, expected in _run_op_examples(op):
        assert printed == expected, f"{op}: {code!r} printed\n{printed}\nexpected\n{expected}"


def test_tinygrad_split_chunk_dtype_is_ember_default_int():
    # the one normalization above: the values are the spec's, the dtype is ember's default int
    parts = Tensor.arange(10).reshape(5, 2).split(2)
    assert [p.dtype for p in parts] == [ember.int64] * 3
    assert repr(parts[2].numpy().astype(np.int32)) == "array([[8, 9]], dtype=int32)"


# -- tensor-burn.txt: the struct-level example and Burn's device arguments --------------------

def test_burn_struct_indexing_example():
    tensor = Tensor.from_data([[3.0, 4.9, 2.0], [2.0, 1.9, 3.0], [6.0, 1.5, 7.0],
                               [3.0, 4.9, 9.0]], ember.Device())
    s = tensor.slice([slice(1, 3)])
    assert s.dims() == [2, 3]
    np.testing.assert_array_equal(s.numpy(), np.float32([[2.0, 1.9, 3.0], [6.0, 1.5, 7.0]]))
    s = tensor.slice([slice(0, 2), slice(0, 2)])
    assert s.dims() == [2, 2]
    np.testing.assert_array_equal(s.numpy(), np.float32([[3.0, 4.9], [2.0, 1.9]]))
    indices = Tensor.from_data([0, 2], ember.Device())
    indexed = tensor.select(1, indices)
    assert indexed.dims() == [4, 2]
    np.testing.assert_array_equal(indexed.numpy(),
                                  np.float32([[3.0, 2.0], [2.0, 3.0], [6.0, 7.0], [3.0, 9.0]]))


def test_burn_creation_examples_with_their_device_argument():
    device = ember.Device()  # Burn's Default::default()
    assert str(Tensor.zeros((2, 3), device)) == "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"
    assert str(Tensor.ones((2, 3), device)) == "[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]"
    assert str(Tensor.full((2, 3), 5.0, device)) == "[[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]"
    tensor = Tensor.from_data([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]], device)
    assert str(tensor.zeros_like()) == "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"
    assert str(tensor.ones_like()) == "[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]"
    assert str(tensor.full_like(5.0)) == "[[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]"
    assert Tensor.empty([2, 3, 4], device).dims() == [2, 3, 4]
    assert Tensor.zeros([2, 3, 4], device).empty_like().dims() == [2, 3, 4]
    assert Tensor.ones([2, 3, 4], device).dims() == [2, 3, 4]
    assert Tensor.ones([2, 3, 4], device).shape == (2, 3, 4)  # Shape { dims: [2, 3, 4] }
    assert Tensor.arange(range(0, 5), device).float().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert Tensor.from_ints([[1, 2], [3, 4]], device).dtype is ember.int64
    assert Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], device).dtype is ember.float32
    assert str(Tensor.from_bool([True, False, True], device).int()) == "[1, 0, 1]"
    assert Tensor.cartesian_grid([2, 3], device).tolist() == [[[0, 0], [0, 1], [0, 2]],
                                                              [[1, 0], [1, 1], [1, 2]]]
    assert Tensor.triu_mask([3, 3], 0, device).tolist() == [[False, False, False],
                                                           [True, False, False],
                                                           [True, True, False]]
    t = Tensor.random((2, 3), ember.Distribution.uniform(0.0, 1.0), device)
    assert t.dims() == [2, 3] and ((t.numpy() >= 0.0) & (t.numpy() < 1.0)).all()
    assert tensor.device == device and tensor.to_device(device) is tensor
    assert tensor.clone().tolist() == tensor.tolist()


# -- tensor-burn.txt: where each printed example is checked ----------------------------------

BURN_INDEX = {
    "spec/test_spec_examples.py::test_burn_struct_indexing_example": ["(struct)"],
    "ops/test_creation.py::TestSpecExamples::test_empty": ["empty"],
    "ops/test_creation.py::TestSpecExamples::test_empty_like": ["empty_like"],
    "ops/test_creation.py::TestSpecExamples::test_zeros": ["zeros"],
    "ops/test_creation.py::TestSpecExamples::test_zeros_like": ["zeros_like"],
    "ops/test_creation.py::TestSpecExamples::test_ones": ["ones"],
    "ops/test_creation.py::TestSpecExamples::test_ones_like": ["ones_like"],
    "ops/test_creation.py::TestSpecExamples::test_full": ["full"],
    "ops/test_creation.py::TestSpecExamples::test_full_like": ["full_like"],
    "ops/test_creation.py::TestSpecExamples::test_dims_and_shape": ["dims", "shape"],
    "ops/test_creation.py::TestSpecExamples::test_triu_mask": ["triu_mask"],
    "ops/test_creation.py::TestSpecExamples::test_tril_mask": ["tril_mask"],
    "ops/test_creation.py::TestSpecExamples::test_diag_mask": ["diag_mask"],
    "ops/test_creation.py::TestSpecExamples::test_triu": ["triu"],
    "ops/test_creation.py::TestSpecExamples::test_tril": ["tril"],
    "ops/test_creation.py::TestSpecExamples::test_from_floats": ["from_floats"],
    "ops/test_creation.py::TestSpecExamples::test_from_ints": ["from_ints"],
    "ops/test_creation.py::TestSpecExamples::test_from_bool": ["from_bool"],
    "ops/test_creation.py::TestSpecExamples::test_arange_float": ["arange"],
    "ops/test_creation.py::TestSpecExamples::test_cartesian_grid": ["cartesian_grid"],
    "ops/test_movement.py::TestBurnExamples::test_reshape": ["reshape"],
    "ops/test_movement.py::TestBurnExamples::test_transpose": ["transpose"],
    "ops/test_movement.py::TestBurnExamples::test_swap_dims": ["swap_dims"],
    "ops/test_movement.py::TestBurnExamples::test_permute_erratum": ["permute"],
    "ops/test_movement.py::TestBurnExamples::test_movedim": ["movedim"],
    "ops/test_movement.py::TestBurnExamples::test_flip": ["flip"],
    "ops/test_movement.py::TestBurnExamples::test_flatten": ["flatten"],
    "ops/test_movement.py::TestBurnExamples::test_squeeze": ["squeeze"],
    "ops/test_movement.py::TestBurnExamples::test_squeeze_dim": ["squeeze_dim"],
    "ops/test_movement.py::TestBurnExamples::test_squeeze_dims": ["squeeze_dims"],
    "ops/test_movement.py::TestBurnExamples::test_unsqueeze": ["unsqueeze"],
    "ops/test_movement.py::TestBurnExamples::test_unsqueeze_dim": ["unsqueeze_dim"],
    "ops/test_movement.py::TestBurnExamples::test_unsqueeze_dims": ["unsqueeze_dims"],
    "ops/test_movement.py::TestBurnExamples::test_repeat_dim": ["repeat_dim"],
    "ops/test_movement.py::TestBurnExamples::test_repeat": ["repeat"],
    "ops/test_movement.py::TestBurnExamples::test_expand": ["expand"],
    "ops/test_movement.py::TestBurnExamples::test_pad": ["pad"],
    "ops/test_slicing.py::test_slice_spec_examples": ["slice"],
    "ops/test_slicing.py::test_slice_assign_spec_examples": ["slice_assign"],
    "ops/test_slicing.py::test_slice_fill_spec_examples": ["slice_fill"],
    "ops/test_slicing.py::test_slice_dim_spec_examples": ["slice_dim"],
    "ops/test_slicing.py::test_select_dim_spec_example_and_torch": ["select_dim"],
    "ops/test_slicing.py::test_narrow_spec_example": ["narrow"],
    "ops/test_indexing.py::test_spec_select": ["select"],
    "ops/test_indexing.py::test_spec_mask_where_fill_select": [
        "mask_where", "mask_fill", "mask_select"],
    "ops/test_indexing.py::test_spec_nonzero_argwhere": ["nonzero", "argwhere"],
    "ops/test_indexing.py::test_spec_take": ["take"],
    "ops/test_indexing.py::test_spec_one_hot": ["one_hot", "one_hot_fill"],
    "ops/test_compare.py::test_spec_examples_tensor_forms": [
        "equal", "not_equal", "greater", "greater_equal", "lower", "lower_equal"],
    "ops/test_compare.py::test_spec_examples_scalar_forms": [
        "equal_scalar", "not_equal_scalar", "greater_scalar", "greater_equal_scalar",
        "lower_scalar", "lower_equal_scalar"],
    "ops/test_compare.py::test_spec_examples_closeness_and_predicates": [
        "is_close", "all_close", "is_nan", "contains_nan", "is_inf", "is_finite"],
    "ops/test_segments.py::test_burn_cat_example": ["cat"],
    "ops/test_segments.py::test_burn_stack_example": ["stack"],
    "ops/test_segments.py::test_burn_iter_dim_example": ["iter_dim"],
    "ops/test_segments.py::test_burn_chunk_example": ["chunk"],
    "ops/test_segments.py::test_burn_split_examples": ["split", "split_with_sizes"],
    "ops/test_reduce.py::test_spec_any_all": ["any", "any_dim", "all", "all_dim"],
    "ops/test_reduce.py::test_spec_median": ["median", "median_with_indices"],
    "ops/test_reduce.py::test_spec_sum_mean_prod": [
        "mean", "sum", "mean_dim", "mean_dims", "sum_dim", "sum_dims", "sum_dims_squeeze", "prod",
        "prod_dim", "prod_dims"],
    "ops/test_reduce.py::test_spec_max_min": [
        "max", "max_dim_with_indices", "max_abs", "max_abs_dim", "max_abs_dims", "min", "min_dim",
        "min_dims", "min_dim_with_indices", "max_dim", "max_dims"],
    "ops/test_reduce.py::test_spec_arg": ["argmax", "argmin", "argtopk"],
    "ops/test_data.py::test_spec_bool_int_float": ["int", "float", "bool", "cast"],
    "ops/test_data.py::test_spec_into_scalar": ["into_scalar"],
    "ops/test_bitwise.py::test_bool_spec_examples": ["bool_not", "bool_and", "bool_or", "bool_xor"],
    "ops/test_linalg.py::test_einsum_spec_example": ["einsum"],
    "ops/test_linalg.py::test_dot_spec_example": ["dot"],
    "ops/test_arith.py::test_spec_examples_arithmetic": [
        "add", "add_scalar", "sub", "sub_scalar", "div", "div_scalar", "remainder_scalar", "mul",
        "mul_scalar", "neg", "sign", "abs"],
    "ops/test_arith.py::test_spec_examples_powers": [
        "powf", "powf_scalar", "powi", "powi_scalar"],
    "ops/test_arith.py::test_spec_examples_fmod": ["fmod", "fmod_scalar"],
    "ops/test_float_math.py::test_spec_examples_float_math": [
        "cosh", "sinh", "tanh", "acos", "acosh", "asin", "asinh", "atan", "atanh", "atan2",
        "trunc"],
    "ops/test_clamps.py::test_spec_examples_pairs_and_clamps": [
        "max_pair", "min_pair", "clamp", "clamp_min", "clamp_max"],
    "ops/test_random.py::test_random_spec_example": ["random"],
    "ops/test_random.py::test_categorical_spec_example": ["categorical"],
    "ops/test_scan.py::test_spec_examples": ["cumsum", "cumprod", "cummin", "cummax"],
    "ops/test_sort.py::test_spec_sort": ["sort"],
    "ops/test_sort.py::test_spec_sort_descending": ["sort_descending"],
    "ops/test_sort.py::test_spec_sort_with_indices": ["sort_with_indices"],
    "ops/test_sort.py::test_spec_sort_descending_with_indices": ["sort_descending_with_indices"],
    "ops/test_sort.py::test_spec_argsort": ["argsort", "argsort_descending"],
    "ops/test_sort.py::test_spec_topk": ["topk", "topk_with_indices"],
}

TESTS = pathlib.Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=None)
def _test_names(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.update(f"{node.name}::{sub.name}" for sub in node.body
                         if isinstance(sub, ast.FunctionDef))
    return names


def test_burn_index_points_at_existing_tests():
    for node in BURN_INDEX:
        path, name = node.split("::", 1)
        assert name in _test_names(TESTS / path), f"{node} does not exist"


def test_burn_index_covers_every_printed_example():
    covered = [fn for fns in BURN_INDEX.values() for fn in fns]
    assert len(covered) == len(set(covered)), "a function is indexed twice"
    assert len(covered) == 166  # 158 with a printed result, and 8 that print without showing it
