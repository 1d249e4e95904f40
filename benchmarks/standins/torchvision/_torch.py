"""The tensor library the stand-in makes tensors with: ``STANDIN_TORCH`` ("torch" by default)."""

import importlib
import os


def module():
    return importlib.import_module(os.environ.get("STANDIN_TORCH", "torch"))
