"""Every setup of the isotropy paper: (iii) POS and (iv) supersenses on static word vectors (WordNet), your
own embeddings (.npz), the triplet objective (Appendix B), micro-F1, the device choice and Adam at scale."""

from __future__ import annotations

import gzip
import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.metrics import f1_score

from engine import probe, runlog
from engine.command.exits import engine_command
from engine.core.errors import ConfigError, DataError
from engine.data import LabelledVectors, LabelledWords, load_dataset, load_npz, read_word_vectors
from engine.data.wordnet import read_wordnet_words
from engine.probe import compute, objectives
from engine.probe.model import micro_f1
from engine.probe.vectors import one_piece_ids, table_vectors
from engine.runlog import runner
from engine.runlog.events import Progress, Row

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.filterwarnings("ignore:__array_wrap__:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::engine.metrics.FewSamplesWarning"),  # small sets, n < d on purpose
]

# ------------------------------------------------------------------------------------------- WordNet
#: (word, POS set, supersense set): common words, all one word piece of all-MiniLM-L6-v2 but the last two
WORDS = [
    ("bank", "noun verb", "noun.group noun.possession verb.possession"),
    ("run", "noun verb", "noun.act verb.motion"),
    ("walk", "noun verb", "noun.act verb.motion"),
    ("jump", "noun verb", "noun.act verb.motion"),
    ("swim", "noun verb", "noun.act verb.motion"),
    ("table", "noun verb", "noun.artifact verb.communication"),
    ("chair", "noun verb", "noun.artifact verb.social"),
    ("house", "noun verb", "noun.artifact verb.contact"),
    ("door", "noun", "noun.artifact"),
    ("window", "noun", "noun.artifact"),
    ("car", "noun", "noun.artifact"),
    ("river", "noun", "noun.object"),
    ("mountain", "noun", "noun.object"),
    ("dog", "noun verb", "noun.animal verb.motion"),
    ("cat", "noun verb", "noun.animal verb.contact"),
    ("horse", "noun verb", "noun.animal verb.motion"),
    ("blue", "adj noun verb", "adj.all noun.attribute verb.change"),
    ("green", "adj noun verb", "adj.all noun.attribute verb.change"),
    ("happy", "adj", "adj.all"),
    ("sad", "adj", "adj.all"),
    ("quick", "adj adv noun", "adj.all adv.all noun.body"),
    ("slow", "adj adv verb", "adj.all adv.all verb.change"),
    ("quickly", "adv", "adv.all"),
    ("slowly", "adv", "adv.all"),
    ("often", "adv", "adv.all"),
    ("never", "adv", "adv.all"),
    ("zzyzzyva", "noun", "noun.animal"),
    ("quokkaesque", "adj", "adj.all"),
]


def write_wordnet(root: Path, rows: list[tuple[str, str, str]] = WORDS, header: str | None = None) -> Path:
    folder = root / "wordnet"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [header or "word\tpos\tsupersenses\tsynsets"]
    lines += [f"{w}\t{p}\t{s}\t{len(s.split())}" for w, p, s in rows]
    path = folder / "wordnet-words.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_wordnet_loaders_read_label_sets_as_multi_label_words(tmp_path: Path) -> None:
    write_wordnet(tmp_path)
    pos = load_dataset("wordnet-pos", data_dir=tmp_path)
    senses = load_dataset("wordnet-supersenses", data_dir=str(tmp_path))
    assert isinstance(pos, LabelledWords) and isinstance(senses, LabelledWords)
    assert pos.texts == senses.texts == [w for w, _, _ in WORDS]
    assert pos.labels[0] == ("noun", "verb") and pos.labels[8] == ("noun",)
    assert senses.labels[0] == ("noun.group", "noun.possession", "verb.possession")
    assert pos.is_multilabel and all(isinstance(label, tuple) for label in senses.labels)
    assert pos.name == "wordnet-pos" and pos.source.endswith("wordnet-words.tsv")
    assert len(load_dataset("wordnet-pos", data_dir=tmp_path, limit=10, seed=1)) == 10


