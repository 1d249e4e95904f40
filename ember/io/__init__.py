"""ember.io: reading and writing tensors in files (safetensors).

>>> import ember, ember.io, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "weights.safetensors")
>>> ember.io.save_file({"0.weight": ember.eye(2)}, path)
>>> ember.io.load_file(path)["0.weight"].tolist()
[[1.0, 0.0], [0.0, 1.0]]
"""

from .safetensors import load, load_file, load_metadata, save, save_file
from . import checkpoint  # noqa: E402  (ember.save / ember.load: checkpoints of any state)

__all__ = ["save_file", "load_file", "save", "load", "load_metadata", "checkpoint"]
