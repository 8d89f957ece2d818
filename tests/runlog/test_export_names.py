"""Download file names made from run names (engine.runlog.export.file_stem): safe whatever the name."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.core import paths
from engine.runlog import export


def test_a_run_name_becomes_a_readable_file_name() -> None:
    assert export.file_stem("Demo: clusters form (2)") == "Demo-clusters-form-2"
    assert export.file_stem("rt-polarity · dropout 0.1 · 300 steps") == "rt-polarity-dropout-0.1-300-steps"
    assert export.file_stem("???", "probe-20261125-101010-ab12") == "probe-20261125-101010-ab12"


@given(st.text(max_size=200))
def test_a_file_stem_never_leaves_its_folder(name: str) -> None:
    stem = export.file_stem(name, "run")
    assert stem and len(stem) <= paths.MAX_NAME
    assert "/" not in stem and "\\" not in stem and not stem.startswith(".") and ".." not in stem
    assert all(ch.isprintable() and not ch.isspace() for ch in stem)
