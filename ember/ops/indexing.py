"""The indexing op family."""

__all__ = []
