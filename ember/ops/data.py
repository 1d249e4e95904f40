"""The data op family."""

__all__ = []
