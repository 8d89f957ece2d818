"""engine.claims.results (``python -m engine results``): only the text between markers changes (hypothesis:
any prose around any number of blocks), unbalanced markers are one line, a missing or stale run folder is
named and its table kept, the runs and claims tables are written from their folders with command and date."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.claims import results
from engine.cli import main
from engine.core.errors import ConfigError
from engine.core.settings import REPO_ROOT

PROSE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r<"), max_size=60)


def _doc(pieces: list[str], bodies: list[str]) -> str:
    out = pieces[0]
    for index, (body, prose) in enumerate(zip(bodies, pieces[1:], strict=True)):
        out += f"\n<!-- results:runs a{index} -->\n{body}<!-- /results:runs -->\n{prose}"
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(PROSE, min_size=1, max_size=5), st.data())
def test_only_the_blocks_change(pieces: list[str], data: st.DataObject) -> None:
    bodies = [data.draw(PROSE.map(lambda t: t.replace("\n", " ") + "\n" if t else "")) for _ in pieces[1:]]
    text = _doc(pieces, bodies)
    new, problems = results.replace_blocks(text, lambda kind, args: f"table {kind} {args}")
    assert problems == []
    assert new == _doc(pieces, [f"table runs a{i}\n" for i in range(len(bodies))])
    again, _ = results.replace_blocks(new, lambda kind, args: f"table {kind} {args}")
    assert again == new  # idempotent


def test_a_missing_table_is_kept_and_named() -> None:
    text = (
        "a\n<!-- results:runs x -->\nold\n<!-- /results:runs -->\n"
        "b\n<!-- results:claims y -->\n<!-- /results:claims -->\n"
    )

    def render(kind: str, args: str) -> str:
        if kind == "runs":
            raise results.Missing("run folder x is missing")
        return "new"

    new, problems = results.replace_blocks(text, render)
    assert new == text.replace("<!-- results:claims y -->\n", "<!-- results:claims y -->\nnew\n")
    assert problems == ["results:runs: run folder x is missing"]


@pytest.mark.parametrize(
    "text",
    [
        "<!-- results:runs x -->\nbody\n",
        "body\n<!-- /results:runs -->\n",
        "<!-- results:runs x -->\n<!-- results:runs y -->\n<!-- /results:runs -->\n<!-- /results:runs -->\n",
        "text <!-- results:runs x -->\n<!-- /results:runs -->\n",
    ],
)
def test_bad_markers_are_one_line(text: str) -> None:
    with pytest.raises(ConfigError) as err:
        results.blocks(text)
    assert "\n" not in str(err.value)


def _run_folder(folder: Path, ended: float, iso: list[float], alpha: bool = False) -> Path:
    folder.mkdir(parents=True)
    status = {"state": "finished", "ended": ended, "last_step": len(iso) - 1}
    (folder / "status.json").write_text(json.dumps(status), encoding="utf-8")
    header = "step,isoscore,silhouette" + (",alpha_req" if alpha else "")
    rows = [f"{k},{v},{0.1 * k}" + (",1.5" if alpha else "") for k, v in enumerate(iso)]
    (folder / "metrics.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    (folder / "summary.json").write_text(
        json.dumps({"pearson_r": -0.9, "spearman_rho": -1.0}), encoding="utf-8"
    )
    return folder


def test_runs_table_from_run_folders(tmp_path: Path) -> None:
    _run_folder(tmp_path / "runs" / "a", results.ALPHA_REQ_SINCE + 86_400, [0.3, 0.2, 0.01])
    doc = tmp_path / "r.md"
    marker = "<!-- results:runs measures=isoscore,silhouette corr runs/a -->"
    doc.write_text(f"# R\n\n{marker}\nold\n<!-- /results:runs -->\nkept\n", encoding="utf-8")
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 0
    text = doc.read_text(encoding="utf-8")
    assert text.startswith(f"# R\n\n{marker}\n| run |") and text.endswith("<!-- /results:runs -->\nkept\n")
    assert "| `runs/a` | 3 | 0.3 → 0.01 | 0 → 0.2 | −0.9 | −1 | 2026-11-28 |" in text
    assert "written by `python -m engine results` on" in text and "--config-json RUN/config.json" in text
    assert main(["results", str(doc), "--root", str(tmp_path), "--check"]) == 0  # up to date


def results_doc(folder: Path, kind: str, *blocks: tuple[str, str]) -> tuple[Path, str]:
    """``folder``/r.md holding a ``kind`` results block per (arguments, old text) of ``blocks``; the file and
    its text."""
    end = f"<!-- /results:{kind} -->"
    body = "".join(f"<!-- results:{kind} {args} -->\n{old}\n{end}\n" for args, old in blocks)
    doc = folder / "r.md"
    doc.write_text(body, encoding="utf-8")
    return doc, body


def test_missing_and_stale_runs_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run_folder(tmp_path / "old", results.ALPHA_REQ_SINCE - 86_400, [0.3, 0.2], alpha=True)
    old, gone = ("measures=alpha_req old", "old α"), ("measures=isoscore gone", "old iso")
    doc, body = results_doc(tmp_path, "runs", old, gone)
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 1
    assert doc.read_text(encoding="utf-8") == body
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert "old estimator" in err[0] and str(tmp_path / "old") in err[0]
    assert f"run folder {tmp_path / 'gone'} is missing" in err[1]


def test_claims_table_from_its_groups(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flags = "--short --setups demo --seeds 1 --out groups"
    doc = tmp_path / "r.md"
    doc.write_text(f"<!-- results:claims {flags} -->\n<!-- /results:claims -->\n", encoding="utf-8")
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 1  # not run yet: named, kept
    assert "claims-demo-short is missing" in capsys.readouterr().err
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main(["claims", *flags.split()[:-1], str(tmp_path / "groups"), "--markdown"]) == 0
    table = stdout.getvalue().strip()
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 0
    text = doc.read_text(encoding="utf-8")
    assert f"\n{table}\n\nCommand: `python -m engine claims {flags}`" in text
    assert "Lab verdict: holds for a run when" in text and "Paper verdict:" in text
    assert re.search(r"runs in `[^`]+`, made \d{4}-\d{2}-\d{2}; table written by", text)


def test_a_table_links_to_the_papers_figures_from_the_file_it_goes_into(tmp_path) -> None:
    """The claims table's source links are written relative to docs/: in README.md they point into docs/."""
    from engine.claims.results import relinked

    table = f"| [setup (i)](paper.md#setup-i) | runs in `{tmp_path}/cache/claims` |"
    assert relinked(table, tmp_path / "docs" / "results.md", tmp_path) == (
        "| [setup (i)](paper.md#setup-i) | runs in `cache/claims` |"
    )
    assert "](docs/paper.md#setup-i)" in relinked(table, tmp_path / "README.md", tmp_path)


