"""The elementwise op family."""

__all__ = []
