"""The data registries' shape: entries keyed by their ``name``."""

from __future__ import annotations

from typing import Protocol, TypeVar


class Named(Protocol):
    name: str


T = TypeVar("T", bound=Named)


def by_name(*entries: T) -> dict[str, T]:
    """``entries`` keyed by their ``name``, in order; a name given twice is a programming error."""
    found: dict[str, T] = {}
    for entry in entries:
        if entry.name in found:
            raise ValueError(f"{entry.name!r} is declared twice")
        found[entry.name] = entry
    return found
