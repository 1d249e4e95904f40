"""The scan op family."""

__all__ = []
