"""WordNet 3.0 words with their parts of speech and supersenses: the isotropy paper's word-level setups
(iii) POS tagging and (iv) supersenses (Mickus, Grönroos & Attieh 2024, section 3), built from WordNet itself
(``../shared/data/wordnet/PROVENANCE.md``: the paper's CoDWoE / Tikhonov et al. data are not available).

File ``wordnet/wordnet-words.tsv`` in the data folder: UTF-8, tab-separated, header
``word<TAB>pos<TAB>supersenses<TAB>synsets``; one row per word (``[a-z]+``), ``pos`` and ``supersenses``
space-separated sorted label sets (POS among noun, verb, adj, adv; 45 supersenses such as
``noun.artifact``), ``synsets`` a positive count. 77,503 rows in the shipped file.

``wordnet-noun-supersenses`` keeps the nouns with their ``noun.*`` supersenses only (26 labels), as the
isotropy paper's setup (iv) (Table 1: 26 labels).

The data sets are multi-label (every label a sorted tuple, even of one name) and word-level
(:class:`~engine.data.types.LabelledWords`): the probe gives each word a static word vector, never a
sentence embedding.
"""

from __future__ import annotations

from pathlib import Path

from engine.core.errors import ConfigError, DataError
from engine.core.safe_open import read_regular
from engine.data.types import LabelledWords

WORDNET_FILE = "wordnet/wordnet-words.tsv"
HEADER = ("word", "pos", "supersenses", "synsets")
POS_NAMES = frozenset({"noun", "verb", "adj", "adv"})
#: label column of each built-in set
COLUMNS = {"wordnet-pos": "pos", "wordnet-supersenses": "supersenses", "wordnet-noun-supersenses": "nouns"}
NOUN = "noun"
#: WordNet 3.0's noun lexicographer files (03 noun.Tops ... 28 noun.time): the 26 noun supersenses
NOUN_SUPERSENSES = 26


def read_wordnet_words(path: Path) -> tuple[list[str], list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Words, POS sets and supersense sets of a ``wordnet-words.tsv`` file; DataError naming the first bad
    line."""
    try:
        text = read_regular(path).decode("utf-8-sig")
    except OSError as err:
        raise DataError(f"{Path(path).name}: cannot read ({err.strerror or err})") from None
    except UnicodeDecodeError as err:
        raise DataError(f"{Path(path).name}: not UTF-8 text (byte offset {err.start})") from None
    lines = text.split("\n")
    name = Path(path).name
    if tuple(field.strip() for field in lines[0].rstrip("\r").split("\t")) != HEADER:
        raise DataError(f"{name}: the header must be {'<TAB>'.join(HEADER)} (got {lines[0][:80]!r})")
    words: list[str] = []
    pos: list[tuple[str, ...]] = []
    senses: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for number, line in enumerate(lines[1:], start=2):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 4:
            raise DataError(f"{name}: line {number} has {len(fields)} tab-separated fields, expected 4")
        word = fields[0].strip()
        pos_set = tuple(sorted(set(fields[1].split())))
        sense_set = tuple(sorted(set(fields[2].split())))
        if not word or not pos_set or not sense_set:
            raise DataError(f"{name}: line {number} has an empty word, POS set or supersense set")
        if not set(pos_set) <= POS_NAMES:
            raise DataError(
                f"{name}: line {number}: unknown part of speech {sorted(set(pos_set) - POS_NAMES)} "
                f"(expected {', '.join(sorted(POS_NAMES))})"
            )
        if word in seen:
            raise DataError(f"{name}: line {number}: the word {word!r} appears twice")
        seen.add(word)
        words.append(word)
        pos.append(pos_set)
        senses.append(sense_set)
    if not words:
        raise DataError(f"{name}: no words after the header")
    return words, pos, senses


def load_wordnet(
    which: str, data_dir: Path | None, split: str | None = None, label_col: str | None = None
) -> LabelledWords:
    """``wordnet-pos`` or ``wordnet-supersenses`` (every word of the file with its label set), or
    ``wordnet-noun-supersenses`` (the nouns with their noun supersense sets)."""
    if label_col:
        raise ConfigError(f"{which}: label_col is only for the demo and user files (got {label_col!r})")
    if split not in (None, "", "all", "train"):
        raise ConfigError(f"{which}: unknown split {split!r} (it has one: all)")
    path = data_dir / WORDNET_FILE if data_dir is not None else None
    if path is None or not path.is_file():
        where = (
            f"in {data_dir}" if data_dir is not None else "(no --data-dir given and EMBEDLAB_DATA_DIR unset)"
        )
        raise DataError(
            f"{which}: not found {where} (expected {WORDNET_FILE}); pass --data-dir DIR, a folder "
            f"holding {WORDNET_FILE}"
        )
    words, pos, senses = read_wordnet_words(path)
    if COLUMNS[which] == "nouns":
        words, senses = noun_supersenses(words, pos, senses)
    labels = pos if COLUMNS[which] == "pos" else senses
    return LabelledWords(which, words, list(labels), source=str(path))


def noun_supersenses(
    words: list[str], pos: list[tuple[str, ...]], senses: list[tuple[str, ...]]
) -> tuple[list[str], list[tuple[str, ...]]]:
    """The words that are nouns, each with the set of its ``noun.*`` supersenses (its senses of other parts
    of speech dropped): the isotropy paper's setup (iv), 26 labels (Mickus et al. 2024, Table 1)."""
    kept_words: list[str] = []
    kept_senses: list[tuple[str, ...]] = []
    for word, parts, labels in zip(words, pos, senses, strict=True):
        nouns = tuple(label for label in labels if label.startswith(NOUN + "."))
        if NOUN in parts and nouns:
            kept_words.append(word)
            kept_senses.append(nouns)
    return kept_words, kept_senses


def load_wordnet_pos(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> LabelledWords:
    """WordNet words with their set of parts of speech (noun, verb, adj, adv): 15 distinct sets."""
    return load_wordnet("wordnet-pos", data_dir, split, label_col)


def load_wordnet_supersenses(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> LabelledWords:
    """WordNet words with their set of supersenses (lexicographer files, 45 labels)."""
    return load_wordnet("wordnet-supersenses", data_dir, split, label_col)


def load_wordnet_noun_supersenses(
    data_dir: Path | None = None, split: str | None = None, label_col: str | None = None
) -> LabelledWords:
    """WordNet nouns with their set of noun supersenses (26 labels): :func:`noun_supersenses`."""
    return load_wordnet("wordnet-noun-supersenses", data_dir, split, label_col)
