"""How much of PyTorch's API ``ember.torch`` has, measured by name against the installed torch.

For each namespace of ``NAMESPACES`` (``torch``, ``torch.Tensor``, ``torch.nn``, ...) the script
lists torch's public names (callables and classes defined by torch; for ``torch.Tensor`` every
public method and property), leaves out the names of ``EXCLUDED`` (each rule with its reason),
and marks which of the others ``ember.torch`` has under the same path (``ember.torch.nn`` for
``torch.nn``, ``ember.torch.Tensor`` for ``torch.Tensor``). It writes the table between the
markers of docs/pytorch.md and the missing and excluded names to docs/pytorch-surface.md.

    python benchmarks/torch_surface.py            # print the table
    python benchmarks/torch_surface.py --write    # docs/pytorch.md and docs/pytorch-surface.md
    python benchmarks/torch_surface.py --check    # exit 1 if a percent is below its floor

The floors are ``FLOORS`` of tests/torch/test_surface.py (a ratchet: raise them as names land).
A name counts as present when ember.torch has an attribute of that name; whether it means what
PyTorch's does is the business of the tests (tests/torch/test_method_meanings.py and others).
"""

import argparse
import ast
import fnmatch
import importlib
import os
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "pytorch.md")
LIST_DOC = os.path.join(ROOT, "docs", "pytorch-surface.md")
TEST = os.path.join(ROOT, "tests", "torch", "test_surface.py")
BEGIN, END = "<!-- surface:begin -->", "<!-- surface:end -->"
HEADING = "## How much of PyTorch"

NAMESPACES = ("torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.nn.init",
              "torch.nn.utils", "torch.optim", "torch.optim.lr_scheduler", "torch.distributions",
              "torch.utils.data", "torch.autograd", "torch.linalg", "torch.fft", "torch.special")

# The names left out of the count: (reason, the namespaces the rule applies to, the patterns, as
# fnmatch patterns of the name). A name matched by several rules is given the first reason.
_CORE = ("torch", "torch.Tensor")
EXCLUDED = (
    ("private (`_`-prefixed)", None, ("_*",)),
    ("CUDA, ROCm and CPU vendor-library internals (cuDNN, MIOpen, oneDNN, FBGEMM, cuFFT, NNPACK)",
     _CORE, ("cudnn*", "miopen*", "mkldnn*", "*_mkldnn*", "is_mkldnn", "fbgemm*", "cufft*",
             "nnpack*")),
    ("the quantized engine's internals (quantized tensors and their kernels)",
     _CORE, ("quantize_per_*", "q_*", "dequantize", "*quantized*", "fake_quantize*",
             "fused_moving_avg_obs_fake_quant", "choose_qparams*", "int_repr", "qscheme",
             "Q*Storage")),
    ("sparse layouts (COO, CSR, CSC, BSR, BSC) and their products",
     _CORE, ("sparse_*", "*_sparse*", "to_sparse*", "is_sparse*", "*_csr*", "*_csc*", "*_bsr*",
             "*_bsc*", "smm", "hspmm", "sspaddmm", "dsmm", "hsmm", "saddmm", "spmm", "coalesce",
             "is_coalesced", "indices", "values", "crow_indices", "col_indices", "ccol_indices",
             "row_indices", "*indices_copy", "values_copy", "dense_dim", "sparse_dim", "to_dense",
             "sparse_mask")),
    ("named tensors (a prototype; torch 2.13 has none of these names left)",
     _CORE, ("refine_names", "rename", "rename_", "align_to", "align_as", "names")),
    ("the `*_copy` forms of view ops that torch.compile's functionalization emits",
     ("torch",), tuple(f"{view}_copy" for view in (
         "alias", "as_strided", "detach", "diagonal", "expand", "permute", "select", "slice",
         "split", "split_with_sizes", "squeeze", "t", "transpose", "unbind", "unfold",
         "unsqueeze", "view_as_complex", "view_as_real", "view"))),
    ("ATen's kernel entry points behind the public op of the name without `native_`",
     ("torch",), ("native_*",)),
    ("symbolic shapes of torch.compile's tracer", _CORE, ("sym_*", "Sym*")),
    ("pybind11 bindings of the C++ runtime (TorchScript IR, dispatcher, profiler types)",
     None, ("<pybind11>",)),
    ("a helper the module imports, not its API (`torch.Tensor`, `__torch_function__` dispatch)",
     NAMESPACES[2:], ("Tensor", "handle_torch_function", "has_torch_function*",
                      "boolean_dispatch", "Optimizer@torch.optim.lr_scheduler")),
    ("removed from PyTorch: they only raise an error pointing to torch.linalg (`reinforce`: to "
     "torch.distributions)",
     _CORE, tuple(f"{name}@{path}" for path, names in (
         ("torch", ("eig", "symeig", "lstsq", "solve", "matrix_rank")),
         ("torch.Tensor", ("eig", "symeig", "lstsq", "solve", "reinforce"))) for name in names)),
    ("DataPipes (deprecated in PyTorch, moved to torchdata)",
     ("torch.utils.data",), ("*DataPipe", "DataChunk", "functional_datapipe",
                             "guaranteed_datapipes_determinism", "non_deterministic",
                             "argument_validation", "runtime_validation*")),
)


