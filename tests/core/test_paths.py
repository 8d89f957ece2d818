from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import paths
from engine.core.errors import ConfigError


@pytest.mark.parametrize(
    "text, expected",
    [
        ("my run", "my-run"),
        ("../../etc/passwd", "etc-passwd"),
        ("a/b\\c", "a-b-c"),
        ("ok_name-1.2", "ok_name-1.2"),
        (".hidden", "hidden"),
        ("x" * 200, "x" * 80),
        ("naïve run", "naïve-run"),
        ("日本語.csv", "日本語.csv"),
        ("données.csv", "données.csv"),
        ("a\u202eexe.csv", "a-exe.csv"),
        ("x" * 200 + ".csv", "x" * 76 + ".csv"),
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


def test_non_ascii_uploads_keep_their_names_and_never_replace_each_other(own_cache: Path) -> None:
    from engine.data import uploads

    first = uploads.store("日本語.csv", b"text,label\nhello,a\nbye,b\n")
    second = uploads.store("中文.csv", b"text,label\nyes,a\nno,b\n")
    assert (first.name, second.name) == ("日本語.csv", "中文.csv")
    assert first.read_bytes() != second.read_bytes()
    assert uploads.listing() == sorted(["日本語.csv", "中文.csv"])


def test_an_upload_whose_name_is_taken_by_another_file_gets_a_suffix(own_cache: Path) -> None:
    from engine.data import uploads

    first = uploads.store("a b.csv", b"text,label\nhello,a\nbye,b\n")
    again = uploads.store("a b.csv", b"text,label\nhello,a\nbye,b\n")  # the same file: kept once
    other = uploads.store("a-b.csv", b"text,label\nyes,a\nno,b\n")  # another file, the same safe name
    assert first == again and first.name == "a-b.csv"
    assert other.name == "a-b-2.csv" and first.read_bytes() != other.read_bytes()


_NAME_CHARS = st.characters(blacklist_categories=("Cs",))
_STEMS = st.text(_NAME_CHARS, min_size=1, max_size=40)
_EXTENSIONS = st.sampled_from([".csv", ".tsv", ".jsonl", ".txt", ".npz"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stem=_STEMS, ext=_EXTENSIONS)
def test_safe_names_stay_inside_and_keep_the_extension(tmp_path: Path, stem: str, ext: str) -> None:
    try:
        path = paths.inside(tmp_path, stem + ext, what="file name")
    except ConfigError:
        return  # nothing usable: a one-line refusal
    assert path.parent == tmp_path.resolve()
    assert path.name.endswith(ext) and not path.name.startswith(".")
    assert ".." not in path.name and "/" not in path.name and "\\" not in path.name
    assert all(ch.isprintable() for ch in path.name)
    assert len(path.name) <= paths.MAX_NAME


@pytest.mark.parametrize("text, expected", [("0:.0:", "0.0"), ("a.b:", "a.b"), ("run 1.", "run-1")])
def test_a_name_cleaned_without_an_extension_is_read_again_with_one(text: str, expected: str) -> None:
    assert paths.safe_name(text) == expected == paths.safe_name(expected)


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.sampled_from("ab0.:-_ é/"), max_size=12) | st.text(_NAME_CHARS, max_size=30))
def test_a_safe_name_is_its_own_safe_name(text: str) -> None:
    """Cleaning twice changes nothing: a name shown to the user is the name on disk, whatever reads it
    again (hypothesis found ``'0:.0:'`` -> ``'0-.0'`` -> ``'0.0'`` before)."""
    try:
        once = paths.safe_name(text)
    except ConfigError:
        return
    assert paths.safe_name(once) == once


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stems=st.lists(_STEMS, min_size=2, max_size=5, unique=True), ext=_EXTENSIONS)
def test_distinct_uploads_never_overwrite_a_different_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stems: list[str], ext: str
) -> None:
    import uuid

    from engine.data import uploads

    root = tmp_path / uuid.uuid4().hex
    monkeypatch.setenv("EMBEDLAB_CACHE_DIR", str(root))
    monkeypatch.setattr(uploads, "_check", lambda staged, name: None)  # any content: only names matter here
    kept: dict[Path, bytes] = {}
    for i, stem in enumerate(stems):
        content = f"file {i}".encode()
        try:
            stored = uploads.store(stem + ext, content)
        except ConfigError:
            continue
        assert stored.parent == paths.uploads_dir().resolve() and stored.name.endswith(ext)
        assert stored not in kept  # a different file never lands on one already kept
        kept[stored] = content
    assert all(path.read_bytes() == content for path, content in kept.items())


@pytest.mark.parametrize("where", ["a-file", "a-file/sub"])
def test_a_cache_folder_on_a_file_is_not_writable(tmp_path: Path, monkeypatch, where: str) -> None:
    """Issue 47: EMBEDLAB_CACHE_DIR on a file gave a raw FileExistsError (NotADirectoryError under one)."""
    (tmp_path / "a-file").write_text("mine\n")
    monkeypatch.setenv("EMBEDLAB_CACHE_DIR", str(tmp_path / where))
    with pytest.raises(ConfigError, match=r"is not writable \(.*\); set EMBEDLAB_CACHE_DIR"):
        paths.cache_dir()
    assert (tmp_path / "a-file").read_text() == "mine\n"
