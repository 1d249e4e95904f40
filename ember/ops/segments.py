"""The segments op family."""

__all__ = []
