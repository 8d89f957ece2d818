"""Embeddings by the encoder's name without loading it (engine/encoders/known.py): a remembered encoder whose
embeddings are cached is not loaded, and what comes back is what a loaded encoder encodes; any change to the
encoder's files, its pooling or the memo itself is a load, never a stale array."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from json_values import json_values

from engine.encoders import known

TEXTS = ["a cat sat on the mat", "stocks fell sharply", "the team won the final", "rain all day"]


def reference(folder: Path, texts: list[str], pooling: str | None = None) -> np.ndarray:
    """What the encoder in ``folder`` encodes, loaded afresh and with no cache in the way."""
    from engine.encoders import load_encoder

    return load_encoder(folder, pooling=pooling, device="cpu").encode(texts)


def test_a_remembered_encoder_with_cached_embeddings_is_not_loaded(tiny_dir: Path, loads: list[str]) -> None:
    first = known.encode_by_name(tiny_dir, TEXTS, device="cpu")
    second = known.encode_by_name(tiny_dir, TEXTS, device="cpu")
    assert loads == [str(tiny_dir)]  # the second call found the fingerprint and the embeddings
    np.testing.assert_array_equal(second, first)
    np.testing.assert_allclose(first, reference(tiny_dir, TEXTS), rtol=0, atol=1e-6)
    other = known.encode_by_name(tiny_dir, TEXTS[:2], device="cpu")  # texts not cached: loaded again
    assert len(loads) == 2
    np.testing.assert_allclose(other, reference(tiny_dir, TEXTS[:2]), rtol=0, atol=1e-6)


def test_the_remembered_fingerprint_is_the_loaded_encoders(tiny_dir: Path) -> None:
    from engine.encoders import load_encoder

    known.encode_by_name(tiny_dir, TEXTS, pooling="cls", device="cpu")
    remembered = known.recall(known.identity(tiny_dir, "cls"))
    encoder = load_encoder(tiny_dir, pooling="cls", device="cpu")
    assert remembered == known.Known(encoder.fingerprint, encoder.hidden_size)
    assert known.recall(known.identity(tiny_dir, "avg")) is None  # another pooling: another encoder


def encoded_then_changed(tiny_dir: Path, folder: Path, changed: Path) -> np.ndarray:
    """The tiny model copied to ``folder`` and encoded by name (the embeddings returned), then its weights
    changed (× −1.5, the same names and sizes) and saved into ``changed``."""
    from transformers import BertModel

    shutil.copytree(tiny_dir, folder)
    before = known.encode_by_name(folder, TEXTS, device="cpu")
    model = BertModel.from_pretrained(folder)
    with torch.no_grad():
        for weight in model.parameters():
            weight.mul_(-1.5)
    model.save_pretrained(changed)
    return before


def test_new_weights_in_the_same_folder_are_loaded_and_encoded_afresh(
    tiny_dir: Path, tmp_path: Path, loads: list[str]
) -> None:
    """A model saved again over its folder (same names, same sizes: only the bytes differ) must not be
    answered with the old weights' embeddings."""
    folder = tmp_path / "model"
    before = encoded_then_changed(tiny_dir, folder, folder)
    after = known.encode_by_name(folder, TEXTS, device="cpu")
    assert loads == [str(folder), str(folder)]
    assert not np.allclose(after, before)
    np.testing.assert_allclose(after, reference(folder, TEXTS), rtol=0, atol=1e-6)


def test_weights_rewritten_in_place_with_their_old_time_are_loaded_afresh(
    tiny_dir: Path, tmp_path: Path, loads: list[str]
) -> None:
    """Issue 47, harmful case 3: ``model.safetensors`` rewritten in place (same size, same inode) and its old
    modification time put back (``touch -r``, ``os.utime``) was answered with the old weights' embeddings."""
    folder, other = tmp_path / "model", tmp_path / "other"
    before = encoded_then_changed(tiny_dir, folder, other)
    weights = folder / "model.safetensors"
    new_bytes, old = (other / "model.safetensors").read_bytes(), weights.stat()
    assert len(new_bytes) == old.st_size
    with open(weights, "r+b") as handle:  # in place: the same inode
        handle.write(new_bytes)
    os.utime(weights, ns=(old.st_atime_ns, old.st_mtime_ns))
    now = weights.stat()
    assert (now.st_ino, now.st_size, now.st_mtime_ns) == (old.st_ino, old.st_size, old.st_mtime_ns)
    after = known.encode_by_name(folder, TEXTS, device="cpu")
    assert loads == [str(folder), str(folder)]
    assert not np.allclose(after, before)
    np.testing.assert_allclose(after, reference(folder, TEXTS), rtol=0, atol=1e-6)


