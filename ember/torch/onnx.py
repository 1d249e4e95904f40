"""ember.torch.onnx: PyTorch's ``torch.onnx.export`` spelling over ``ember.onnx.export``.

Importing it is cheap: neither ember.onnx nor the ``onnx`` package loads until ``export`` is
called; without ``onnx`` installed the call raises OnnxNotInstalledError (``pip install onnx``).

>>> import io
>>> import ember.torch as torch
>>> net = torch.nn.Linear(2, 1)
>>> f = io.BytesIO()
>>> torch.onnx.export(net, (torch.ones(3, 2),), f)
>>> f.getvalue()[:2] != b""
True
"""

__all__ = ["export", "is_in_onnx_export"]

_exporting = []


def export(model, args=(), f=None, kwargs=None, export_params=True, verbose=None,
           input_names=None, output_names=None, opset_version=None, dynamic_axes=None,
           dynamo=False, **options):
    """``torch.onnx.export(model, args, f, ...)``: trace ``model`` on ``args`` and write ONNX
    to ``f`` (a path or a binary file); ``input_names``, ``output_names``, ``dynamic_axes`` and
    ``opset_version`` as PyTorch. Returns None."""
    from ..onnx.proto import require_onnx
    require_onnx("torch.onnx.export")
    from ..onnx import export as _export
    from ..errors import InvalidParameterError
    if kwargs:
        raise InvalidParameterError("torch.onnx.export: kwargs for the forward are not "
                                    "supported; pass every input in args", "kwargs", kwargs)
    if not export_params:
        raise InvalidParameterError("torch.onnx.export: export_params=False is not supported",
                                    "export_params", export_params)
    _exporting.append(True)
    try:
        return _export(model, args, f, input_names=input_names, output_names=output_names,
                       dynamic_axes=dynamic_axes, opset_version=opset_version)
    finally:
        _exporting.pop()


def is_in_onnx_export():
    """Whether an export is tracing now (PyTorch's ``torch.onnx.is_in_onnx_export``).

    >>> import ember.torch as torch
    >>> torch.onnx.is_in_onnx_export()
    False
    """
    return bool(_exporting)