@pytest.mark.parametrize(
    "content, message",
    [
        ("word\tpos\n", "header must be"),
        ("word\tpos\tsupersenses\tsynsets\nbank\tnoun\tnoun.group\n", "line 2 has 3 tab-separated fields"),
        ("word\tpos\tsupersenses\tsynsets\nbank\tnoun\t\t1\n", "line 2 has an empty"),
        ("word\tpos\tsupersenses\tsynsets\nbank\tpronoun\tnoun.group\t1\n", "unknown part of speech"),
        (
            "word\tpos\tsupersenses\tsynsets\nbank\tnoun\tnoun.group\t1\nbank\tverb\tverb.motion\t1\n",
            "appears twice",
        ),
        ("word\tpos\tsupersenses\tsynsets\n", "no words"),
    ],
)
def test_wordnet_file_errors_are_one_line(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "wordnet").mkdir()
    (tmp_path / "wordnet" / "wordnet-words.tsv").write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=message):
        load_dataset("wordnet-pos", data_dir=tmp_path)


def test_wordnet_missing_file_and_wrong_options(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="expected wordnet/wordnet-words.tsv"):
        load_dataset("wordnet-supersenses", data_dir=tmp_path)
    write_wordnet(tmp_path)
    with pytest.raises(ConfigError, match="label_col"):
        load_dataset("wordnet-pos", data_dir=tmp_path, label_col="pos")
    with pytest.raises(ConfigError, match="split"):
        load_dataset("wordnet-pos", data_dir=tmp_path, split="test")


def test_the_real_wordnet_file(shared_data: Path) -> None:
    path = shared_data / "wordnet" / "wordnet-words.tsv"
    if not path.is_file():
        pytest.skip(f"{path} absent")
    words, pos, senses = read_wordnet_words(path)
    assert len(words) == 77_503 and len(set(words)) == 77_503
    bank = words.index("bank")
    assert pos[bank] == ("noun", "verb") and "noun.possession" in senses[bank] and len(senses[bank]) == 9
    assert len(set(pos)) == 15 and len(set(senses)) == 4_583
    assert {name for labels in senses for name in labels} >= {"noun.Tops", "verb.weather", "adj.ppl"}
    ds = load_dataset("wordnet-supersenses", data_dir=shared_data)
    assert len(ds) == 77_503 and ds.is_multilabel


# ------------------------------------------------------------------------------------ static vectors
def test_static_vectors_are_rows_of_the_input_embedding_table_for_one_piece_words_only() -> None:
    from engine.encoders import load_encoder

    words = ["bank", "quickly", "zzyzzyva", "river", "unhappiness", "the"]
    found = table_vectors(words)
    encoder = load_encoder(None, device="cpu")
    table = encoder.model.embeddings.word_embeddings.weight.detach().numpy()
    vocab = encoder.tokenizer.get_vocab()
    expected = [w in vocab for w in words]
    assert found.found.tolist() == expected and expected[:4] == [True, True, False, True]
    assert found.vectors.dtype == np.float32 and found.vectors.shape == (sum(expected), 384)
    rows = [vocab[w] for w, ok in zip(words, expected, strict=True) if ok]
    np.testing.assert_array_equal(found.vectors, table[rows])


def test_one_piece_ids_asks_the_tokenizer_without_special_tokens() -> None:
    def tokenizer(words: list[str], add_special_tokens: bool) -> dict:
        assert add_special_tokens is False
        return {"input_ids": [[7] if w == "one" else [1, 2] for w in words]}

    assert one_piece_ids(tokenizer, ["one", "two pieces", "one"]).tolist() == [7, -1, 7]
    assert one_piece_ids(tokenizer, []).tolist() == []


# -------------------------------------------------------------------------------------- --vectors file
def test_word_vector_text_with_and_without_a_header(tmp_path: Path) -> None:
    body = "bank 1 2 3\nriver 4 5 6\nRun 7 8 9\nrun 0.5 0.5 0.5\n"
    for name, text in (("glove.txt", body), ("w2v.txt", "4 3\n" + body)):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        found = read_word_vectors(path, ["river", "run", "missing", "bank"])
        assert found.dim == 3 and found.found.tolist() == [True, True, False, True]
        np.testing.assert_array_equal(found.vectors, [[4, 5, 6], [0.5, 0.5, 0.5], [1, 2, 3]])
        assert found.bad_lines == 0 and found.lowercase_matches == 0


