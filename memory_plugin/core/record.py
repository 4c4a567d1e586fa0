"""A mutable record compared and shown by its fields, as a dataclass is, without importing dataclasses
(with inspect it cost every recall hook and query ~47M instructions)."""
from __future__ import annotations


class Record:
    """Subclasses name their fields in `_FIELDS` (set in __init__); equality, repr and pattern matching
    follow them, and like a dataclass with eq a record is unhashable."""
    _FIELDS: tuple[str, ...] = ()
    __hash__ = None

    def _values(self) -> tuple:
        return tuple(getattr(self, k) for k in self._FIELDS)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self._FIELDS)})"
