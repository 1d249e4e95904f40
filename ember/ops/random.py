"""The random op family."""

__all__ = []
