"""JEPA's lesson (:class:`engine.core.declaration.Lesson`): the papers' claims, and what this lab's runs
measured (the "Does JEPA collapse?" preset on the bundled MiniLM, CPU: docs/results.md)."""

from __future__ import annotations

from engine.core.declaration import Lesson
from engine.core.lesson_claims import Claim
from engine.core.measures import COLLAPSE_ONSET, RANKME
from engine.jepa.presets import (
    COLLAPSE,
    JEPA_RUN,
    NONE_OF_THREE,
    PLAIN,
    REGULARISED,
    SIGREG,
    SIMCSE_RUN,
    STOP_GRAD_ONLY,
    VICREG,
)

CLAIMS = (
    Claim(
        COLLAPSE,
        STOP_GRAD_ONLY,
        RANKME,
        "below",
        "SimSiam (Chen & He 2021): without its predictor the stop-gradient alone does not prevent collapse.",
        than=JEPA_RUN,
        factor=0.5,
        source="paper",
        key="paper_sg",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        RANKME,
        "below",
        "Without EMA, predictor and stop-gradient the embeddings collapse: RankMe ends below half the JEPA "
        "run's (and falls step after step: the claim below).",
        than=JEPA_RUN,
        factor=0.5,
        key="none_rank",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        RANKME,
        "monotone",
        "In the collapse case RankMe falls step after step.",
        way="falls",
        key="none_rank_steps",
    ),
    Claim(
        COLLAPSE,
        JEPA_RUN,
        RANKME,
        "above",
        "The JEPA run keeps its rank: RankMe ends above twice the collapse case's.",
        than=NONE_OF_THREE,
        factor=2.0,
        key="jepa_rank",
    ),
    Claim(
        COLLAPSE,
        STOP_GRAD_ONLY,
        RANKME,
        "monotone",
        "Stop-gradient alone collapses too: its RankMe falls step after step.",
        way="falls",
        key="sg_rank_steps",
    ),
    Claim(
        COLLAPSE,
        STOP_GRAD_ONLY,
        RANKME,
        "coincides",
        "Stop-gradient only and none of the three draw the same curve (with no predictor the symmetrised "
        "loss with a stop-gradient has half the gradient of the loss without it, and AdamW ignores that "
        "scale): their RankMe agrees within 0.1 % at every evaluation, and it moved by more than 10.",
        than=NONE_OF_THREE,
        within=1e-3,
        by=10.0,
        key="sg_same",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        RANKME,
        "warns",
        f"Collapse is seen coming: RankMe falls below {COLLAPSE_ONSET:.0%} of its start during the collapse "
        "run, never during the JEPA run.",
        than=JEPA_RUN,
        key="none_warns",
    ),
    Claim(
        COLLAPSE,
        STOP_GRAD_ONLY,
        RANKME,
        "warns",
        f"Stop-gradient alone sets off the collapse warning too (RankMe below {COLLAPSE_ONSET:.0%} of its "
        "start); the JEPA run does not.",
        than=JEPA_RUN,
        key="sg_warns",
    ),
    Claim(
        COLLAPSE,
        STOP_GRAD_ONLY,
        "dim_std_mean",
        "below",
        "Stop-gradient alone collapses too: its per-dimension std ends below half the JEPA run's.",
        than=JEPA_RUN,
        factor=0.5,
        key="sg_std",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "dim_std_mean",
        "falls",
        "The per-dimension std falls towards 0 in the collapse case.",
        by=0.02,
        key="none_std",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "uniformity",
        "rises",
        "Uniformity rises towards 0 as every sentence lands near one point.",
        by=1.0,
        key="none_unif",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "alignment",
        "below",
        "A collapsed encoder aligns every pair: alignment ends below the JEPA run's.",
        than=JEPA_RUN,
        key="none_align",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "isoscore",
        "falls",
        "IsoScore falls in the collapse case.",
        by=0.02,
        key="none_iso",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "alpha_req",
        "above",
        "The spectrum's decay steepens as directions die out: α-ReQ ends above the JEPA run's.",
        than=JEPA_RUN,
        key="alpha",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "loss",
        "below",
        "The collapse case's loss ends below the JEPA run's (by more than 0.1): it wins by collapsing.",
        than=JEPA_RUN,
        by=0.1,
        key="loss",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "sts_spearman",
        "falls",
        "STS falls in the collapse case.",
        by=0.02,
        key="none_sts",
    ),
    Claim(
        COLLAPSE,
        SIMCSE_RUN,
        RANKME,
        "above",
        "SimCSE, the contrastive reference, keeps more directions than the JEPA run.",
        than=JEPA_RUN,
        key="simcse_rank",
    ),
    Claim(
        COLLAPSE,
        JEPA_RUN,
        "sts_spearman",
        "above",
        "The JEPA run's STS ends above the collapse case's (by more than 0.02).",
        than=NONE_OF_THREE,
        by=0.02,
        key="jepa_sts",
    ),
    Claim(
        COLLAPSE,
        SIMCSE_RUN,
        "alignment",
        "rises",
        "SimCSE's alignment worsens at the preset's learning rate.",
        by=0.02,
        key="simcse_align",
    ),
    Claim(
        REGULARISED,
        SIGREG,
        "isoscore",
        "above",
        "LeJEPA (Balestriero & LeCun 2025): SIGReg pulls the embeddings towards an isotropic Gaussian.",
        than=PLAIN,
        source="paper",
        key="paper_sigreg",
    ),
    Claim(
        REGULARISED,
        VICREG,
        "isoscore",
        "below",
        "VICReg's IsoScore ends below plain JEPA's.",
        than=PLAIN,
        key="vicreg_iso",
    ),
    Claim(
        REGULARISED,
        VICREG,
        RANKME,
        "below",
        "VICReg's RankMe ends below plain JEPA's: it does not add directions.",
        than=PLAIN,
        key="vicreg_rank",
    ),
)

