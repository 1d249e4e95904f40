"""The bitwise op family."""

__all__ = []