def test_word_vector_bad_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "vectors.txt"
    path.write_text(
        "3 2\nbank 1 2\nriver 1\nsea x 2\nlake nan 1\nNew York 3 4\nwood 1 2 3\nhill 5 6\n", encoding="utf-8"
    )
    found = read_word_vectors(path, ["bank", "river", "sea", "lake", "new york", "wood", "hill"])
    assert found.found.tolist() == [True, False, False, False, True, False, True]
    np.testing.assert_array_equal(found.vectors, [[1, 2], [3, 4], [5, 6]])
    assert found.bad_lines == 4 and found.first_bad == 3 and found.lowercase_matches == 1
    assert "skipped 4 malformed lines (first: line 3)" in found.notes[0]


def test_word_vector_files_gz_binary_and_empty(tmp_path: Path) -> None:
    packed = tmp_path / "v.txt.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as handle:
        handle.write("bank 1 2\n")
    assert read_word_vectors(packed, ["bank"]).found.tolist() == [True]
    binary = tmp_path / "v.bin"
    binary.write_bytes(b"2 3\nbank " + np.arange(3, dtype=np.float32).tobytes() + b"\xff\xfe\n")
    with pytest.raises(DataError, match="binary word2vec"):
        read_word_vectors(binary, ["bank"])
    (tmp_path / "empty.txt").write_text("\n")
    with pytest.raises(DataError, match="no word vectors"):
        read_word_vectors(tmp_path / "empty.txt", ["bank"])
    with pytest.raises(DataError, match="no such file"):
        read_word_vectors(tmp_path / "nope.txt", ["a"])


# ---------------------------------------------------------------------------------------------- micro-F1
def test_micro_f1_matches_scikit_learn() -> None:
    rng = np.random.default_rng(0)
    for trial in range(20):
        n, labels = int(rng.integers(1, 40)), int(rng.integers(2, 9))  # 2+: indicator
        logits = torch.from_numpy(rng.normal(size=(n, labels)).astype(np.float32))
        targets = torch.from_numpy((rng.random((n, labels)) < rng.random()).astype(np.float32))
        expected = f1_score(
            targets.numpy().astype(int), (logits.numpy() > 0).astype(int), average="micro", zero_division=0.0
        )
        assert micro_f1(logits, targets, True) == pytest.approx(expected, abs=1e-12), trial
    none = torch.zeros(3, 2)
    assert (
        micro_f1(-torch.ones(3, 2), none, True)
        == f1_score(none.int(), none.int(), average="micro", zero_division=0.0)
        == 0.0
    )
    logits, targets = torch.randn(50, 4), torch.randint(0, 4, (50,))
    expected = f1_score(targets.numpy(), logits.argmax(1).numpy(), average="micro")
    assert micro_f1(logits, targets, False) == pytest.approx(expected, abs=1e-7)


