"""An ``.npz`` whose member is no ``.npy`` (a raw pickle put in the zip) is one line (issue 47, minor): it
was "AttributeError: 'bytes' object has no attribute 'ndim'"."""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np
import pytest

from engine.core.errors import DataError
from engine.data import load_npz


def test_a_raw_pickle_member_is_one_line() -> None:
    buffer = io.BytesIO()
    labels = io.BytesIO()
    np.save(labels, np.array([0, 1, 0, 1]))
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("embeddings", pickle.dumps([[1.0, 2.0]] * 4))
        archive.writestr("labels.npy", labels.getvalue())
    with pytest.raises(DataError, match=r"^upload.npz: 'embeddings' is not a NumPy array") as caught:
        load_npz(buffer.getvalue())
    assert "\n" not in str(caught.value)
