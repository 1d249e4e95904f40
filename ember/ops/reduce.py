"""The reduce op family."""

__all__ = []
