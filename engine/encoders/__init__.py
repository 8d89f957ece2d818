"""Sentence encoders: loading (bundled, saved, folder, hub), pooling, encoding, the embedding cache, storage.

Public API (see CONTRACTS.md, engine.encoders): :func:`load_encoder`, :class:`Encoder`, :data:`POOLERS`,
:func:`make_mlp`, :func:`encode_cached`, :func:`save_encoder`, :func:`list_encoders`,
:func:`rename_encoder`, :func:`delete_encoder`, :class:`EncoderInfo`.
"""

from engine.encoders.cache import cache_key, encode_cached
from engine.encoders.encoder import Encoder
from engine.encoders.loading import BUNDLED_ID, BUNDLED_NAME, bundled_path, load_encoder
from engine.encoders.pooling import POOLERS, PoolerSpec, check_pooling, make_mlp, masked_mean
from engine.encoders.store import EncoderInfo, delete_encoder, list_encoders, rename_encoder, save_encoder

__all__ = [
    "BUNDLED_ID",
    "BUNDLED_NAME",
    "POOLERS",
    "Encoder",
    "EncoderInfo",
    "PoolerSpec",
    "bundled_path",
    "cache_key",
    "check_pooling",
    "delete_encoder",
    "encode_cached",
    "list_encoders",
    "load_encoder",
    "make_mlp",
    "masked_mean",
    "rename_encoder",
    "save_encoder",
]
