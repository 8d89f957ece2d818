"""Fixtures for the training core's tests: the suite's tiny random BERT (tests/conftest.py) and SimCSE's fast
configs (a concrete config of the training core: any experiment that trains an encoder has these fields)."""

from __future__ import annotations

from tests.simcse.conftest import _fresh_cache_per_test, tiny_config  # noqa: F401 - fixtures reused
