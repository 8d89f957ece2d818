"""The one relation-figure registry (engine.charts.RELATION_FIGURES): the run figures, their picker names,
the paper pairs and the replay's figures all come from it."""

from __future__ import annotations

from engine import charts, experiments
from engine.charts.relations import PAPER_PAIRS, figure_of_pair


def test_the_run_figures_and_their_names_are_the_registry_entries_with_a_panel() -> None:
    with_panel = {name for name, figure in charts.RELATION_FIGURES.items() if figure.panel is not None}
    assert set(charts.RUN_FIGURES) == set(charts.FIGURE_NAMES) == with_panel
    assert PAPER_PAIRS == {("isoscore", "silhouette"): "Mickus et al. 2024, Fig. 3"}


def test_a_pair_names_its_figure_and_a_path_counts_as_its_plane() -> None:
    assert figure_of_pair("isoscore", "silhouette") == "iso_sil"
    assert figure_of_pair("uniformity", "class_alignment") == "align_uniform"
    assert figure_of_pair("uniformity", "sts_spearman") is None
    assert charts.section_relations(None, ["align_uniform_path", "align_uniform"]) == ["align_uniform"]


def test_each_experiments_section_shows_registered_relation_figures() -> None:
    """What the replay draws for a run is its page section's: the probe's pair (IsoScore vs silhouette) and
    the alignment–uniformity plane of every experiment's ``figures``."""
    shown = {}
    for kind in ("probe", "simcse", "jepa"):
        section = experiments.get(kind).section
        shown[kind] = charts.section_relations(section.pair, section.figures)
    assert shown == {
        "probe": ["iso_sil", "align_uniform"],
        "simcse": ["align_uniform"],
        "jepa": ["align_uniform"],
    }