def test_a_script_table_is_what_its_script_prints_with_command_and_date(tmp_path, capsys) -> None:
    """``results:script``: the script's stdout and its command; a script that fails keeps the table and is
    named by its last line of stderr; a script outside scripts/ and benchmarks/ is refused."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "table.py").write_text(
        "import sys\nif sys.argv[1:] == ['fail']:\n    sys.exit('error: run folder x is missing')\n"
        "print('| a | b |\\n|---|---|\\n| ' + ' | '.join(sys.argv[1:]) + ' |')\n",
        encoding="utf-8",
    )
    (tmp_path / "elsewhere.py").write_text("print('| x |')\n", encoding="utf-8")
    two_words, failing = ("scripts/table.py 1 'two words'", "old"), ("scripts/table.py fail", "kept")
    doc, _ = results_doc(tmp_path, "script", two_words, failing)
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 1
    text = doc.read_text(encoding="utf-8")
    assert (
        "| a | b |\n|---|---|\n| 1 | two words |\n\nCommand: `python scripts/table.py 1 'two words'`" in text
    )
    assert "\nkept\n" in text
    assert "scripts/table.py exited 1: error: run folder x is missing" in capsys.readouterr().err
    for outside in ("elsewhere.py", "scripts/../elsewhere.py", "/bin/true"):
        doc.write_text(f"<!-- results:script {outside} -->\n<!-- /results:script -->\n", encoding="utf-8")
        assert main(["results", str(doc), "--root", str(tmp_path)]) == 2
        assert "runs only a .py file of scripts or benchmarks/" in capsys.readouterr().err


def _tables_outside_blocks(text: str) -> list[int]:
    """The line numbers of Markdown table rows of ``text`` that no results block writes."""
    inside = [(block.start, block.end) for block in results.blocks(text)]
    found, position = [], 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.lstrip().startswith("|") and not any(a <= position < b for a, b in inside):
            found.append(number)
        position += len(line)
    return found


def test_every_table_of_the_results_is_written_by_a_command() -> None:
    """docs/results.md and the README's Results: no table typed by hand (each is a results block)."""
    root = REPO_ROOT
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme[
        readme.index("\n## Results\n") : readme.index("\n## ", readme.index("\n## Results\n") + 1)
    ]
    for name, text in (
        ("docs/results.md", (root / "docs" / "results.md").read_text(encoding="utf-8")),
        ("README.md, Results", section),
    ):
        assert _tables_outside_blocks(text) == [], f"{name}: table rows typed by hand (line numbers)"
        for block in results.blocks(text):  # a block's body is the command's output, never a typed stand-in
            assert "table written by `python -m engine results` on " in text[block.start : block.end], (
                f"{name}: results:{block.kind} {block.args[:80]} never written by the command"
            )
    assert _tables_outside_blocks("a\n| x |\n<!-- results:runs r -->\n| y |\n<!-- /results:runs -->\n") == [2]
