"""The movement op family."""

__all__ = []