# ----------------------------------------------------------------------------------------------- .npz
def clustered(
    n: int = 90, d: int = 16, k: int = 3, seed: int = 0, spread: float = 2.0
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % k
    centres = rng.normal(size=(k, d)) * spread
    return (centres[labels] + rng.normal(size=(n, d))).astype(np.float32), labels


def test_npz_single_label_multi_label_strings_and_bytes(tmp_path: Path) -> None:
    x, y = clustered()
    np.savez(
        tmp_path / "a.npz",
        embeddings=x,
        labels=y,
        label_names=np.array(["cat", "dog", "eel"]),
        texts=np.array([f"item {i}" for i in range(len(y))]),
        extra=np.zeros(2),
    )
    ds = load_dataset(str(tmp_path / "a.npz"))
    assert isinstance(ds, LabelledVectors) and len(ds) == 90 and ds.class_names == ["cat", "dog", "eel"]
    assert ds.labels.tolist() == y.tolist() and ds.vectors.dtype == np.float32 and not ds.is_multilabel
    assert ds.texts[4] == "item 4" and ds.label_of(4) == "dog" and "ignored arrays: extra" in ds.warnings
    assert ds.to_frame().shape == (90, 3) and ds.describe() == "90 embeddings of 16 dimensions, 3 classes"
    np.savez(tmp_path / "s.npz", embeddings=x.astype(np.float64), labels=np.array(["b", "a", "c"])[y])
    ds = load_npz((tmp_path / "s.npz").read_bytes(), name="upload.npz")
    assert ds.class_names == ["a", "b", "c"] and ds.source == "upload.npz" and ds.vectors.dtype == np.float32
    hot = np.stack([y == 0, y != 2], axis=1).astype(np.int8)
    np.savez(tmp_path / "m.npz", embeddings=x, labels=hot)
    ds = load_npz(tmp_path / "m.npz")
    assert ds.is_multilabel and ds.labels.dtype == np.float32 and len(np.unique(ds.cluster_ids())) == 3
    assert ds.label_of(0) == ("0", "1") and ds.label_of(2) == ()
    assert ds.describe() == "90 embeddings of 16 dimensions, 2 labels in 3 distinct label sets (multi-label)"
    sub = load_dataset(tmp_path / "m.npz", limit=30, seed=2)
    assert len(sub) == 30 and np.bincount(sub.cluster_ids()).tolist() == [10, 10, 10]


def _npz(path: Path, **arrays: object) -> Path:
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize(
    "arrays, message",
    [
        ({"labels": np.zeros(4)}, "no array 'embeddings'"),
        ({"embeddings": np.zeros((4, 3))}, "no array 'labels'"),
        ({"embeddings": np.zeros(12), "labels": np.zeros(12)}, "2-D array"),
        ({"embeddings": np.zeros((4, 3, 2)), "labels": np.zeros(4)}, "2-D array"),
        ({"embeddings": np.array([["a", "b"], ["c", "d"]]), "labels": np.arange(2)}, "must be numbers"),
        ({"embeddings": np.zeros((1, 3)), "labels": np.zeros(1)}, "at least 2 rows"),
        (
            {"embeddings": np.where(np.eye(4, 3) > 0, np.nan, 1.0), "labels": np.arange(4) % 2},
            r"3 NaN or infinite values \(first: row 0, column 0\)",
        ),
        ({"embeddings": np.full((4, 3), 1e300), "labels": np.arange(4) % 2}, "12 NaN or infinite"),
        ({"embeddings": np.ones((4, 3)), "labels": np.arange(5) % 2}, "4 embeddings but 5 labels"),
        (
            {"embeddings": np.ones((4, 3)), "labels": np.array([0, 1, 0.5, 1])},
            r"class indices, got 0.5 at row 2",
        ),
        ({"embeddings": np.ones((4, 3)), "labels": np.zeros(4, dtype=int)}, "same label"),
        (
            {"embeddings": np.ones((4, 3)), "labels": np.array([[0, 1], [1, 2], [0, 0], [1, 1]])},
            "only 0 and 1",
        ),
        (
            {
                "embeddings": np.ones((4, 3)),
                "labels": np.array([[0, 1], [1, 0], [0, 0], [1, 1]]),
                "label_names": np.array(["a"]),
            },
            "2 label columns but 1 label_names",
        ),
        (
            {"embeddings": np.ones((4, 3)), "labels": np.arange(4) % 3, "label_names": np.array(["a", "b"])},
            "label 2 has no name",
        ),
        (
            {"embeddings": np.ones((4, 3)), "labels": np.arange(4) % 2, "texts": np.array(["a"])},
            "4 embeddings but 1 texts",
        ),
        (
            {"embeddings": np.ones((4, 3)), "labels": np.array([{"a": 1}, 0, 1, 0], dtype=object)},
            "pickled object array",
        ),
        ({"embeddings": np.empty((4, 3), dtype=object), "labels": np.arange(4) % 2}, "pickled object array"),
    ],
)
def test_npz_errors_are_one_line(tmp_path: Path, arrays: dict, message: str) -> None:
    path = _npz(tmp_path / "bad.npz", **arrays)
    with pytest.raises(DataError, match=message) as caught:
        load_dataset(str(path))
    assert "\n" not in str(caught.value) and str(caught.value).startswith("bad.npz: ")


def test_npz_that_is_not_an_archive(tmp_path: Path) -> None:
    (tmp_path / "text.npz").write_text("embeddings,labels\n")
    with pytest.raises(DataError, match="not a NumPy .npz archive"):
        load_dataset(tmp_path / "text.npz")
    np.save(tmp_path / "one.npy", np.zeros((3, 2)))
    (tmp_path / "one.npy").rename(tmp_path / "one.npz")
    with pytest.raises(DataError, match="single .npy array"):
        load_npz(tmp_path / "one.npz")
    with pytest.raises(DataError, match="not a NumPy .npz archive"):
        load_npz(b"PK\x03\x04 truncated", name="up.npz")
    x, y = clustered()
    with pytest.raises(ConfigError, match="do not apply"):
        load_dataset(_npz(tmp_path / "ok.npz", embeddings=x, labels=y), label_col="y")


# -------------------------------------------------------------------------------------------- triplet
def test_triplet_loss_is_the_plain_formula() -> None:
    rng = np.random.default_rng(3)
    points = torch.from_numpy(rng.normal(size=(12, 5)))
    a, p, n = (torch.from_numpy(rng.integers(0, 12, 30)) for _ in range(3))
    for margin in (0.0, 0.7, 1.0, 5.0):
        loss, accuracy = objectives.triplet_loss(points, a, p, n, margin)
        x = points.numpy()
        plain = [
            max(
                0.0,
                float(np.sqrt(((x[i] - x[j]) ** 2).sum()))
                - float(np.sqrt(((x[i] - x[k]) ** 2).sum()))
                + margin,
            )
            for i, j, k in zip(a.tolist(), p.tolist(), n.tolist(), strict=True)
        ]
        order = [
            np.linalg.norm(x[i] - x[j]) < np.linalg.norm(x[i] - x[k])
            for i, j, k in zip(a.tolist(), p.tolist(), n.tolist(), strict=True)
        ]
        assert loss.item() == pytest.approx(np.mean(plain), abs=1e-12)
        assert accuracy == pytest.approx(np.mean(order))
    same = torch.zeros(2, 3, requires_grad=True)
    loss, _ = objectives.triplet_loss(same, torch.tensor([0]), torch.tensor([1]), torch.tensor([1]), 1.0)
    loss.backward()
    assert torch.isfinite(same.grad).all()  # zero distances: subgradient 0, never NaN


def test_triplet_sampler_draws_valid_triples_afresh() -> None:
    clusters = torch.tensor([2, 0, 1, 0, 2, 0, 3, 1, 0])  # cluster 3 is a singleton: never an anchor
    sampler = objectives.TripletSampler(clusters, torch.Generator().manual_seed(0))
    assert sampler.n_anchors == 8
    seen_pos: set[tuple[int, int]] = set()
    seen_neg: set[tuple[int, int]] = set()
    draws = [sampler.sample() for _ in range(300)]
    for a, p, n in draws:
        assert sorted(a.tolist()) == [0, 1, 2, 3, 4, 5, 7, 8]
        assert (clusters[a] == clusters[p]).all() and (a != p).all() and (clusters[a] != clusters[n]).all()
        seen_pos.update(zip(a.tolist(), p.tolist(), strict=True))
        seen_neg.update(zip(a.tolist(), n.tolist(), strict=True))
    members = {c: [i for i in range(9) if clusters[i] == c] for c in range(4)}
    assert seen_pos == {(i, j) for c in members for i in members[c] for j in members[c] if i != j}
    assert seen_neg == {(i, j) for i in range(9) if i != 6 for j in range(9) if clusters[i] != clusters[j]}
    assert not torch.equal(draws[0][2], draws[1][2])
    with pytest.raises(DataError, match="at least 2 classes"):
        objectives.TripletSampler(torch.zeros(5, dtype=torch.long), torch.Generator())
    with pytest.raises(DataError, match="singleton"):
        objectives.TripletSampler(torch.arange(5), torch.Generator())


def test_triplet_objective_has_no_classifier_and_logs_fixed_triples(tmp_path: Path) -> None:
    x, y = clustered(n=120, d=24, spread=0.5)  # overlapping classes: many triples violate the margin
    np.savez(tmp_path / "c.npz", embeddings=x, labels=y)
    config = probe.ProbeConfig(data=str(tmp_path / "c.npz"), objective="triplet", steps=30, lr=1e-2, seed=1)
    rows = [e for e in probe.run_probe(config) if isinstance(e, Row)]
    first, last = rows[0].values, rows[-1].values
    assert (
        first["micro_f1"] is None and last["loss"] < first["loss"] and last["accuracy"] >= first["accuracy"]
    )
    assert last["silhouette"] > first["silhouette"]
    again = [e for e in probe.run_probe(config) if isinstance(e, Row)]
    assert [r.values["loss"] for r in again] == [r.values["loss"] for r in rows]  # seeded triples
    with pytest.raises(ConfigError, match="objective"):
        probe.ProbeConfig(objective="contrastive")
    with pytest.raises(ConfigError, match="margin"):
        probe.ProbeConfig(margin=-1.0)


# --------------------------------------------------------------------------------- problem and loop
def test_word_problem_uses_static_vectors_and_drops_words_without_one(tmp_path: Path) -> None:
    write_wordnet(tmp_path)
    table = {w: np.full(4, i, dtype=np.float32) for i, (w, _, _) in enumerate(WORDS[:-2])}

    def lookup(words: list[str]):
        from engine.data.vectors import FoundVectors

        found = np.array([w in table for w in words])
        return FoundVectors(found, np.stack([table[w] for w in words if w in table]), 4), "a test table"

    config = probe.ProbeConfig(data="wordnet-pos", data_dir=str(tmp_path))
    problem = probe.build_problem(config, encode=None, lookup=lookup)
    assert problem.multi_label and problem.owned and list(problem.texts) == [w for w, _, _ in WORDS[:-2]]
    assert problem.class_names == ["adj", "adv", "noun", "verb"] and problem.targets.shape == (26, 4)
    np.testing.assert_array_equal(problem.embeddings[:, 0], np.arange(26))
    assert problem.targets[0].tolist() == [0, 0, 1, 1] and len(np.unique(problem.cluster_ids)) == 7
    assert problem.notes == ["wordnet-pos: 2 of 28 words have no vector in a test table (dropped); 26 kept"]
    limited = probe.build_problem(
        probe.ProbeConfig(data="wordnet-pos", data_dir=str(tmp_path), limit=12), encode=None, lookup=lookup
    )
    assert limited.n_items == 12 and set(limited.texts) <= set(problem.texts)


def test_vectors_flag_only_for_words(tmp_path: Path) -> None:
    x, y = clustered()
    np.savez(tmp_path / "c.npz", embeddings=x, labels=y)
    with pytest.raises(ConfigError, match="holds its own embeddings"):
        probe.build_problem(probe.ProbeConfig(data=str(tmp_path / "c.npz"), vectors="v.txt"), encode=None)
    with pytest.raises(ConfigError, match="gives static vectors to words"):
        probe.build_problem(probe.ProbeConfig(data="demo-pairs", vectors="v.txt"), encode=None)


def test_npz_problem_trains_the_loaded_array_in_place(tmp_path: Path) -> None:
    x, y = clustered()
    np.savez(tmp_path / "c.npz", embeddings=x, labels=y)
    problem = probe.build_problem(probe.ProbeConfig(data=str(tmp_path / "c.npz")), encode=None)
    assert (
        problem.owned and problem.texts[3] == "#3" and len(problem.texts) == 90 and problem.texts[-1] == "#89"
    )
    model = probe.EmbeddingClassifier(torch.from_numpy(problem.embeddings), 3, None, copy=not problem.owned)
    assert model.embeddings.data_ptr() == problem.embeddings.ctypes.data  # no second N x d copy
    assert (
        probe.EmbeddingClassifier(torch.from_numpy(problem.embeddings), 3, None).embeddings.data_ptr()
        != problem.embeddings.ctypes.data
    )


def test_word_setups_through_the_runner(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """(iii) on the bundled encoder's embedding table, (iv) on a --vectors file: rows, micro-F1, the note."""
    write_wordnet(tmp_path)
    seen: list = []
    with caplog.at_level(logging.WARNING):
        summary = runner.run_experiment(
            "probe",
            probe.ProbeConfig(
                data="wordnet-pos", data_dir=str(tmp_path), steps=15, lr=1e-2, snapshot_every=5
            ),
            tmp_path / "pos",
            on_event=seen.append,
        )
    rows = [e for e in seen if isinstance(e, Row)]
    assert summary["state"] == "finished" and [r.step for r in rows] == list(range(16))
    assert any(isinstance(e, Progress) and "2 of 28 words have no vector" in e.phase for e in seen)
    assert "2 of 28 words have no vector" in caplog.text
    first, last = rows[0].values, rows[-1].values
    assert last["silhouette"] > first["silhouette"] and last["isoscore"] < first["isoscore"]
    assert 0.0 <= first["micro_f1"] <= last["micro_f1"] <= 1.0 and last["accuracy"] > first["accuracy"]
    frame = runlog.read_metrics(tmp_path / "pos")
    assert frame["step"].tolist() == list(range(16))
    points = (tmp_path / "pos" / "points.csv").read_text(encoding="utf-8")
    assert "bank" in points and "noun|verb" in points
    rng = np.random.default_rng(0)
    vectors = tmp_path / "vectors.txt"
    vectors.write_text(
        "".join(f"{w} " + " ".join(f"{v:.5f}" for v in rng.normal(size=8)) + "\n" for w, _, _ in WORDS[::2]),
        encoding="utf-8",
    )
    summary = runner.run_experiment(
        "probe",
        probe.ProbeConfig(
            data="wordnet-supersenses", data_dir=str(tmp_path), vectors=str(vectors), steps=10, lr=1e-2
        ),
        tmp_path / "senses",
    )
    assert summary["state"] == "finished" and summary["final"]["isoscore"] is not None


def test_cli_runs_npz_and_triplet_and_reports_bad_npz(tmp_path: Path) -> None:
    x, y = clustered(n=60, d=8)
    np.savez(tmp_path / "mine.npz", embeddings=x, labels=y)
    env_cmd = [sys.executable, "-m", "engine", "probe", "--data", str(tmp_path / "mine.npz"), "--steps", "4"]
    for extra, out in (([], "run"), (["--objective", "triplet", "--margin", "0.5"], "tri")):
        done = subprocess.run(
            [*env_cmd, *extra, "--out", str(tmp_path / out)],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert runlog.read_metrics(tmp_path / out)["step"].tolist() == [0, 1, 2, 3, 4]
        config = json.loads((tmp_path / out / "config.json").read_text())
        assert config.get("objective", config.get("settings", {}).get("objective")) in (
            "triplet" if extra else "classifier",
            None,
        )
    np.savez(tmp_path / "bad.npz", embeddings=x, labels=y[:-1])
    done = subprocess.run(
        engine_command("probe", "--data", str(tmp_path / "bad.npz"), "--out", str(tmp_path / "bad")),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1] == (
        "error: bad.npz: 60 embeddings but 59 labels (one label per row)"
    )


# ------------------------------------------------------------------------------------- device and Adam
def test_auto_device_prefers_cuda_then_mps_then_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(compute, "mps_available", lambda: True)
    assert compute.pick_device("auto") == torch.device("mps") and compute.pick_device(" AUTO ").type == "mps"
    assert compute.pick_device("cpu") == torch.device("cpu")
    assert compute.measure_device(torch.device("mps")) == torch.device("cpu")
    monkeypatch.setattr(compute, "mps_available", lambda: False)
    assert compute.pick_device("auto") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(compute, "mps_available", lambda: True)
    assert compute.pick_device("auto") == torch.device("cuda")
    assert compute.measure_device(torch.device("cuda")) == torch.device("cuda")


def test_adam_runs_fused_only_for_large_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    small = [torch.nn.Parameter(torch.zeros(10, 4))]
    assert not compute.make_adam(small, 1e-3, torch.device("cpu")).defaults.get("fused")
    monkeypatch.setattr(compute, "FUSED_MIN_ELEMENTS", 40)
    adam = compute.make_adam(small, 1e-3, torch.device("cpu"))
    assert adam.defaults["fused"] and adam.defaults["lr"] == 1e-3 and adam.defaults["betas"] == (0.9, 0.999)
    plain = compute.make_adam([torch.nn.Parameter(torch.ones(10, 4))], 1e-2, torch.device("cpu"))
    fused = compute.make_adam([p := torch.nn.Parameter(torch.ones(10, 4))], 1e-2, torch.device("cpu"))
    for opt in (plain, fused):
        (opt.param_groups[0]["params"][0] ** 2).sum().backward()
        opt.step()
    torch.testing.assert_close(p, plain.param_groups[0]["params"][0], atol=1e-6, rtol=0)
