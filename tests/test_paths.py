from pathlib import Path

import pytest

from engine import paths
from engine.errors import ConfigError


@pytest.mark.parametrize(
    "text, expected",
    [
        ("my run", "my-run"),
        ("../../etc/passwd", "etc-passwd"),
        ("a/b\\c", "a-b-c"),
        ("ok_name-1.2", "ok_name-1.2"),
        (".hidden", "hidden"),
        ("x" * 200, "x" * 80),
        ("naïve run", "na-ve-run"),
    ],
)
def test_safe_name_keeps_names_inside_one_folder(text: str, expected: str) -> None:
    assert paths.safe_name(text) == expected


@pytest.mark.parametrize("text", ["", "..", "/", "...", "  ", "\x00"])
def test_safe_name_rejects_names_with_nothing_usable(text: str) -> None:
    with pytest.raises(ConfigError, match="no usable characters"):
        paths.safe_name(text)


def test_inside_never_leaves_root(tmp_path: Path) -> None:
    assert paths.inside(tmp_path, "../../x") == tmp_path.resolve() / "x"


def test_cache_dir_follows_environment(private_cache: Path) -> None:
    assert paths.cache_dir() == private_cache.resolve()
    assert paths.runs_dir().parent == private_cache.resolve()


def test_data_dir_prefers_explicit_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDLAB_DATA_DIR", "/from/env")
    assert paths.data_dir("/explicit") == Path("/explicit")
    assert paths.data_dir(None) == Path("/from/env")
    monkeypatch.delenv("EMBEDLAB_DATA_DIR")
    assert paths.data_dir(None) is None


def test_new_run_names_are_unique_and_safe() -> None:
    names = {paths.new_run_name("probe run/../x") for _ in range(50)}
    assert len(names) == 50
    assert all("/" not in n and not n.startswith(".") for n in names)
