"""Static word vectors for the probe's word-level setups (the paper's (iii) POS and (iv) supersenses).

The paper optimised word2vec vectors; the lab has no word2vec model, so by default a word's vector is the row
of an encoder's **input embedding table** (``model.embeddings.word_embeddings``, PyTorch's
``get_input_embeddings()``) for the words that its tokenizer keeps as **one word piece** (no sentence encoder
runs: the transformer layers are never applied). With the bundled all-MiniLM-L6-v2 (BERT uncased WordPiece,
30,522 pieces, d = 384) that is 14,307 of WordNet's 77,503 words. ``--vectors FILE`` takes the vectors from a
word2vec/GloVe text file instead (:func:`engine.data.read_word_vectors`). Words without a vector are dropped
(counted in a note).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from engine.data.vectors import FoundVectors, read_word_vectors


def one_piece_ids(tokenizer: object, words: Sequence[str]) -> np.ndarray:
    """The vocabulary id of each word its tokenizer keeps as a single piece (no special tokens), else -1."""
    ids = np.full(len(words), -1, dtype=np.int64)
    if not words:
        return ids
    pieces = tokenizer(list(words), add_special_tokens=False)["input_ids"]  # type: ignore[operator]
    for i, piece in enumerate(pieces):
        if len(piece) == 1:
            ids[i] = piece[0]
    return ids


def table_vectors(words: Sequence[str], encoder: str | None = None) -> FoundVectors:
    """Rows of the input embedding table of ``encoder`` (default: the bundled one) for one-piece words."""
    from engine.encoders import load_encoder

    loaded = load_encoder(encoder, device="cpu")
    ids = one_piece_ids(loaded.tokenizer, words)
    table = loaded.model.get_input_embeddings().weight.detach()
    found = ids >= 0
    rows = torch.from_numpy(ids[found])
    vectors = table[rows].to(torch.float32).numpy().copy()
    return FoundVectors(found, vectors, int(table.shape[1]), lines=int(table.shape[0]))


def word_vectors(
    words: Sequence[str], *, vectors_file: str | None = None, encoder: str | None = None
) -> tuple[FoundVectors, str]:
    """The static vectors of ``words`` and where they come from (for messages)."""
    if vectors_file:
        return read_word_vectors(vectors_file, words), Path(vectors_file).name
    what = encoder or "all-MiniLM-L6-v2"
    return table_vectors(words, encoder), f"the one-piece vocabulary of {what}'s input embedding table"
