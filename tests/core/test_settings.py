"""engine.core.settings: the one place that declares and reads every setting and EMBEDLAB_* variable."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.core import paths, settings
from engine.core.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]


def test_an_unset_variable_gives_the_declared_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for setting in settings.SETTINGS.values():
        if setting.env:
            monkeypatch.delenv(setting.env, raising=False)
    assert settings.get("max_rows") == 200_000
    assert settings.get("job_isolation") == "process"
    assert settings.get("job_threads") is None
    assert settings.get("warm_encoder") is True
    assert settings.get("cache_dir") == REPO / "cache"
    assert settings.get("app_data_dir") == (REPO / ".." / "shared" / "data").resolve()


@pytest.mark.parametrize(
    ("name", "raw", "value"),
    [
        ("max_rows", "10", 10),
        ("max_file_mb", "0.5", 0.5),
        ("warm_encoder", "0", False),
        ("warm_encoder", "yes", True),
        ("job_isolation", "thread", "thread"),
        ("ui_nice", "19", 19),
        ("data_dir", "/data", Path("/data")),
        ("app_data_dir", "none", None),
        ("cache_dir", "rel", REPO / "rel"),
    ],
)
def test_a_set_variable_is_parsed_to_its_type(
    monkeypatch: pytest.MonkeyPatch, name: str, raw: str, value
) -> None:
    monkeypatch.setenv(settings.SETTINGS[name].env, raw)
    assert settings.get(name) == value


@pytest.mark.parametrize(
    ("name", "raw", "words"),
    [
        ("max_rows", "many", "EMBEDLAB_MAX_ROWS must be a whole number, got 'many'"),
        ("max_rows", "0", "EMBEDLAB_MAX_ROWS must be between 1 and …, got '0'"),
        ("ui_nice", "20", "EMBEDLAB_UI_NICE must be between 0 and 19, got '20'"),
        ("warm_encoder", "maybe", "EMBEDLAB_WARM_ENCODER must be 1 or 0, got 'maybe'"),
        ("job_isolation", "fork", "EMBEDLAB_JOB_ISOLATION must be one of process, thread, got 'fork'"),
        ("live_frame_share", "2", "EMBEDLAB_LIVE_FRAME_SHARE must be between 0.01 and 1, got '2'"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, raw: str, words: str
) -> None:
    monkeypatch.setenv(settings.SETTINGS[name].env, raw)
    with pytest.raises(ConfigError) as err:
        settings.get(name)
    assert str(err.value) == words


def test_the_app_data_folder_falls_back_only_when_it_exists(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("EMBEDLAB_DATA_DIR", raising=False)
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", str(tmp_path / "absent"))
    assert paths.app_data_dir() is None
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", str(tmp_path))
    assert paths.app_data_dir() == tmp_path
    monkeypatch.setenv("EMBEDLAB_DATA_DIR", str(tmp_path / "chosen"))
    assert paths.app_data_dir() == tmp_path / "chosen"


def test_every_variable_is_declared_once_with_a_meaning() -> None:
    variables = [s.env for s in settings.SETTINGS.values() if s.env]
    assert len(variables) == len(set(variables))
    assert all(
        s.meaning and s.kind in ("int", "float", "bool", "str", "path") for s in settings.SETTINGS.values()
    )
    table = settings.markdown_table()
    assert all(f"`{variable}`" in table for variable in variables)


def _environment_reads(source: str) -> list[str]:
    """String constants starting with EMBEDLAB_ that appear in code (docstrings excluded)."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and node.value.startswith("EMBEDLAB_")
    ]


def _environ_reads(source: str) -> list[int]:
    """Lines that read the process environment: ``os.getenv``, ``os.environ.get``/``[...]``/``in``, and any
    other use of ``os.environ`` but writing to it (``os.environ.update``, ``os.environ[k] = v``)."""
    tree = ast.parse(source)
    writes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update":
            writes.add(id(node.func.value))
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            writes.add(id(node.value))
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"
        ):
            continue
        if node.attr == "getenv" or (node.attr == "environ" and id(node) not in writes):
            found.append(node.lineno)
    return sorted(found)


def _outside_settings(find, declared: bool = False) -> dict[str, list]:
    """What ``find(source)`` finds in each Python file of the lab but the settings module (with ``declared``
    also its declarations, engine/core/setting_list.py, which names the variables and reads none), by file."""
    files = [
        *REPO.glob("engine/**/*.py"),
        *REPO.glob("views/**/*.py"),
        *REPO.glob("ui/**/*.py"),
        REPO / "app.py",
    ]
    found = {
        str(f.relative_to(REPO)): find(f.read_text(encoding="utf-8"))
        for f in files
        if f.name != "settings.py" and not (declared and f.name == "setting_list.py")
    }
    return {name: hits for name, hits in found.items() if hits}


def test_only_the_settings_module_reads_the_environment() -> None:
    """Every environment variable the lab reads, its own or another tool's (torchrun's ranks, the hub's),
    is read in engine/core/settings.py; elsewhere code may only write to the environment."""
    assert _outside_settings(_environ_reads) == {}
    assert _environ_reads("import os\nos.environ.update(a)\nos.environ['A'] = '1'\n") == []
    reads = "import os\nx = os.environ.get('A')\ny = os.getenv('B')\nz = 'C' in os.environ\n"
    assert _environ_reads(reads) == [2, 3, 4]


def test_only_the_settings_module_names_environment_variables() -> None:
    assert _outside_settings(_environment_reads, declared=True) == {}
    assert _outside_settings(_environment_reads) == {"engine/core/setting_list.py": ["EMBEDLAB_"]}


def test_the_openmp_wait_policy_is_set_only_when_the_environment_has_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OMP_WAIT_POLICY", "")  # recorded, so that the variable is restored after the test
    monkeypatch.delenv("OMP_WAIT_POLICY")
    assert settings.apply_openmp_wait_policy() == "PASSIVE" == settings.default("omp_wait_policy")
    assert settings.os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")  # a user's own choice wins
    assert settings.apply_openmp_wait_policy() == "ACTIVE"
