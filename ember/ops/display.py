"""The display op family."""

__all__ = []
