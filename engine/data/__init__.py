"""Data sets for embedlab: built-ins (demo corpus, rt-polarity, SNLI, STS-B, wiki1m, WordNet words) and user
files (tables, and ``.npz`` archives of embeddings with labels).

Public API::

    load_dataset(name_or_path, *, data_dir=None, text_col=None, label_col=None, kind=None, split=None,
                 limit=None, seed=0, max_rows=None)
        -> LabelledTexts | ScoredPairs | NliPairs | NliTriples | Sentences | LabelledVectors (from a .npz)
    load_npz(path_or_bytes, name=None) -> LabelledVectors   (checked; one DataError line per problem)
    read_word_vectors(path, words) -> FoundVectors           (word2vec/GloVe text)
    DATASETS: dict[str, DatasetSpec]
    read_table(path) -> DataFrame;  guess_columns(df) -> ColumnGuess
    stratified_subset(ds, limit, seed);  to_triples(ds);  to_pairs(ds);  to_sentences(ds)

The words figures use for data sets are in :mod:`~engine.data.names`; uploads kept in ``cache/uploads/`` in
:mod:`~engine.data.uploads`.
"""

from engine.data.columns import ColumnGuess, guess_columns
from engine.data.convert import convert, stratified_subset, to_pairs, to_sentences, to_triples
from engine.data.files import from_frame, load_file
from engine.data.formats import read_table
from engine.data.registry import DATASETS, DatasetSpec, describe, load_dataset
from engine.data.types import (
    KINDS,
    Dataset,
    LabelledTexts,
    LabelledVectors,
    LabelledWords,
    NliPairs,
    NliTriples,
    ScoredPairs,
    Sentences,
)
from engine.data.vectors import FoundVectors, load_npz, read_word_vectors

__all__ = [
    "DATASETS",
    "KINDS",
    "ColumnGuess",
    "Dataset",
    "DatasetSpec",
    "FoundVectors",
    "LabelledTexts",
    "LabelledVectors",
    "LabelledWords",
    "NliPairs",
    "NliTriples",
    "ScoredPairs",
    "Sentences",
    "convert",
    "describe",
    "from_frame",
    "guess_columns",
    "load_dataset",
    "load_file",
    "load_npz",
    "read_table",
    "read_word_vectors",
    "stratified_subset",
    "to_pairs",
    "to_sentences",
    "to_triples",
]
