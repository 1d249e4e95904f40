"""The kernel table of docs/internals.md ("Adding a backend"), generated from the base:
``python3 -m ember.backends.base.describe`` prints it (tests/backends/test_base.py checks that
the docs hold what the code declares).

>>> "| core |" in markdown()
True
"""

from . import Backend, _declaring, kernel_names
from .declare import is_required

__all__ = ["families", "markdown"]


def families(cls=Backend):
    """``[(family file, required kernel names, default kernel names)]`` of the backend class
    ``cls``, in declaration order."""
    rows = {}
    for name in kernel_names(cls):
        family = _declaring(cls, name)
        required, defaults = rows.setdefault(family.__module__.rsplit(".", 1)[-1], ([], []))
        (required if is_required(vars(family)[name]) else defaults).append(name)
    return [(f, r, d) for f, (r, d) in rows.items()]


def markdown(cls=Backend):
    """The table: one row per family, its required primitives by name and its defaults'
    count, and the totals."""
    lines = ["| family | required primitives | defaults |", "| --- | --- | --- |"]
    total_required = total_defaults = 0
    for family, required, defaults in families(cls):
        names = ", ".join(f"`{n}`" for n in required) or "none"
        lines.append(f"| {family} | {names} | {len(defaults)} |")
        total_required += len(required)
        total_defaults += len(defaults)
    lines.append(f"| **all** | **{total_required}** | **{total_defaults}** |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
