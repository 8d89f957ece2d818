"""Write the bundled encoder's embeddings of the built-in demo corpus into the package
(``engine/data/demo/embeddings/<cache key>.npy``, :data:`engine.encoders.cache.PACKAGED`), replacing older
ones, and the bundled encoder's record beside them (:data:`engine.encoders.bundled_record.RECORD`: its
fingerprint by a digest of its files, so that a fresh cache finds these embeddings without loading it).

    python scripts/ship_demo_embeddings.py

Run it when the bundled encoder, the demo corpus or the cache key changes (``tests/encoders/
test_packaged_embeddings.py`` fails then). The texts are those the probe's demo asks for, in its order.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engine.core.atomic import write_text_atomic
from engine.encoders import load_encoder
from engine.encoders.bundled_record import RECORD, record_of
from engine.encoders.cache import PACKAGED, cache_key
from engine.encoders.loading import resolve_source
from engine.probe import ProbeConfig, build_problem


def demo_texts() -> list[str]:
    """The texts the probe's ``demo`` data set encodes, in the order it asks for them."""
    asked: list[list[str]] = []

    def capture(texts):
        asked.append(list(texts))
        return np.zeros((len(texts), 384), dtype=np.float32)

    build_problem(ProbeConfig(data="demo"), capture)
    (texts,) = asked
    return texts


def main() -> None:
    encoder = load_encoder()
    texts = demo_texts()
    array = np.asarray(encoder.encode(texts), dtype=np.float32)
    PACKAGED.mkdir(parents=True, exist_ok=True)
    for old in PACKAGED.glob("*.npy"):
        old.unlink()
    target = PACKAGED / f"{cache_key(encoder, texts)}.npy"
    np.save(target, array, allow_pickle=False)
    print(
        f"wrote {target.relative_to(PACKAGED.parent.parent.parent.parent)}: "
        f"{array.shape}, {target.stat().st_size:,} bytes"
    )
    folder = Path(resolve_source(None).location)
    record = record_of(encoder.fingerprint, encoder.hidden_size, encoder.pooling, folder)
    write_text_atomic(RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(
        f"wrote {RECORD.name}: fingerprint {record['fingerprint'][:12]}…, "
        f"files {record['files_sha256'][:12]}…"
    )


if __name__ == "__main__":
    main()
