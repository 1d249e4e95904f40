"""The slicing op family."""

__all__ = []
