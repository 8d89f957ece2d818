"""Data-set downloads from the Hugging Face hub (engine.data.download): offline and unreachable hubs fail at
once with one clear line, without a download attempt; cached hub copies are parsed; the online path
fetches."""

from collections import Counter

import pandas as pd
import pytest

from engine.core import hub as engine_hub
from engine.core.errors import DataError
from engine.data import builtin, download, load_dataset

REAL = [
    ("rt-polarity", "rt-polarity/rt-polarity.pos"),
    ("snli", "snli/validation.tsv"),
    ("stsb", "stsb/sts-dev.csv"),
    ("wiki1m", "wiki/*.txt"),
]


@pytest.fixture
def network_calls(monkeypatch):
    """Every reachability probe and download attempt, recorded (the probe still runs)."""
    calls = []
    real_probe = engine_hub.probe_repo

    def probe(repo_id, *args, **kwargs):
        calls.append(("probe", repo_id))
        return real_probe(repo_id, *args, **kwargs)

    def fetch(repo_id, filename, *, what):
        calls.append(("fetch", repo_id))
        raise AssertionError(f"unexpected download of {repo_id}/{filename}")

    monkeypatch.setattr(engine_hub, "probe_repo", probe)
    monkeypatch.setattr(download, "fetch", fetch)
    return calls


@pytest.mark.parametrize("name, expected", REAL)
def test_offline_hub_fails_at_once_and_clearly(tmp_path, monkeypatch, network_calls, name, expected):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DataError) as err:
        load_dataset(name, data_dir=tmp_path)
    assert network_calls == []  # offline: neither a probe nor a download
    msg = str(err.value)
    assert msg.startswith(f"{name}: not found in {tmp_path} (expected {expected})")
    assert "Hugging Face hub is offline" in msg and "pass --data-dir" in msg and "\n" not in msg


def test_no_data_dir_at_all(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("EMBEDLAB_DATA_DIR", raising=False)
    with pytest.raises(
        DataError, match=r"rt-polarity: not found \(no --data-dir given and EMBEDLAB_DATA_DIR unset\)"
    ):
        load_dataset("rt-polarity")


def test_unreachable_hub_is_probed_once_and_nothing_is_downloaded(tmp_path, monkeypatch, network_calls):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)
    engine_hub._probe_cache.clear()
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # discard port: connection refused at once
    assert not download.hub_offline()
    with pytest.raises(DataError, match="stsb: not found in .* Hugging Face hub is unreachable"):
        load_dataset("stsb", data_dir=tmp_path)
    assert network_calls == [("probe", builtin.STSB_REPO)]


def test_reachability_checks(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)
    engine_hub._probe_cache.clear()
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setenv(
        "HF_ENDPOINT", "https://10.255.255.1"
    )  # no valid TLS certificate there, whatever answers
    assert download.hub_reachable(timeout=1.0) is False
    monkeypatch.setattr(engine_hub, "probe_repo", lambda repo, timeout, repo_type: 200)
    assert download.hub_reachable() is True
    monkeypatch.setenv("HF_HUB_OFFLINE", "true")
    assert download.hub_offline() and download.hub_reachable() is False


def test_download_errors_become_data_errors(monkeypatch):
    import huggingface_hub

    def boom(*args, **kwargs):
        raise OSError("network down\nsecond line")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", boom)
    with pytest.raises(
        DataError,
        match=r"snli: download of stanfordnlp/snli/x.parquet from the Hugging Face hub "
        r"failed \(OSError: network down second line\)",
    ):
        download.fetch("stanfordnlp/snli", "x.parquet", what="snli")


@pytest.fixture
def fake_hub(tmp_path, monkeypatch):
    """Hub files served from tmp_path (as if downloaded before), in the layout of the real repos."""
    files = {}

    def put(repo, filename, frame=None, text=None):
        path = tmp_path / "hub" / repo / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        if frame is not None:
            frame.to_parquet(path)
        else:
            path.write_text(text, encoding="utf-8")
        files[(repo, filename)] = path

    for i, split in enumerate(["train", "validation", "test"]):
        put(
            builtin.RT_REPO,
            f"{split}.parquet",
            pd.DataFrame({"text": [f"good {i} ", f"bad {i}"], "label": [1, 0]}),
        )
    put(
        builtin.SNLI_REPO,
        "plain_text/validation-00000-of-00001.parquet",
        pd.DataFrame({"premise": ["p", "p", "p"], "hypothesis": ["a", "b", "c"], "label": [0, -1, 2]}),
    )
    put(
        builtin.STSB_REPO,
        "data/validation-00000-of-00001.parquet",
        pd.DataFrame({"sentence1": ["a", "b"], "sentence2": ["c", "d"], "score": [1.0, 0.5]}),
    )
    put(builtin.WIKI_REPO, builtin.WIKI_FILE, text="one\ntwo\n")
    monkeypatch.setattr(download, "cached_file", lambda repo, filename: files.get((repo, filename)))
    return files


def test_hub_copies_are_parsed(fake_hub, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # cached files need no network
    rt = load_dataset("rt-polarity", data_dir=tmp_path / "empty")
    assert len(rt) == 6 and Counter(rt.labels) == {"positive": 3, "negative": 3} and rt.texts[0] == "good 0"
    assert rt.source == f"hf://datasets/{builtin.RT_REPO}"
    snli = load_dataset("snli")
    assert snli.labels == ["entailment", "contradiction"] and any(
        "without a gold label" in w for w in snli.warnings
    )
    sts = load_dataset("stsb")
    assert sts.scores.tolist() == [5.0, 2.5]  # the hub copy is normalised to 0-1
    assert load_dataset("wiki1m").texts == ["one", "two"]


def test_online_path_downloads(fake_hub, monkeypatch):
    calls = []
    served = dict(fake_hub)
    monkeypatch.setattr(download, "cached_file", lambda repo, filename: None)
    monkeypatch.setattr(download, "hub_reachable", lambda repo=None, timeout=3.0: True)

    def fetch(repo, filename, *, what):
        calls.append((repo, filename, what))
        return served[(repo, filename)]

    monkeypatch.setattr(download, "fetch", fetch)
    assert len(load_dataset("stsb")) == 2
    assert calls == [(builtin.STSB_REPO, "data/validation-00000-of-00001.parquet", "stsb")]
