"""The setups of the claims table: each of the isotropy paper's setups (Mickus, Grönroos & Attieh 2024) that
the lab can run, as probe settings, with the paper's own figure where ``docs/background.md`` gives one.

A setup's settings are the probe preset's where there is one (:mod:`engine.probe.presets`), so that the table
measures what the page's buttons run, at the paper's own length (1000 updates; App. A 250) and protocol
(metrics after every update); ``SHORT`` holds the tiny settings of ``--short`` (tests, a first look). The
paper's figures and the sections they come from are in ``docs/paper.md`` (each setup's ``source`` names its
anchor there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.probe.presets import presets

#: no UMAP frames, no spectrum, no lecture pace: the table reads start, end and the correlations only
LEAN = {"snapshot_every": 0, "geometry_every": 0, "lecture_pace": False}
#: ``--short``: a first look in seconds (and the tests)
SHORT = {"steps": 30, "metric_every": 1, "limit": 300}


@dataclass(frozen=True)
class ClaimSetup:
    """One row of the claims table.

    ``settings``: the probe config's fields; ``paper_r``/``paper_rho``: the paper's Pearson r and Spearman ρ
    of IsoScore against the silhouette, as ``docs/paper.md`` quotes them (None where it gives none);
    ``paper_note``: the paper's figure in words; ``differs``: how the lab's setup departs from the paper's;
    ``source``: where the paper gives the figure (its part; the anchor of ``docs/paper.md`` that quotes it).
    """

    key: str
    title: str
    data: str
    vectors: str
    items: int
    settings: dict[str, Any]
    paper_note: str
    differs: str
    paper_r: float | None = None
    paper_rho: float | None = None
    source: tuple[str, str] = ("", "")

    @property
    def length(self) -> int:
        """The setup's own number of updates: the paper's (1000; App. A 250), the demo preset's."""
        return int(self.settings["steps"])

    @property
    def source_text(self) -> str:
        """Where the paper gives the figure, in words, with the file that quotes it."""
        part, anchor = self.source
        return f"{part} (docs/paper.md#{anchor})" if part else "—"


def _preset(name: str) -> dict[str, Any]:
    """The probe preset ``name``'s settings (its one run's config fields)."""
    for preset in presets(estimate=False):  # the fields only: no device resolved, torch not imported
        if preset.name == name:
            return dict(preset.configs()[0][1])
    raise KeyError(name)


SENTENCES = "all-MiniLM-L6-v2 sentence embeddings (d 384)"
WORD_TABLE = "all-MiniLM-L6-v2 input table, one-piece words (d 384)"
ANTI = "ρ below −0.998"

SETUPS: tuple[ClaimSetup, ...] = (
    ClaimSetup(
        "i",
        "(i) polarity",
        "rt-polarity",
        SENTENCES,
        10_662,
        {**_preset("Isotropy paper, setup (i)"), **LEAN},
        f"r −0.808, {ANTI}",
        "the paper's data, encoder and optimiser",
        -0.808,
        -0.998,
        ("experiments, setup (i)", "setup-i"),
    ),
    ClaimSetup(
        "ii",
        "(ii) SNLI, paired",
        "snli (validation)",
        SENTENCES,
        9_842,
        {**_preset("Isotropy paper, setup (i)"), "data": "snli", **LEAN},
        f"r −0.878, {ANTI}",
        "the paper's data and encoder; paired: unique sentences trained, classifier on [E_p ; E_h]",
        -0.878,
        -0.998,
        ("experiments, setup (ii)", "setup-ii"),
    ),
    ClaimSetup(
        "iii",
        "(iii) POS sets",
        "wordnet-pos",
        WORD_TABLE,
        14_307,
        {**_preset("Isotropy paper, setup (iii)"), **LEAN},
        f"r −0.947, {ANTI}",
        "WordNet POS sets, not CoDWoE (11,462 items); BERT input vectors, not word2vec",
        -0.947,
        -0.998,
        ("experiments, setup (iii)", "setup-iii"),
    ),
    ClaimSetup(
        "iv",
        "(iv) supersenses, 45 labels",
        "wordnet-supersenses",
        WORD_TABLE,
        14_307,
        {**_preset("Isotropy paper, setup (iv)"), **LEAN},
        f"r −0.978, {ANTI}",
        "all 45 supersenses and 14,307 words (paper: 26 noun supersenses, 2,275 items); not word2vec",
        -0.978,
        -0.998,
        ("experiments, setup (iv); Table 1 (26 labels, 2,275 items)", "setup-iv"),
    ),
    ClaimSetup(
        "iv-nouns",
        "(iv) noun supersenses, 26 labels",
        "wordnet-noun-supersenses",
        WORD_TABLE,
        2_275,
        {**_preset("Isotropy paper, setup (iv), nouns"), **LEAN},
        f"r −0.978, {ANTI}",
        "the paper's size and labels; WordNet 3.0 nouns, not Tikhonov et al.'s set; not word2vec",
        -0.978,
        -0.998,
        ("experiments, setup (iv); Table 1 (26 labels, 2,275 items)", "setup-iv"),
    ),
    ClaimSetup(
        "app-a",
        "App. A: 250 updates, sampled metrics",
        "rt-polarity",
        SENTENCES,
        10_662,
        {**_preset("Isotropy paper, setup (i)"), **LEAN, "steps": 250, "sample_size": 1000},
        "anti-correlated in every setup (no figure quoted)",
        "rt-polarity instead of GLUE (not offline); one encoder of three; metrics on 1,000 sampled items",
        source=("Appendix A", "appendix-a"),
    ),
    ClaimSetup(
        "app-b",
        "App. B: triplet objective",
        "rt-polarity",
        SENTENCES,
        10_662,
        {**_preset("Isotropy paper, setup (i)"), **LEAN, "objective": "triplet"},
        "none: the paper leaves it open",
        "the paper ran no triplet model; triples drawn afresh every update, margin 1",
        source=("Appendix B", "appendix-b"),
    ),
    ClaimSetup(
        "demo",
        "demo corpus (the lab's own)",
        "demo",
        SENTENCES,
        600,
        {**_preset("Demo: clusters form"), **LEAN},
        "not in the paper",
        "the lab's built-in 600 sentences, 6 topics, 150 updates",
    ),
)

KEYS = tuple(setup.key for setup in SETUPS)
#: the setups ``python -m engine claims`` runs when none are named: the paper's, not the demo
PAPER_KEYS = tuple(key for key in KEYS if key != "demo")


def by_keys(keys: list[str] | None) -> list[ClaimSetup]:
    """The setups named by ``keys`` (None: the paper's), in the table's order; an unknown key is an error."""
    from engine.core.errors import ConfigError

    wanted = keys or list(PAPER_KEYS)
    unknown = [key for key in wanted if key not in KEYS]
    if unknown:
        raise ConfigError(f"--setups: unknown {', '.join(unknown)}; choose from {', '.join(KEYS)}")
    return [setup for setup in SETUPS if setup.key in wanted]
