"""The compare op family."""

__all__ = []
