"""``python -m engine results`` refuses a table from a damaged run folder, shipped or not (issue 55, item 3):
metrics.csv cut to 3,000 bytes, replaced by random bytes, or with NaN in its last row gave a wrong table and
exit 0 on e23a065; now one line names the file, the document stays as it was and the exit is non-zero. The
folder's reader (engine.claims.folder_check) and its manifest are property-tested."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.claims import folder_check, shipped
from engine.cli import main

REPO = Path(__file__).resolve().parents[2]
#: a real shipped run (SimCSE, 100 steps), copied into a test's own repository
REAL = "cache/lessons-check/full/SimCSE-Figure-2/unsup-simcse"
BLOCK = f"<!-- results:runs measures=sts_spearman,alignment {REAL} -->\n\n<!-- /results:runs -->\n"


def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:3000])


def _random(path: Path) -> None:
    path.write_bytes(random.Random(55).randbytes(3000))


def _nan_last(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    cells = lines[-1].split(",")
    cells[lines[0].split(",").index("sts_spearman")] = "nan"
    path.write_text("\n".join([*lines[:-1], ",".join(cells)]) + "\n", encoding="utf-8")


DAMAGES = {"cut to 3000 bytes": _cut, "random bytes": _random, "NaN in the last row": _nan_last}


def _repo(tmp_path: Path, where: str) -> tuple[Path, Path]:
    """A repository holding the real run, shipped (with its manifest) or in ``cache/``, and a document
    with its table written; (the run's folder, the document)."""
    base = tmp_path / (str(shipped.SHIPPED) if where == "shipped" else "")
    folder = base / REAL
    shutil.copytree(REPO / shipped.SHIPPED / REAL, folder)
    if where != "shipped":
        (folder / folder_check.MANIFEST).unlink()
    doc = tmp_path / "docs" / "r.md"
    doc.parent.mkdir(exist_ok=True)
    doc.write_text(BLOCK, encoding="utf-8")
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 0
    assert "| 101 |" in doc.read_text()  # steps logged: 0 to 100
    return folder, doc


@pytest.mark.parametrize("where", ["shipped", "cache"])
@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_folder_gives_no_table(tmp_path: Path, capsys, where: str, damage: str) -> None:
    folder, doc = _repo(tmp_path, where)
    before = doc.read_bytes()
    capsys.readouterr()
    DAMAGES[damage](folder / "metrics.csv")
    assert main(["results", str(doc), "--root", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert str(folder / "metrics.csv") in err
    assert doc.read_bytes() == before
    assert main(["results", str(doc), "--root", str(tmp_path), "--check"]) != 0


def test_a_shipped_copy_without_its_manifest_or_with_a_changed_status_is_refused(tmp_path, capsys) -> None:
    folder, doc = _repo(tmp_path, "shipped")
    status = folder / "status.json"
    status.write_text(status.read_text().replace('"last_step": 100', '"last_step": 101'))
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 1
    assert f"{status}: its SHA-256 differs" in capsys.readouterr().err
    (folder / folder_check.MANIFEST).unlink()
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 1
    assert "MANIFEST.sha256: unreadable" in capsys.readouterr().err


def test_every_shipped_folder_holds_together_with_its_manifest() -> None:
    folders = sorted(p.parent for p in (REPO / shipped.SHIPPED).rglob("status.json"))
    assert folders
    for folder in folders:
        folder_check.check_folder(folder, shipped=True)


def test_ship_seals_a_copy_it_cannot_refresh_and_leaves_a_damaged_one(tmp_path: Path) -> None:
    folder, _ = _repo(tmp_path, "shipped")
    (folder / folder_check.MANIFEST).unlink()
    assert shipped.ship([REAL], tmp_path) == ([REAL], [])
    folder_check.check_folder(folder, shipped=True)
    (folder / folder_check.MANIFEST).unlink()
    _cut(folder / "metrics.csv")
    done, left = shipped.ship([REAL], tmp_path)
    assert done == [] and left == [f"{REAL}: no run here, and its shipped copy is damaged"]


cells = st.one_of(st.just(""), st.floats(allow_nan=False, allow_infinity=False).map(repr))


@st.composite
def metrics_files(draw) -> tuple[bytes, list[int]]:
    """A metrics.csv as the writer writes it: a header, increasing steps, finite or empty cells."""
    width = draw(st.integers(0, 4))
    steps = sorted(draw(st.sets(st.integers(0, 10_000), max_size=8)))
    rows = [",".join([str(s), *draw(st.lists(cells, min_size=width, max_size=width))]) for s in steps]
    header = ",".join(["step", *(f"m{k}" for k in range(width))])
    return ("\n".join([header, *rows]) + "\n").encode(), steps


@settings(max_examples=200, deadline=None)
@given(metrics_files())
def test_the_reader_returns_the_steps_of_a_whole_file(made) -> None:
    data, steps = made
    assert folder_check.metrics_steps(data) == steps


@settings(max_examples=200, deadline=None)
@given(metrics_files(), st.data())
def test_a_file_cut_or_with_a_non_finite_cell_is_refused(made, data) -> None:
    whole, steps = made
    cut = data.draw(st.integers(0, len(whole) - 1))
    if whole[cut - 1 : cut] != b"\n":  # a cut inside a line (at a line's end it is a shorter file)
        with pytest.raises(folder_check.DamagedFolder):
            folder_check.metrics_steps(whole[:cut])
    lines = whole.decode().splitlines()
    if len(lines) > 1 and "," in lines[-1]:
        bad = data.draw(st.sampled_from(["nan", "inf", "-inf", "x"]))
        row = lines[-1].split(",")
        row[data.draw(st.integers(1, len(row) - 1))] = bad
        with pytest.raises(folder_check.DamagedFolder):
            folder_check.metrics_steps(("\n".join([*lines[:-1], ",".join(row)]) + "\n").encode())


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_are_steps_or_one_line(data: bytes) -> None:
    try:
        steps = folder_check.metrics_steps(data)
    except folder_check.DamagedFolder as err:
        assert "\n" not in str(err)
    else:
        assert steps == sorted(set(steps))


names = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=20)
file_names = names.filter(lambda n: "/" not in n and n.strip() == n and n not in "..")


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(file_names, st.binary()))
def test_a_manifest_reads_back_as_written(files: dict[str, bytes]) -> None:
    expected = {name: folder_check.digest(data) for name, data in files.items()}
    assert folder_check.parse_manifest(folder_check.manifest_text(files)) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_manifest_text_is_digests_or_one_line(text: str) -> None:
    try:
        found = folder_check.parse_manifest(text)
    except folder_check.DamagedFolder as err:
        assert "\n" not in str(err)
    else:
        assert all(len(v) == 64 for v in found.values())


#: a shipped claims table of one setup (one seed), copied into a test's own repository
CLAIMS_OUT = "cache/claims-cpu"
CLAIMS_BLOCK = (
    f"<!-- results:claims --seeds 1 --setups i --metric-every 50 --out {CLAIMS_OUT} -->\n\n"
    "<!-- /results:claims -->\n"
)


def test_a_claims_tables_shipped_members_are_checked_too(tmp_path: Path) -> None:
    """A claims table reads its groups' member run folders: a damaged shipped member is refused like any
    run folder (one line naming the file, the document unchanged, exit 1), and ``--ship`` on a machine
    without the groups keeps (and seals) the shipped copy instead of leaving it out."""
    group = "claims-i-every50"
    source = REPO / shipped.SHIPPED / CLAIMS_OUT / group
    target = tmp_path / shipped.SHIPPED / CLAIMS_OUT / group
    shutil.copytree(source, target)
    member = target / "runs" / "seed-0"
    doc = tmp_path / "docs" / "r.md"
    doc.parent.mkdir(exist_ok=True)
    doc.write_text(CLAIMS_BLOCK, encoding="utf-8")
    assert shipped.claims_members(CLAIMS_BLOCK.split("claims ")[1].split(" -->")[0], tmp_path) == [
        f"{CLAIMS_OUT}/{group}/runs/seed-0"
    ]
    (member / folder_check.MANIFEST).unlink()
    assert main(["results", str(doc), "--root", str(tmp_path), "--ship"]) == 0
    assert (member / folder_check.MANIFEST).is_file()
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 0
    written = doc.read_text(encoding="utf-8")
    _random(member / "metrics.csv")
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 1
    assert doc.read_text(encoding="utf-8") == written
