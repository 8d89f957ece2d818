"""``python -m engine probe --seeds``: a group of short probes, its summary against numpy over the members'
own summaries, its bands against the members' curves, and one-line errors for bad seeds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from engine import cli, groups, runlog
from engine.core import flags
from engine.core.errors import ConfigError
from engine.core.flags import parse_seeds

PROBE = ["probe", "--data", "demo", "--limit", "60", "--steps", "4", "--geometry-every", "2"]


@pytest.fixture(scope="module")
def seeds_group(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("seeds") / "demo-seeds"
    assert cli.main([*PROBE, "--seeds", "0,1,2", "--out", str(out)]) == 0
    return out


def test_each_seed_is_an_ordinary_run_folder_of_the_group(seeds_group: Path) -> None:
    group = groups.read_group(seeds_group)
    assert group.kind == "probe" and group.grid == {"seed": [0, 1, 2]}
    assert [(m.id, m.status, m.attempts) for m in group.members] == [
        ("seed-0", "done", 1),
        ("seed-1", "done", 1),
        ("seed-2", "done", 1),
    ]
    for member, run_dir in groups.member_dirs(group).items():
        config = json.loads((run_dir / "config.json").read_text())
        assert config["seed"] == int(member.removeprefix("seed-")) and config["steps"] == 4
        assert runlog.read_summary(run_dir)["state"] == "finished"
        assert runlog.read_metrics(run_dir)["step"].tolist() == [0, 1, 2, 3, 4]


def test_the_summary_is_mean_and_sample_std_of_the_members(seeds_group: Path) -> None:
    group = groups.read_group(seeds_group)
    written = json.loads((seeds_group / "summary.json").read_text())
    assert written == groups.summarise(group, write=False)
    (cell,) = written["cells"]
    assert cell["label"] == "all" and cell["done"] == 3 and written["std"].endswith("(ddof=1)")
    runs = [runlog.read_summary(d) for d in groups.member_dirs(group).values()]
    for key, reference in {
        "isoscore_end": [r["final"]["isoscore"] for r in runs],
        "silhouette_end": [r["final"]["silhouette"] for r in runs],
        "pearson_r": [r["pearson_r"] for r in runs],
        "isoscore_start": [r["isoscore_start"] for r in runs],
    }.items():
        figure = cell["figures"][key]
        assert figure["n"] == 3
        assert figure["mean"] == pytest.approx(np.mean(reference), abs=1e-12)
        assert figure["std"] == pytest.approx(np.std(reference, ddof=1), abs=1e-12)
        assert (figure["min"], figure["max"]) == (min(reference), max(reference))
    assert cell["figures"]["isoscore_end"]["std"] > 0  # the seeds differ
    assert "sts_spearman_end" not in cell["figures"]  # a probe logs no STS


def test_the_band_is_the_members_curves_per_step(seeds_group: Path) -> None:
    group = groups.read_group(seeds_group)
    band = groups.band(group, "isoscore")
    curves = np.array(
        [runlog.read_metrics(d)["isoscore"].to_numpy() for d in groups.member_dirs(group).values()]
    )
    assert band["step"].tolist() == [0, 1, 2, 3, 4] and band["n"].tolist() == [3] * 5
    np.testing.assert_allclose(band["mean"], curves.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(band["std"], curves.std(axis=0, ddof=1), rtol=0, atol=1e-12)
    np.testing.assert_allclose(band["min"], curves.min(axis=0), rtol=0, atol=0)
    assert set(groups.curves(group, "isoscore")["member"]) == {"seed-0", "seed-1", "seed-2"}
    assert groups.band(group, "no_such_measure").empty
    assert "± " in groups.format_summary(groups.summarise(group, write=False))


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3", [0, 1, 2]), ("0,5,2", [0, 5, 2]), (" 7 ", [0, 1, 2, 3, 4, 5, 6]), ("4,", None)],
)
def test_seeds_are_a_list_or_a_count(text: str, expected: list[int] | None) -> None:
    if expected is None:
        with pytest.raises(ConfigError, match="^--seeds: "):
            parse_seeds(text)
    else:
        assert parse_seeds(text) == expected


@pytest.mark.parametrize("text", ["0", "-1,2", "a", "1,1", "1.5"])
def test_bad_seeds_are_one_line_on_the_command_line(tmp_path: Path, capsys, text: str) -> None:
    assert cli.main([*PROBE, f"--seeds={text}", "--out", str(tmp_path / "g")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: --seeds") and "\n" not in error
    assert not (tmp_path / "g").exists()


def test_the_group_command_shows_state_and_summary(seeds_group: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["group", str(seeds_group)]) == 0
    shown = capsys.readouterr().out
    assert f"{seeds_group}: probe, 3 runs: 3 done" in shown and "final IsoScore" in shown and " ± " in shown
    assert cli.main(["group", str(seeds_group), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads((seeds_group / "summary.json").read_text())
    assert cli.main(["group", str(seeds_group / "runs")]) == 2
    assert "no group.json (not a group folder)" in capsys.readouterr().err


def test_the_replay_of_a_group_overlays_its_finished_runs(seeds_group: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "group.html"
    assert cli.main(["replay", str(seeds_group), "--out", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    members = groups.member_dirs(groups.read_group(seeds_group))
    assert sorted(report["runs"]) == sorted(str(path.resolve()) for path in members.values())
    assert "demo-seeds (3 runs)" in out.read_text(encoding="utf-8")  # the group's name titles the lesson


def test_the_replay_of_a_group_with_no_finished_run_is_one_line(tmp_path: Path, capsys) -> None:
    group = groups.create_group(tmp_path / "empty", "probe", {}, {"seed": [0]}, name="empty")
    assert cli.main(["replay", str(group.path), "--out", str(tmp_path / "x.html")]) == 2
    assert capsys.readouterr().err.strip() == "error: group empty: no finished run to replay yet"


# ------------------------------------------------------------ issue 37, item 5: the value space of --seeds
ASCII_SEEDS = st.lists(st.integers(0, flags.MAX_SEED), min_size=2, max_size=20, unique=True)


@given(ASCII_SEEDS, st.sampled_from([",", ", ", " ,"]))
@examples(max_examples=200)
def test_a_list_of_distinct_seeds_reads_back(seeds: list[int], comma: str) -> None:
    assert parse_seeds(comma.join(map(str, seeds))) == seeds


@given(st.text(max_size=30))
@examples(max_examples=500)
def test_any_text_is_seeds_or_one_line_naming_the_flag(text: str) -> None:
    try:
        seeds = parse_seeds(text)
    except ConfigError as err:
        assert str(err).startswith("--seeds: ") and "\n" not in str(err)
        return
    cells = [cell.strip(" \t") for cell in text.split(",")]
    assert all(cell and set(cell) <= set("0123456789") for cell in cells)  # ASCII digits only
    assert len(set(seeds)) == len(seeds) and all(0 <= seed <= flags.MAX_SEED for seed in seeds)


@given(st.characters(categories=["Nd", "No"]).filter(lambda c: c not in "0123456789"))
def test_digits_of_other_scripts_are_not_seeds(digit: str) -> None:
    with pytest.raises(ConfigError, match="^--seeds: expected a count"):
        parse_seeds(digit)
    with pytest.raises(ConfigError, match="^--seeds: expected a count"):
        parse_seeds(f"0,{digit}")


@given(st.integers(flags.MAX_SEED + 1, 10**400))
def test_a_seed_beyond_every_range_is_refused_whatever_its_size(seed: int) -> None:
    with pytest.raises(ConfigError, match=r"^--seeds: a seed is 0 to 9223372036854775807, got \d"):
        parse_seeds(f"0,{seed}")


@pytest.mark.parametrize(
    ("command", "text", "message"),
    [
        (PROBE, "²", "error: --seeds: expected a count (5) or seeds separated by commas (0,1,2), got '²'"),
        (PROBE, "١", "error: --seeds: expected a count (5) or seeds separated by commas (0,1,2), got '١'"),
        (PROBE, "", "error: --seeds: expected a count (5) or seeds separated by commas (0,1,2), got ''"),
        (PROBE, "0,99999999999999999999999", "error: --seeds: a seed is 0 to 9223372036854775807, got 9999"),
        (["jepa", "--steps", "2"], "0,4294967296", "error: --seeds: seed must be"),  # JEPA's own range
        (["sweep", *PROBE, "--grid", "lr=0.1"], "", "error: --seeds: expected a count"),
        (["sweep", *PROBE, "--grid", "lr=0.1"], "0,99999999999999999999999", "error: --seeds: a seed is 0"),
    ],
)
def test_bad_seeds_are_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture, command: list[str], text: str, message: str
) -> None:
    out = tmp_path / "g"
    assert cli.main([*command, "--seeds", text, "--out", str(out)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(message) and "\n" not in error, error
    assert not out.exists()
