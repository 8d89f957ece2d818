"""What the other parts read of a knob is declared on the knob (issue 50, item 2): whether it enters a run's
name, is recorded with a lesson's figures, names a data file a sweep checks, or is a choice a page composes
itself; no central list of field names says it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.core.knobs import knob, knobs
from engine.data.registry import known_classes, labelled_sets
from engine.experiments import EXPERIMENTS

REPO = Path(__file__).resolve().parents[2]


def _names(attribute: str) -> dict[str, set[str]]:
    return {
        kind: {item.name for item in knobs(e.config_class) if getattr(item, attribute)}
        for kind, e in EXPERIMENTS.items()
    }


def test_the_knobs_say_what_the_four_lists_said() -> None:
    unnamed = {
        kind: {item.name for item in knobs(e.config_class) if not item.named}
        for kind, e in EXPERIMENTS.items()
    }
    assert unnamed["simcse"] == {
        "data_dir", "device", "eval_every", "eval_limit", "probe", "probe_limit", "precision",
        "snapshot_every", "save_encoder", "replace_encoder",
    }  # fmt: skip
    assert unnamed["probe"] == {
        "data_dir", "device", "metric_every", "geometry_every", "snapshot_every", "snapshot_limit"
    }  # fmt: skip
    recorded = set().union(*_names("recorded").values())
    assert recorded == {
        "steps", "lr", "batch_size", "eval_every", "metric_every", "train", "eval", "eval_limit", "pooler",
        "view", "data", "dropout",
    }  # fmt: skip
    assert set().union(*_names("data_file").values()) == {"data", "train", "eval", "probe", "vectors"}
    assert _names("composed") == {
        "probe": {"data", "label_col"},
        "simcse": {"probe", "encoder"},
        "jepa": {"probe", "encoder"},
    }


@pytest.mark.parametrize(
    "path, name",
    [
        ("engine/runlog/naming.py", "UNNAMED"),
        ("engine/lessons/numbers.py", "SETTINGS"),
        ("engine/sweep/grid.py", "FILE_KNOBS"),
        ("ui/fields.py", "COMPOSED"),
    ],
)
def test_no_central_list_of_knob_names_is_left(path: str, name: str) -> None:
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    assigned = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    assert name not in assigned


def test_a_composed_knob_is_one_its_page_draws() -> None:
    with pytest.raises(ValueError, match="widget='page'"):
        knob("x", help="a text", composed="text")
    with pytest.raises(ValueError, match="one of"):
        knob("x", help="a text", widget="page", composed="dial")


def test_the_probe_pages_data_choices_come_from_the_data_registry() -> None:
    """Every built-in labelled set, the faithful setup (iv)'s noun supersenses included; the class counts
    known without loading a set are the registry's."""
    assert labelled_sets()[0] == "demo"
    assert {"rt-polarity", "snli", "wordnet-pos", "wordnet-supersenses", "wordnet-noun-supersenses"} <= set(
        labelled_sets()
    )
    assert "stsb" not in labelled_sets() and "wiki1m" not in labelled_sets()
    assert (known_classes("rt-polarity"), known_classes("snli"), known_classes("demo")) == (2, 3, None)
    page = (REPO / "views" / "isotropy.py").read_text(encoding="utf-8")
    assert "labelled_sets()" in page and '"wordnet-pos"' not in page and "CLASSES" not in page
