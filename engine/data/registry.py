"""The data set registry and :func:`load_dataset`, the one entry point for the CLI and the UI."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.core import paths
from engine.core.errors import ConfigError, DataError
from engine.core.safe_open import check_regular
from engine.data import builtin, wordnet
from engine.data.by_name import by_name
from engine.data.convert import convert, stratified_subset
from engine.data.files import load_file, normalise_kind
from engine.data.types import Dataset
from engine.data.vectors import load_npz


@dataclass(frozen=True)
class DatasetSpec:
    """A built-in data set: what it is and how to load it."""

    name: str
    kind: str
    description: str
    loader: Callable[..., Dataset]
    splits: tuple[str, ...] = ()
    default_split: str | None = None
    needs_data_dir: bool = False
    expected: str = ""
    classes: int | None = None  # its number of classes where it is fixed (known without loading the set)

    @property
    def labelled(self) -> bool:
        """Whether it holds a class per item (the probe's data: a labelled set, or NLI pairs' relations)."""
        return self.kind in ("labelled", "nli-pairs")


DATASETS: dict[str, DatasetSpec] = by_name(
    DatasetSpec(
        "demo",
        "labelled",
        "Built-in demo corpus: short sentences on 6+ topics (label_col 'sentiment' for positive/negative)",
        builtin.load_demo,
    ),
    DatasetSpec(
        "demo-pairs",
        "pairs",
        "Built-in sentence pairs with 0-5 similarity scores",
        builtin.load_demo_pairs,
    ),
    DatasetSpec(
        "demo-nli",
        "triples",
        "Built-in (premise, entailment, contradiction) triples",
        builtin.load_demo_nli,
    ),
    DatasetSpec(
        "rt-polarity",
        "labelled",
        "Pang & Lee sentence polarity: 10,662 movie-review snippets, positive/negative",
        builtin.load_rt_polarity,
        needs_data_dir=True,
        expected="rt-polarity/rt-polarity.{pos,neg}",
        classes=2,
    ),
    DatasetSpec(
        "snli",
        "nli-pairs",
        "SNLI 1.0 premise/hypothesis pairs (validation: 9,842; test: 9,824)",
        builtin.load_snli,
        splits=("validation", "test", "train"),
        default_split="validation",
        needs_data_dir=True,
        expected="snli/validation.tsv, snli/test.tsv or snli/dev.jsonl",
        classes=3,
    ),
    DatasetSpec(
        "stsb",
        "pairs",
        "STS Benchmark sentence pairs with gold 0-5 scores (dev: 1,500; train: 5,749)",
        builtin.load_stsb,
        splits=("dev", "train", "test"),
        default_split="dev",
        needs_data_dir=True,
        expected="stsb/sts-dev.csv, stsb/sts-train.csv",
    ),
    DatasetSpec(
        "wiki1m",
        "sentences",
        "SimCSE's unsupervised Wikipedia sentences (wiki/*.txt)",
        builtin.load_wiki1m,
        needs_data_dir=True,
        expected="wiki/*.txt",
    ),
    DatasetSpec(
        "wordnet-pos",
        "labelled",
        "WordNet 3.0 words (77,503) with their set of parts of speech "
        "(multi-label; word-level: static word vectors)",
        wordnet.load_wordnet_pos,
        needs_data_dir=True,
        expected=wordnet.WORDNET_FILE,
    ),
    DatasetSpec(
        "wordnet-supersenses",
        "labelled",
        "WordNet 3.0 words (77,503) with their set of supersenses "
        "(45 labels, multi-label; word-level: static word vectors)",
        wordnet.load_wordnet_supersenses,
        needs_data_dir=True,
        expected=wordnet.WORDNET_FILE,
    ),
    DatasetSpec(
        "wordnet-noun-supersenses",
        "labelled",
        "WordNet 3.0 nouns (55,191) with their set of noun supersenses "
        "(26 labels, multi-label; word-level: static word vectors; the isotropy paper's setup (iv))",
        wordnet.load_wordnet_noun_supersenses,
        needs_data_dir=True,
        expected=wordnet.WORDNET_FILE,
    ),
)


def labelled_sets() -> list[str]:
    """The built-in sets that hold a class per item, in the registry's order (the probe's data choices)."""
    return [name for name, spec in DATASETS.items() if spec.labelled]


def known_classes(name: str) -> int | None:
    """The number of classes of built-in set ``name`` where it is fixed (None: unknown without loading)."""
    spec = DATASETS.get(name)
    return None if spec is None else spec.classes


def load_dataset(
    name_or_path: str | os.PathLike,
    *,
    data_dir: str | os.PathLike | None = None,
    text_col: str | None = None,
    label_col: str | None = None,
    kind: str | None = None,
    split: str | None = None,
    limit: int | None = None,
    seed: int = 0,
    max_rows: int | None = None,
) -> Dataset:
    """Load a built-in set by name (see :data:`DATASETS`) or a user file by path (a ``.npz`` of embeddings
    and labels gives :class:`~engine.data.types.LabelledVectors`, :func:`engine.data.vectors.load_npz`).

    ``kind`` converts (e.g. NLI pairs -> ``"triples"``, anything -> ``"sentences"``) or, for files, picks
    which columns to read; ``limit`` takes a seeded (stratified for labelled data) subset;
    ``max_rows`` caps user files (default 200,000 or ``$EMBEDLAB_MAX_ROWS``).
    """
    target = normalise_kind(kind)
    if limit is not None and (isinstance(limit, bool) or int(limit) != limit or limit < 1):
        raise ConfigError(f"limit must be a positive whole number, got {limit!r}")
    key = str(name_or_path).strip().lower() if isinstance(name_or_path, str) else None
    spec = DATASETS.get(key) if key else None
    if spec is not None:
        if text_col:
            raise ConfigError(f"{spec.name}: text_col is only for user files (got {text_col!r})")
        ds = spec.loader(paths.data_dir(data_dir), split=split, label_col=label_col)
    else:
        path = _user_path(name_or_path, split)
        if path.suffix.lower() == ".npz":
            if text_col or label_col or target is not None:
                raise ConfigError(
                    f"{path.name}: an .npz file holds embeddings and labels; text_col, label_col "
                    "and kind do not apply"
                )
            ds = load_npz(path)
        else:
            ds = load_file(path, text_col=text_col, label_col=label_col, kind=target, max_rows=max_rows)
    if target is not None:
        ds = convert(ds, target)
    if limit is not None:
        ds = stratified_subset(ds, int(limit), seed)
    return ds


def _user_path(name_or_path: str | os.PathLike, split: str | None) -> Path:
    text = str(name_or_path).strip()
    if not text:
        raise DataError(f"no data set given (choose one of {', '.join(DATASETS)} or a file path)")
    path = Path(text).expanduser()
    if not path.exists():
        raise DataError(
            f"{text!r} is neither a built-in data set ({', '.join(DATASETS)}) nor an existing file"
        )
    if path.is_dir():
        raise DataError(
            f"{text}: is a folder; give a CSV/TSV/JSONL/TXT/NPZ file (or --data-dir for built-in sets)"
        )
    check_regular(path, hint="give a CSV/TSV/JSONL/TXT/NPZ file")  # a named pipe would block its reader
    if split:
        raise ConfigError(f"{path.name}: split applies to built-in data sets only (got {split!r})")
    return path


def describe() -> list[dict]:
    """One row per built-in set (name, kind, description, splits) for listings."""
    return [
        {"name": s.name, "kind": s.kind, "description": s.description, "splits": list(s.splits)}
        for s in DATASETS.values()
    ]
