"""The bundled encoder recognised by its shipped record (engine/encoders/bundled_record.py): a fresh cache's
demo finds the packaged embeddings without loading the encoder, and anything that is not the very bundled
encoder (other files, pooling, libraries, folder, a damaged record) is not recognised."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from json_values import json_values

from engine.encoders import bundled_record, cache, known
from engine.encoders.loading import resolve_source

REPO = Path(__file__).resolve().parents[2]


def bundled_folder() -> Path:
    return Path(resolve_source(None).location)


def demo_texts() -> list[str]:
    spec = importlib.util.spec_from_file_location("ship", REPO / "scripts" / "ship_demo_embeddings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.demo_texts()


def reference_digest(folder: Path) -> str:
    """The digest as the module documents it, written here from that text: the format's name, then each file
    in sorted order of its relative path as ``|path|size|`` and its bytes."""
    digest = hashlib.sha256(b"embedlab-bundled-encoder-v1")
    for path in sorted(
        (p for p in folder.rglob("*") if p.is_file()), key=lambda p: p.relative_to(folder).as_posix()
    ):
        data = path.read_bytes()
        digest.update(f"|{path.relative_to(folder).as_posix()}|{len(data)}|".encode() + data)
    return digest.hexdigest()


def test_the_shipped_record_is_the_bundled_encoders(bundled) -> None:
    record = bundled_record.read_record()
    assert record is not None, "no record: run python scripts/ship_demo_embeddings.py"
    stale = "stale: run python scripts/ship_demo_embeddings.py"
    assert record["fingerprint"] == bundled.fingerprint, stale
    assert record["hidden"] == bundled.hidden_size == 384
    assert record["pooling"] == bundled.pooling
    assert record["libraries"] == bundled_record.libraries(), stale
    assert record["files_sha256"] == reference_digest(bundled_folder()), stale
    assert bundled_record.recognise(None, None) == (bundled.fingerprint, 384)


def test_a_fresh_caches_demo_takes_the_packaged_embeddings_without_loading(
    loads: list[str], own_cache: Path
) -> None:
    texts = demo_texts()
    array = known.encode_by_name(None, texts, device="cpu")
    assert loads == []  # neither loaded nor encoded: known by the record, found in the package
    (shipped,) = cache.PACKAGED.glob("*.npy")
    np.testing.assert_array_equal(array, np.load(shipped, allow_pickle=False))
    assert known.recall(known.identity(None, None)) is not None  # remembered from then on


def test_the_digest_follows_every_byte_name_and_file(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    (folder / "sub").mkdir(parents=True)
    (folder / "config.json").write_text('{"a": 1}')
    (folder / "sub" / "weights.bin").write_bytes(bytes(range(256)) * 9)
    first = bundled_record.folder_digest(folder)
    assert first == reference_digest(folder)
    copy = tmp_path / "elsewhere"
    shutil.copytree(folder, copy)
    assert bundled_record.folder_digest(copy) == first  # a place is not an identity: the bytes are
    changes = [
        lambda f: (f / "sub" / "weights.bin").write_bytes(
            bytes(range(256)) * 8 + bytes([1]) + bytes(range(1, 256))
        ),
        lambda f: (f / "config.json").rename(f / "config2.json"),
        lambda f: (f / "extra.txt").write_text(""),
    ]
    for number, change in enumerate(changes):
        changed = tmp_path / f"changed{number}"
        shutil.copytree(folder, changed)
        change(changed)
        assert bundled_record.folder_digest(changed) == reference_digest(changed) != first


def test_what_is_not_the_bundled_encoder_is_not_recognised(tmp_path: Path, tiny_dir: Path) -> None:
    record = bundled_record.read_record()
    assert bundled_record.recognise(None, "cls") is None  # another pooling: another fingerprint
    assert bundled_record.recognise(tiny_dir, None) is None  # a folder of its own: not the bundled one
    for field, value in [("libraries", {"torch": "0.0"}), ("files_sha256", "0" * 64)]:
        other = tmp_path / f"{field}.json"
        other.write_text(json.dumps({**record, field: value}))
        assert bundled_record.recognise(None, None, path=other) is None
    assert bundled_record.recognise(None, None, path=tmp_path / "missing.json") is None


JSON = json_values(width=3, leaves=8, nan=False)


@settings(max_examples=150, deadline=None)
@given(
    content=st.one_of(
        st.binary(max_size=200),
        JSON.map(lambda value: json.dumps(value).encode()),
        st.dictionaries(
            st.sampled_from(["format", "fingerprint", "hidden", "pooling", "libraries", "files_sha256"]),
            JSON,
        ).map(lambda fields: json.dumps({"format": "embedlab-bundled-encoder-v1", **fields}).encode()),
    )
)
def test_reading_any_record_file_gives_a_well_formed_record_or_none(tmp_path_factory, content: bytes) -> None:
    path = tmp_path_factory.mktemp("record") / "bundled-encoder.json"
    path.write_bytes(content)
    found = bundled_record.read_record(path)
    if found is not None:
        assert isinstance(found["fingerprint"], str) and isinstance(found["files_sha256"], str)
        assert type(found["hidden"]) is int and found["hidden"] > 0 and isinstance(found["libraries"], dict)