def _public(path):
    """``{name: object}`` of the names torch's namespace ``path`` offers."""
    import torch
    if path == "torch.Tensor":
        return {name: getattr(torch.Tensor, name) for name in dir(torch.Tensor)}
    module = importlib.import_module(path)
    out = {}
    for name in dir(module):
        value = getattr(module, name)
        if not callable(value) or isinstance(value, types.ModuleType):
            continue  # dtypes, constants and submodules are not names of this count
        if not (getattr(value, "__module__", None) or "").startswith("torch"):
            continue  # imported from the standard library (typing, functools ...)
        out[name] = value
    return out


def _exclusion(path, name, value):
    """The reason ``name`` of namespace ``path`` is not counted, or None."""
    for reason, where, patterns in EXCLUDED:
        if where is not None and path not in where:
            continue
        for pattern in patterns:
            if pattern == "<pybind11>":
                if isinstance(value, type) and type(value).__name__ == "pybind11_type":
                    return reason
            elif "@" in pattern:
                if pattern == f"{name}@{path}":
                    return reason
            elif fnmatch.fnmatchcase(name, pattern):
                return reason
    return None


def _ember_namespace(path):
    """The object of ember.torch that stands for torch's ``path``, or None if there is none."""
    import ember.torch
    if path == "torch.Tensor":
        return ember.torch.Tensor
    try:
        return importlib.import_module("ember." + path)
    except ImportError:  # perhaps an attribute only (``from ember.torch.optim import x``)
        value = ember.torch
        for part in path.split(".")[1:]:
            value = getattr(value, part, None)
        return value


def measure():
    """``{namespace: {"present": [...], "missing": [...], "excluded": {name: reason}}}`` (the
    private names left out)."""
    out = {}
    for path in NAMESPACES:
        ours = _ember_namespace(path)
        present, missing, excluded = [], [], {}
        for name, value in sorted(_public(path).items()):
            reason = _exclusion(path, name, value)
            if reason == EXCLUDED[0][0]:
                continue  # private: not listed, there are hundreds
            if reason is not None:
                excluded[name] = reason
            elif ours is not None and hasattr(ours, name):
                present.append(name)
            else:
                missing.append(name)
        out[path] = {"present": present, "missing": missing, "excluded": excluded}
    return out


def percent(entry):
    """The percent of the counted names present (100.0 when nothing is counted)."""
    counted = len(entry["present"]) + len(entry["missing"])
    return 100.0 * len(entry["present"]) / counted if counted else 100.0


def table(result):
    """The markdown table of ``measure()``'s result."""
    import torch
    version = torch.__version__.split("+")[0]
    lines = [f"Measured by `benchmarks/torch_surface.py` against torch {version} (a name counts",
             "as present when `ember.torch` has it under the same path;",
             "the `_`-prefixed names are private and not listed; the missing and excluded names,",
             "each exclusion with its reason, are listed in",
             "[pytorch-surface.md](pytorch-surface.md)).",
             "",
             "| namespace | counted | present | percent | excluded |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for path, entry in result.items():
        counted = len(entry["present"]) + len(entry["missing"])
        lines.append(f"| `{path}` | {counted} | {len(entry['present'])} | "
                     f"{percent(entry):.1f} % | {len(entry['excluded'])} |")
    return "\n".join(lines)


def name_lists(result):
    """The text of docs/pytorch-surface.md: the missing and excluded names of each namespace."""
    lines = ["# The PyTorch surface, name by name", "",
             "Generated by `python benchmarks/torch_surface.py --write`; do not edit. The totals",
             "are in [pytorch.md](pytorch.md#how-much-of-pytorch).", "", "## Excluded, and why", ""]
    for reason, _, _ in EXCLUDED:
        lines.append(f"- {reason}")
    for path, entry in result.items():
        lines += ["", f"## `{path}`", "",
                  f"Missing ({len(entry['missing'])}): "
                  + (", ".join(f"`{n}`" for n in entry["missing"]) or "none") + "."]
        by_reason = {}
        for name, reason in entry["excluded"].items():
            by_reason.setdefault(reason, []).append(name)
        for reason, names in by_reason.items():
            lines += ["", f"Excluded, {reason}: " + ", ".join(f"`{n}`" for n in names) + "."]
    return "\n".join(lines) + "\n"


def updated_doc(text, block):
    """docs/pytorch.md's ``text`` with the table ``block`` between the markers (the heading and
    the markers appended at the end when absent)."""
    if BEGIN not in text:
        return text.rstrip("\n") + f"\n\n{HEADING}\n\n{BEGIN}\n{block}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{block}\n{END}{tail}"


def floors():
    """``FLOORS`` of tests/torch/test_surface.py: ``{namespace: lowest allowed percent}``."""
    tree = ast.parse(open(TEST).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "FLOORS"
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit(f"no FLOORS in {TEST}")


def below_floors(result, limits):
    """``[(namespace, percent, floor)]`` for each namespace below its floor."""
    return [(path, percent(result[path]), limit) for path, limit in limits.items()
            if percent(result[path]) < limit]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="update docs/pytorch.md's table and docs/pytorch-surface.md")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a namespace's percent is below its recorded floor")
    args = parser.parse_args(argv)
    sys.path.insert(0, ROOT)
    result = measure()
    block = table(result)
    print(block)
    if args.write:
        with open(DOC) as f:
            text = f.read()
        with open(DOC, "w") as f:
            f.write(updated_doc(text, block))
        with open(LIST_DOC, "w") as f:
            f.write(name_lists(result))
    if args.check:
        low = below_floors(result, floors())
        for path, value, limit in low:
            print(f"{path}: {value:.1f} % is below its floor of {limit} %", file=sys.stderr)
        return 1 if low else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
