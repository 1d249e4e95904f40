"""The linalg op family."""

__all__ = []
