"""``wordnet-noun-supersenses``: the nouns of WordNet 3.0 with their noun supersense sets (26 labels), and
the preset "Isotropy paper, setup (iv), nouns" (a seeded sample of 2,275 nouns, the paper's Table 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.data import DATASETS, load_dataset
from engine.data.wordnet import noun_supersenses

ROWS = [
    ("bank", "noun verb", "noun.artifact noun.group verb.motion"),
    ("run", "noun verb", "noun.act verb.motion"),
    ("quickly", "adv", "adv.all"),
    ("green", "adj noun verb", "adj.all noun.attribute noun.location verb.change"),
]


def _write(root: Path) -> Path:
    (root / "wordnet").mkdir(parents=True)
    lines = ["word\tpos\tsupersenses\tsynsets", *(f"{w}\t{p}\t{s}\t1" for w, p, s in ROWS)]
    (root / "wordnet" / "wordnet-words.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_only_nouns_and_only_their_noun_supersenses(tmp_path: Path) -> None:
    ds = load_dataset("wordnet-noun-supersenses", data_dir=_write(tmp_path))
    assert ds.name == "wordnet-noun-supersenses" and ds.is_multilabel
    assert list(ds.texts) == ["bank", "run", "green"]
    assert list(ds.labels) == [
        ("noun.artifact", "noun.group"),
        ("noun.act",),
        ("noun.attribute", "noun.location"),
    ]
    assert DATASETS["wordnet-noun-supersenses"].kind == "labelled"
    assert noun_supersenses(["x"], [("noun",)], [("verb.motion",)]) == ([], [])  # no noun sense: not kept


def test_the_real_noun_set_has_26_labels(shared_data: Path) -> None:
    if not (shared_data / "wordnet" / "wordnet-words.tsv").is_file():
        pytest.skip(f"{shared_data}/wordnet/wordnet-words.tsv absent")
    ds = load_dataset("wordnet-noun-supersenses", data_dir=shared_data)
    labels = {name for label_set in ds.labels for name in label_set}
    assert len(ds) == 55_191 and len(labels) == 26 and all(name.startswith("noun.") for name in labels)
    assert len(set(ds.labels)) == 1_846 and {"noun.Tops", "noun.time"} <= labels
    bank = list(ds.texts).index("bank")
    assert all(label.startswith("noun.") for label in ds.labels[bank]) and len(ds.labels[bank]) == 5


def test_the_nouns_preset_is_a_seeded_sample_of_2275_words(shared_data: Path) -> None:
    if not (shared_data / "wordnet" / "wordnet-words.tsv").is_file():
        pytest.skip(f"{shared_data}/wordnet/wordnet-words.tsv absent")
    from engine.experiments import EXPERIMENTS
    from engine.lessons import presets
    from engine.probe import build_problem

    preset = presets.presets()["Isotropy paper, setup (iv), nouns"]
    ((_, fields),) = preset.configs({"seed": 0, "data_dir": str(shared_data)})
    config = EXPERIMENTS["probe"].make_config(**{**fields, "data_dir": str(shared_data)})
    assert (config.data, config.limit, config.objective) == ("wordnet-noun-supersenses", 2275, "classifier")
    problem = build_problem(config, encode=None)
    assert problem.n_items == 2275 and problem.multi_label and problem.targets.shape == (2275, 26)
    again = build_problem(config, encode=None)
    assert list(again.texts) == list(problem.texts)  # the seed fixes the sample
