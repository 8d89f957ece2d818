"""Loaders of the built-in data sets: the demo corpus shipped in the package, and the real sets read in
their original formats from the data folder (``--data-dir`` / ``$EMBEDLAB_DATA_DIR``), with the Hugging
Face hub as the fallback when the folder lacks them.

Each loader: ``loader(data_dir: Path | None, split: str | None, label_col: str | None) -> Dataset``.

Formats (see ``../shared/data/*/PROVENANCE.md``):
- rt-polarity: ``rt-polarity.{pos,neg}``, one sentence per line, Windows-1252 bytes (decoded as cp1252,
  latin-1 if that fails), split on ``\\n`` only (latin-1 0x85 is U+0085, which ``splitlines`` would split on).
- snli: ``validation.tsv`` / ``test.tsv`` (CSV-quoted TSV, labels 0/1/2) or ``dev.jsonl`` (named labels),
  or the original ``snli_1.0_*.jsonl`` (sentence1/sentence2/gold_label); gold label "-" dropped.
- stsb: ``sts-{train,dev,test}.csv``: tab-separated *without* quoting (sentences contain ``"``), score in
  column 5, sentences in 6-7, some rows with extra trailing fields.
- wiki1m: ``wiki/*.txt``, one sentence per line (SimCSE's ``wiki1m_for_simcse.txt`` or a prefix of it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from engine.core.errors import ConfigError, DataError
from engine.core.safe_open import read_regular
from engine.data import download
from engine.data.files import from_frame
from engine.data.formats import read_table
from engine.data.layouts import read_sts_csv
from engine.data.types import Dataset, LabelledTexts, NliPairs, ScoredPairs, Sentences

DEMO_DIR = Path(__file__).resolve().parent / "demo"
NO_CAP = 10**8  # built-in sets are not subject to the upload row cap
DEMO_LABELS = ("topic", "sentiment")


# ------------------------------------------------------------------------------------------- helpers
def _first_existing(data_dir: Path | None, candidates: list[str]) -> Path | None:
    if data_dir is None:
        return None
    for rel in candidates:
        hits = sorted(data_dir.glob(rel)) if any(ch in rel for ch in "*?[") else [data_dir / rel]
        hits = [p for p in hits if p.is_file()]
        if hits:
            return hits[0]
    return None


def _hub_files(name: str, data_dir: Path | None, expected: str, repo: str, files: list[str]) -> list[Path]:
    """Hub copies of ``files`` (from the cache when present); a fast DataError when the hub is out of
    reach."""
    cached = [download.cached_file(repo, f) for f in files]
    if all(p is not None for p in cached):
        return cached  # type: ignore[return-value]
    if not download.hub_reachable(repo):
        where = f"in {data_dir}" if data_dir else "(no --data-dir given and EMBEDLAB_DATA_DIR unset)"
        state = "offline (HF_HUB_OFFLINE=1)" if download.hub_offline() else "unreachable"
        raise DataError(
            f"{name}: not found {where} (expected {expected}) and the Hugging Face hub is {state}; "
            f"pass --data-dir DIR, a folder holding {expected}"
        )
    return [download.fetch(repo, f, what=name) for f in files]


def _read_lines(path: Path, encoding: str = "utf-8") -> list[str]:
    """Non-empty stripped lines, split on ``\\n`` only."""
    raw = read_regular(path)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError:
        if encoding != "cp1252":
            raise DataError(f"{path.name}: not {encoding} text") from None
        text = raw.decode("latin-1")
    text = text.lstrip("\ufeff")
    return [line.strip() for line in text.split("\n") if line.strip()]


def _split(name: str, split: str | None, allowed: dict[str, str], default: str) -> str:
    if split in (None, ""):
        return default
    key = str(split).strip().lower()
    if key not in allowed:
        raise ConfigError(f"{name}: unknown split {split!r} (choose from {', '.join(sorted(set(allowed)))})")
    return allowed[key]


def _no_label_col(name: str, label_col: str | None) -> None:
    if label_col:
        raise ConfigError(f"{name}: label_col is only for the demo and user files (got {label_col!r})")


# -------------------------------------------------------------------------------------------- demo
def _demo_file(filename: str) -> Path:
    path = DEMO_DIR / filename
    if not path.is_file():
        raise DataError(
            f"demo: the demo corpus file engine/data/demo/{filename} is missing (incomplete install?)"
        )
    return path


def load_demo(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> Dataset:
    """The built-in topic corpus: labels = topic (default) or sentiment (positive/negative)."""
    label = (label_col or "topic").strip().lower()
    if label not in DEMO_LABELS:
        raise ConfigError(f"demo: label_col must be one of {', '.join(DEMO_LABELS)} (got {label_col!r})")
    path = _demo_file("topics.jsonl")
    return from_frame(
        read_table(path, max_rows=NO_CAP),
        fname=path.name,
        name="demo" if label == "topic" else "demo-sentiment",
        text_col="text",
        label_col=label,
        kind="labelled",
        source=str(path),
    )


def load_demo_pairs(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> Dataset:
    """The built-in STS-style pairs (sentence1, sentence2, score 0-5)."""
    _no_label_col("demo-pairs", label_col)
    path = _demo_file("pairs.jsonl")
    return from_frame(
        read_table(path, max_rows=NO_CAP), fname=path.name, name="demo-pairs", kind="pairs", source=str(path)
    )


def load_demo_nli(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> Dataset:
    """The built-in (premise, entailment, contradiction) triples."""
    _no_label_col("demo-nli", label_col)
    path = _demo_file("nli.jsonl")
    return from_frame(
        read_table(path, max_rows=NO_CAP), fname=path.name, name="demo-nli", kind="triples", source=str(path)
    )


# ------------------------------------------------------------------------------------- rt-polarity
RT_REPO = "cornell-movie-review-data/rotten_tomatoes"
RT_HUB_FILES = ["train.parquet", "validation.parquet", "test.parquet"]


def load_rt_polarity(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> LabelledTexts:
    """Pang & Lee sentence polarity v1.0: 5,331 positive + 5,331 negative snippets (no split)."""
    _no_label_col("rt-polarity", label_col)
    _split("rt-polarity", split, {"all": "all", "train": "all"}, "all")
    pos = _first_existing(
        data_dir, ["rt-polarity/rt-polarity.pos", "rt-polaritydata/rt-polarity.pos", "rt-polarity.pos"]
    )
    if pos is not None:
        neg = pos.with_suffix(".neg")
        if not neg.is_file():
            raise DataError(f"rt-polarity: {neg} is missing (found {pos.name})")
        texts_pos, texts_neg = _read_lines(pos, "cp1252"), _read_lines(neg, "cp1252")
        texts = texts_pos + texts_neg
        labels = ["positive"] * len(texts_pos) + ["negative"] * len(texts_neg)
        return LabelledTexts("rt-polarity", texts, labels, source=str(pos.parent))
    files = _hub_files("rt-polarity", data_dir, "rt-polarity/rt-polarity.pos", RT_REPO, RT_HUB_FILES)
    frame = pd.concat([pd.read_parquet(p) for p in files], ignore_index=True)
    labels = ["positive" if int(v) == 1 else "negative" for v in frame["label"]]
    texts = [str(t).strip() for t in frame["text"]]
    return LabelledTexts("rt-polarity", texts, labels, source=f"hf://datasets/{RT_REPO}")


# -------------------------------------------------------------------------------------------- snli
SNLI_REPO = "stanfordnlp/snli"
SNLI_SPLITS = {"validation": "validation", "dev": "validation", "test": "test", "train": "train"}
SNLI_LOCAL = {
    "validation": [
        "snli/validation.tsv",
        "snli/dev.jsonl",
        "snli/validation.jsonl",
        "snli/snli_1.0_dev.jsonl",
        "snli_1.0/snli_1.0_dev.jsonl",
    ],
    "test": ["snli/test.tsv", "snli/test.jsonl", "snli/snli_1.0_test.jsonl", "snli_1.0/snli_1.0_test.jsonl"],
    "train": [
        "snli/train.tsv",
        "snli/train.jsonl",
        "snli/snli_1.0_train.jsonl",
        "snli_1.0/snli_1.0_train.jsonl",
    ],
}


def load_snli(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> NliPairs:
    """SNLI 1.0 pairs of a split (validation: 9,842 gold-labelled pairs; test: 9,824)."""
    _no_label_col("snli", label_col)
    split = _split("snli", split, SNLI_SPLITS, "validation")
    name = f"snli-{split}"
    path = _first_existing(data_dir, SNLI_LOCAL[split])
    if path is not None:
        frame = read_table(path, max_rows=NO_CAP, sep="\t" if path.suffix == ".tsv" else None)
        return from_frame(frame, fname=path.name, name=name, kind="nli-pairs", source=str(path))
    filename = f"plain_text/{split}-00000-of-00001.parquet"
    (file,) = _hub_files("snli", data_dir, SNLI_LOCAL[split][0], SNLI_REPO, [filename])
    frame = pd.read_parquet(file)
    return from_frame(
        frame, fname=filename, name=name, kind="nli-pairs", source=f"hf://datasets/{SNLI_REPO}/{filename}"
    )


# -------------------------------------------------------------------------------------------- stsb
STSB_REPO = "sentence-transformers/stsb"
STSB_SPLITS = {"dev": "dev", "validation": "dev", "train": "train", "test": "test"}
STSB_HUB_SPLIT = {"dev": "validation", "train": "train", "test": "test"}


def load_stsb(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> ScoredPairs:
    """STS Benchmark pairs with gold scores 0-5 (dev: 1,500; train: 5,749; test: 1,379)."""
    _no_label_col("stsb", label_col)
    split = _split("stsb", split, STSB_SPLITS, "dev")
    name = f"stsb-{split}"
    path = _first_existing(
        data_dir, [f"stsb/sts-{split}.csv", f"stsbenchmark/sts-{split}.csv", f"sts-{split}.csv"]
    )
    if path is not None:
        left, right, scores = read_sts_csv(path)
        return ScoredPairs(name, left, right, scores, source=str(path))
    filename = f"data/{STSB_HUB_SPLIT[split]}-00000-of-00001.parquet"
    (file,) = _hub_files("stsb", data_dir, f"stsb/sts-{split}.csv", STSB_REPO, [filename])
    frame = pd.read_parquet(file)  # this copy has scores normalised to 0-1
    return ScoredPairs(
        name,
        frame["sentence1"].astype(str).tolist(),
        frame["sentence2"].astype(str).tolist(),
        frame["score"].to_numpy(dtype=np.float64) * 5.0,
        source=f"hf://datasets/{STSB_REPO}/{filename}",
    )


# ------------------------------------------------------------------------------------------ wiki1m
WIKI_REPO = "princeton-nlp/datasets-for-simcse"
WIKI_FILE = "wiki1m_for_simcse.txt"


def load_wiki1m(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> Sentences:
    """SimCSE's unsupervised corpus: one Wikipedia sentence per line (all ``wiki/*.txt`` files, sorted)."""
    _no_label_col("wiki1m", label_col)
    _split("wiki1m", split, {"train": "train"}, "train")
    files: list[Path] = []
    if data_dir is not None:
        files = sorted(p for p in (data_dir / "wiki").glob("*.txt") if p.is_file())
        if not files and (data_dir / WIKI_FILE).is_file():
            files = [data_dir / WIKI_FILE]
    if files:
        texts = [line for path in files for line in _read_lines(path)]
        if not texts:
            raise DataError(f"wiki1m: {files[0].parent} has only empty .txt files")
        return Sentences("wiki1m", texts, source=str(files[0].parent))
    (file,) = _hub_files("wiki1m", data_dir, "wiki/*.txt", WIKI_REPO, [WIKI_FILE])
    return Sentences("wiki1m", _read_lines(file), source=f"hf://datasets/{WIKI_REPO}/{WIKI_FILE}")
