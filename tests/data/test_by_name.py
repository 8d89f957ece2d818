"""engine.data.by_name: the registries keyed by name, in order, a name given twice refused."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from engine.data.by_name import by_name
from engine.data.guide import GUIDES
from engine.data.registry import DATASETS


def test_entries_are_keyed_by_name_in_order_and_a_twice_given_name_is_refused() -> None:
    a, b = SimpleNamespace(name="a"), SimpleNamespace(name="b")
    assert list(by_name(b, a).items()) == [("b", b), ("a", a)]
    with pytest.raises(ValueError, match="'a' is declared twice"):
        by_name(a, b, SimpleNamespace(name="a"))


def test_the_registries_key_each_entry_by_its_own_name() -> None:
    for registry in (DATASETS, GUIDES):
        assert all(key == entry.name for key, entry in registry.items())
    assert list(DATASETS)[:3] == ["demo", "demo-pairs", "demo-nli"]