LESSON = Lesson(
    title="JEPA (non-contrastive)",
    intro=(
        "Predict the embedding of one view of a sentence from another, in latent space, with no negatives "
        "(BYOL, SimSiam, I-JEPA). Nothing in the loss stops every sentence from landing on the same point: "
        "the papers say a slowly moving (EMA) target with a predictor keeps it from collapsing (SimSiam: "
        "without the predictor or the stop-gradient it collapses; UNSEE: for sentences, without the slow "
        "target it collapses), and VICReg or SIGReg do it with a regulariser. The preset “Does JEPA "
        "collapse?” runs JEPA, stop-gradient only, none of the three, and unsupervised SimCSE as the "
        "contrastive reference. Measured by the lessons check on the bundled MiniLM (span masking, batch "
        "{none_rank.batch_size}, lr {none_rank.lr}, {none_rank.steps} steps): the JEPA run kept RankMe at "
        "{jepa_rank.end} of {jepa_rank.start} and moved STS from {jepa_sts.start} to {jepa_sts.end}; "
        "stop-gradient only and none of the three both collapsed, to RankMe {paper_sg.end} and "
        "{none_rank.end}, and STS fell to {none_sts.end} in the collapse case; SimCSE kept more directions "
        "than JEPA (RankMe {simcse_rank.end}). The encoder is already trained contrastively: at SimCSE's own "
        "learning rate the collapse barely starts within a short run (docs/results.md), hence the preset's "
        "higher one."
    ),
    watch=(
        "RankMe (effective rank) and the per-dimension std fall towards their floor (one direction, no "
        "spread) when the embeddings collapse: {none_rank.start} → {none_rank.end} and {none_std.start} → "
        "{none_std.end} in the collapse case, {jepa_rank.start} → {jepa_rank.end} and a std of "
        "{sg_std.than_end} with JEPA;",
        "stop-gradient alone changes nothing here, and its curve lies on that of none of the three (drawn "
        "dashed, with markers, where they coincide): with no predictor the symmetrised loss with a "
        "stop-gradient has exactly half the gradient of the loss without it, and AdamW ignores that scale "
        "but for its ε, so the two curves coincide (RankMe {paper_sg.end} and {none_rank.end}; both "
        "collapse, as SimSiam reports without its predictor);",
        "collapse is seen coming: once RankMe falls below a fixed share of its start (in the glossary) the "
        "charts mark that step and the page says that collapse is beginning: on both collapse runs, never "
        "on JEPA's;",
        "alignment falls at collapse ({none_align.start} → {none_align.end}) while uniformity rises "
        "towards its top ({none_unif.start} → {none_unif.end}): on the alignment–uniformity plane "
        "(uniformity across, alignment up) the collapse runs to the lower right, every sentence on one "
        "point; JEPA ends at alignment {none_align.than_end}, SimCSE moves up (alignment "
        "{simcse_align.start} → {simcse_align.end}: its positives drift apart while its negatives spread).",
    ),
    measures={
        RANKME: "RankMe: the number of directions in use. Collapse case {none_rank.start} → "
        "{none_rank.end}; JEPA {jepa_rank.start} → {jepa_rank.end}; SimCSE → {simcse_rank.end}.",
        "alpha_req": "the spectrum's decay steepens as directions die out: {alpha.start} → {alpha.end} in "
        "the collapse case, {alpha.than_start} → {alpha.than_end} with JEPA.",
        "dim_std_mean": "1/√d without collapse (the MiniLM starts at {none_std.start}), towards zero at full "
        "collapse ({none_std.end} without EMA, predictor and stop-gradient).",
        "dim_std_min": "the coordinate that varies least: the first sign of a dimension dying out.",
        "alignment": "a collapsed encoder aligns every pair ({none_align.end}): read it with uniformity. "
        "SimCSE's worsens at the preset's lr ({simcse_align.start} → {simcse_align.end}).",
        "uniformity": "rises towards its top as the sentences crowd together ({none_unif.end} in the "
        "collapse case).",
        "loss": "2 − 2 cos: it ends lowest in the collapse case ({loss.end}), by collapsing; the JEPA run's "
        "ends at {loss.than_end}.",
        "isoscore": "falls at collapse ({none_iso.start} → {none_iso.end}). SIGReg's target, N(0, I), is "
        "isotropic, the opposite pull to the isotropy paper's classifiers; yet IsoScore "
        "ended at {paper_sigreg.end} with SIGReg, {vicreg_iso.end} with VICReg and {paper_sigreg.than_end} "
        "plain, from {paper_sigreg.start}: LeJEPA's pull {paper_sigreg.here} on this already contrastively "
        "trained encoder at that length.",
        "sts_spearman": "JEPA {jepa_sts.start} → {jepa_sts.end}; collapse case → {none_sts.end}.",
        "spectrum": "collapse shows as a spectrum whose tail drops away (RankMe and α-ReQ read it).",
    },
    claims=CLAIMS,
)
