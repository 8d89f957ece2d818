"""How to get the real data sets (rt-polarity, SNLI, STS-B, wiki1m): where they come from, which files the
loaders expect and where (:mod:`engine.data.builtin`), whether this machine has them, and a download of the
Hugging Face hub copies the loaders fall back on (:mod:`engine.data.download`).

The Data & encoders page draws :data:`GUIDES` ("Get the data"); :func:`status` looks at the data folder and
the hub cache without the network; :func:`download` fetches a set's hub files into ``cache/datasets``, after
which the set loads even without a data folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.core import paths
from engine.core.errors import DataError
from engine.data import builtin, download
from engine.data.by_name import by_name


@dataclass(frozen=True)
class DataGuide:
    """One real data set: what it is, where it comes from, the files and folder layout the loader expects
    (``local``: paths inside the data folder, any one of them; globs allowed), and its hub copy."""

    name: str
    title: str
    used_for: str
    source: str
    citation: str
    license: str
    layout: str
    local: tuple[str, ...]
    hub_repo: str
    hub_files: tuple[str, ...]
    hub_size: str
    notes: str = ""


GUIDES: dict[str, DataGuide] = by_name(
    DataGuide(
        "rt-polarity",
        "rt-polarity — Pang & Lee sentence polarity v1.0 (movie reviews)",
        "the Isotropy page (Data: rt-polarity) and its preset “Isotropy paper, setup (i)”",
        "http://www.cs.cornell.edu/people/pabo/movie-review-data/ (rt-polaritydata.tar.gz, "
        "“sentence polarity dataset v1.0”); also in the GitHub repository yoonkim/CNN_sentence",
        "Pang & Lee (2005), “Seeing stars: Exploiting class relationships for sentiment categorization "
        "with respect to rating scales”, ACL 2005",
        "no formal license; distributed freely by the authors for research (cite the paper)",
        "rt-polarity/\n"
        "  rt-polarity.pos   5,331 positive snippets, one per line (Windows-1252 bytes, as distributed)\n"
        "  rt-polarity.neg   5,331 negative snippets, one per line",
        ("rt-polarity/rt-polarity.pos", "rt-polaritydata/rt-polarity.pos", "rt-polarity.pos"),
        builtin.RT_REPO,
        tuple(builtin.RT_HUB_FILES),
        "about 0.7 MB",
        "Unpack the archive and rename its folder rt-polaritydata/ to rt-polarity/ (both names are read).",
    ),
    DataGuide(
        "snli",
        "SNLI 1.0 — Stanford Natural Language Inference (validation and test pairs)",
        "the Isotropy page (Data: snli, the paper's setup (ii)) and supervised SimCSE "
        "(training on NLI triples)",
        "https://nlp.stanford.edu/projects/snli/ (snli_1.0.zip)",
        "Bowman, Angeli, Potts & Manning (2015), “A large annotated corpus for learning natural language "
        "inference”, EMNLP 2015",
        "CC BY-SA 4.0 (Stanford NLP Group)",
        "snli/\n"
        "  validation.tsv    premise<TAB>hypothesis<TAB>label "
        "(0 entailment, 1 neutral, 2 contradiction)\n"
        "  test.tsv          the same for the test split\n"
        "  (or the original snli_1.0_dev.jsonl / snli_1.0_test.jsonl / snli_1.0_train.jsonl, "
        "or dev.jsonl)",
        (
            "snli/validation.tsv",
            "snli/dev.jsonl",
            "snli/validation.jsonl",
            "snli/snli_1.0_dev.jsonl",
            "snli_1.0/snli_1.0_dev.jsonl",
        ),
        builtin.SNLI_REPO,
        ("plain_text/validation-00000-of-00001.parquet", "plain_text/test-00000-of-00001.parquet"),
        "about 1.3 MB",
        "Pairs whose gold label is “-” are dropped (9,842 validation pairs). Supervised SimCSE on the "
        "full training split needs snli_1.0_train.jsonl (550k pairs).",
    ),
    DataGuide(
        "stsb",
        "STS-B — the STS Benchmark (sentence pairs scored 0–5)",
        "the SimCSE page: STS Spearman, alignment and uniformity are measured on STS-B dev when the data "
        "folder holds it (else on the built-in demo pairs)",
        "http://ixa2.si.ehu.eus/stswiki (Stsbenchmark.tar.gz)",
        "Cer, Diab, Agirre, Lopez-Gazpio & Specia (2017), "
        "“SemEval-2017 Task 1: Semantic Textual Similarity”, SemEval 2017",
        "scores CC BY-SA 4.0; each sentence keeps its source's license (see the archive's LICENSE.txt)",
        "stsb/\n"
        "  sts-dev.csv       1,500 pairs: genre file year id score sentence1 sentence2 "
        "(tab-separated, no header)\n"
        "  sts-train.csv     5,749 pairs, the same columns\n"
        "  sts-test.csv      1,379 pairs (optional)",
        ("stsb/sts-dev.csv", "stsbenchmark/sts-dev.csv", "sts-dev.csv"),
        builtin.STSB_REPO,
        (
            "data/validation-00000-of-00001.parquet",
            "data/train-00000-of-00001.parquet",
            "data/test-00000-of-00001.parquet",
        ),
        "about 1 MB",
        "Unpack the archive and rename stsbenchmark/ to stsb/ (both names are read). "
        "The hub copy's scores are 0–1 and are read × 5.",
    ),
    DataGuide(
        "wiki1m",
        "wiki1m — SimCSE's one million Wikipedia sentences",
        "the SimCSE page: unsupervised training data (Training data: auto) when the data folder holds it",
        "https://huggingface.co/datasets/princeton-nlp/datasets-for-simcse (wiki1m_for_simcse.txt), "
        "released with github.com/princeton-nlp/SimCSE",
        "Gao, Yao & Chen (2021), “SimCSE: Simple Contrastive Learning of Sentence Embeddings”, EMNLP 2021",
        "Wikipedia text: CC BY-SA 3.0 (and GFDL); the SimCSE release is MIT-licensed",
        "wiki/\n"
        "  wiki1m_for_simcse.txt   one sentence per line "
        "(every *.txt file of wiki/ is read, in name order;\n"
        "                          a prefix of the file is enough for short runs)",
        ("wiki/*.txt", "wiki1m_for_simcse.txt"),
        builtin.WIKI_REPO,
        (builtin.WIKI_FILE,),
        "about 120 MB",
    ),
)


def folder_copy(name: str, data_dir: str | Path | None) -> Path | None:
    """The file of set ``name`` the loader would read from the data folder, or None."""
    folder = paths.data_dir(data_dir)
    if folder is None or not folder.is_dir():
        return None
    for pattern in GUIDES[name].local:
        hits = (
            sorted(p for p in folder.glob(pattern) if p.is_file())
            if any(c in pattern for c in "*?[")
            else [p for p in [folder / pattern] if p.is_file()]
        )
        if hits:
            return hits[0]
    return None


def cached_copy(name: str) -> bool:
    """Whether every hub file of set ``name`` is in the lab's download cache (no network used)."""
    guide = GUIDES[name]
    return all(download.cached_file(guide.hub_repo, f) is not None for f in guide.hub_files)


def status(name: str, data_dir: str | Path | None) -> str:
    """Where set ``name`` would be read from, in words: the data folder, the download cache, or nowhere."""
    found = folder_copy(name, data_dir)
    if found is not None:
        return f"found in the data folder: {found}"
    if cached_copy(name):
        return "downloaded: the copy from the Hugging Face hub is in the lab's cache"
    return "missing: not in the data folder and not downloaded"


def offline() -> bool:
    """Whether the lab is set to work offline (then no download is tried); no network used."""
    return download.hub_offline()


def download_set(name: str) -> list[Path]:
    """Download the hub files of set ``name`` into the lab's cache (``cache/datasets``); afterwards the set
    loads without a data folder. A DataError (one line) when offline, unreachable or on a failed download."""
    guide = GUIDES[name]
    if offline():
        raise DataError(
            f"{name}: the lab works offline, so nothing can be downloaded; copy the files into the "
            "data folder as shown"
        )
    if not download.hub_reachable(guide.hub_repo):
        raise DataError(
            f"{name}: the Hugging Face hub cannot be reached from this machine; copy the files into "
            "the data folder as shown"
        )
    return [download.fetch(guide.hub_repo, filename, what=name) for filename in guide.hub_files]
