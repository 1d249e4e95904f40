"""The sort op family."""

__all__ = []
