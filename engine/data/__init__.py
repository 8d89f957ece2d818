"""Data sets for embedlab: built-ins (demo corpus, rt-polarity, SNLI, STS-B, wiki1m) and user files.

Public API::

    load_dataset(name_or_path, *, data_dir=None, text_col=None, label_col=None, kind=None, split=None,
                 limit=None, seed=0, max_rows=None) -> LabelledTexts | ScoredPairs | NliPairs | NliTriples | Sentences
    DATASETS: dict[str, DatasetSpec]
    read_table(path) -> DataFrame;  guess_columns(df) -> ColumnGuess
    stratified_subset(ds, limit, seed);  to_triples(ds);  to_pairs(ds);  to_sentences(ds)
"""

from engine.data.convert import convert, stratified_subset, to_pairs, to_sentences, to_triples
from engine.data.files import from_frame, load_file
from engine.data.formats import ColumnGuess, guess_columns, read_table
from engine.data.registry import DATASETS, DatasetSpec, describe, load_dataset
from engine.data.types import KINDS, Dataset, LabelledTexts, NliPairs, NliTriples, ScoredPairs, Sentences

__all__ = [
    "DATASETS", "KINDS", "ColumnGuess", "Dataset", "DatasetSpec", "LabelledTexts", "NliPairs", "NliTriples",
    "ScoredPairs", "Sentences", "convert", "describe", "from_frame", "guess_columns", "load_dataset",
    "load_file", "read_table", "stratified_subset", "to_pairs", "to_sentences", "to_triples",
]