def test_a_touched_file_is_a_new_identity(tiny_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(tiny_dir, folder)
    first = known.identity(folder, None)
    assert first is not None and known.identity(folder, None) == first
    config = folder / "config.json"
    config.write_text(config.read_text())  # the same bytes, written again (a second later)
    os.utime(config, ns=(config.stat().st_atime_ns, config.stat().st_mtime_ns + 1_000_000_000))
    assert known.identity(folder, None) != first
    (folder / "notes.txt").write_text("a new file")
    assert known.identity(folder, None) not in {first, None}


def test_an_encoder_with_no_folder_has_no_identity() -> None:
    assert known.identity("someone/not-a-cached-model", None) is None  # a hub id (offline: unresolvable)
    assert known.identity("/no/such/folder", None) is None


def test_the_memo_keeps_the_newest_entries(tiny_dir: Path, own_cache: Path) -> None:
    from engine.encoders import load_encoder

    encoder = load_encoder(tiny_dir, device="cpu")
    for number in range(known.KEPT + 3):
        known.remember(f"identity-{number}", encoder)
    memo = known.read_memo(own_cache / "embeddings" / known.MEMO)
    assert list(memo) == [f"identity-{number}" for number in range(3, known.KEPT + 3)]
    assert known.recall("identity-2") is None
    assert known.recall(f"identity-{known.KEPT + 2}") == known.Known(encoder.fingerprint, encoder.hidden_size)


def test_a_damaged_memo_is_a_load_not_an_error(tiny_dir: Path, own_cache: Path, loads: list[str]) -> None:
    known.encode_by_name(tiny_dir, TEXTS, device="cpu")
    memo = own_cache / "embeddings" / known.MEMO
    memo.write_bytes(b"\x00{not json")
    np.testing.assert_allclose(
        known.encode_by_name(tiny_dir, TEXTS, device="cpu"), reference(tiny_dir, TEXTS), rtol=0, atol=1e-6
    )
    assert len(loads) == 2
    assert known.recall(known.identity(tiny_dir, None)) is not None  # written whole again


JSON = json_values()


@settings(max_examples=150, deadline=None)
@given(
    content=st.one_of(
        st.binary(max_size=200),
        JSON.map(lambda value: json.dumps(value).encode()),
        st.dictionaries(st.text(max_size=8), JSON, max_size=4).map(
            lambda entries: json.dumps({"format": known._FORMAT, "entries": entries}).encode()
        ),
    )
)
def test_reading_any_memo_file_gives_well_formed_entries_or_none(tmp_path_factory, content: bytes) -> None:
    path = tmp_path_factory.mktemp("memo") / known.MEMO
    path.write_bytes(content)
    for key, entry in known.read_memo(path).items():
        assert isinstance(key, str) and isinstance(entry.fingerprint, str)
        assert type(entry.hidden) is int and entry.hidden > 0


def test_an_encoder_handed_over_loaded_is_taken_not_kept(tiny_dir: Path, loads: list[str]) -> None:
    """A warm job process hands its loaded encoder over (engine/jobs/spare_entry.py): a run there takes
    it even when the memo would skip the load, so that it is freed once the embeddings are made."""
    from engine.encoders import load_encoder
    from engine.encoders.loading import hand_over, is_handed_over

    known.encode_by_name(tiny_dir, TEXTS, device="cpu")
    hand_over(load_encoder(tiny_dir, device="cpu"), tiny_dir, device="cpu")
    assert is_handed_over(tiny_dir, device="cpu") and not is_handed_over(tiny_dir, "cls", device="cpu")
    found = known.encode_by_name(tiny_dir, TEXTS, device="cpu")
    assert len(loads) == 2 and not is_handed_over(tiny_dir, device="cpu")
    np.testing.assert_allclose(found, reference(tiny_dir, TEXTS), rtol=0, atol=1e-6)
