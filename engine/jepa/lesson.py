"""JEPA's lesson (:class:`engine.experiment.Lesson`): the papers' claims, and what this lab's runs measured
(the "Does JEPA collapse?" preset on the bundled MiniLM, CPU: docs/results.md)."""

from __future__ import annotations

from engine.experiment import Lesson
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
from engine.lesson_claims import Claim

CLAIMS = (
    Claim(
        COLLAPSE,
        STOP_GRAD_ONLY,
        "effective_rank",
        "below",
        "SimSiam (Chen & He 2021): without its predictor the stop-gradient alone does not prevent collapse.",
        than=JEPA_RUN,
        factor=0.5,
        source="paper",
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "effective_rank",
        "below",
        "Without EMA, predictor and stop-gradient the embeddings collapse: RankMe ends below half the JEPA "
        "run's.",
        than=JEPA_RUN,
        factor=0.5,
    ),
    Claim(
        COLLAPSE,
        JEPA_RUN,
        "effective_rank",
        "steady",
        "The JEPA run keeps its rank: RankMe stays within 10 % of its start.",
        by=0.1,
    ),
    Claim(
        COLLAPSE,
        STOP_GRAD_ONLY,
        "effective_rank",
        "below",
        "Stop-gradient alone collapses as well: RankMe ends below half the JEPA run's.",
        than=JEPA_RUN,
        factor=0.5,
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "dim_std_mean",
        "falls",
        "The per-dimension std falls towards 0 in the collapse case.",
        by=0.02,
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "uniformity",
        "rises",
        "Uniformity rises towards 0 as every sentence lands near one point.",
        by=1.0,
    ),
    Claim(
        COLLAPSE,
        NONE_OF_THREE,
        "alignment",
        "below",
        "A collapsed encoder aligns every pair: alignment ends below the JEPA run's.",
        than=JEPA_RUN,
    ),
    Claim(COLLAPSE, NONE_OF_THREE, "sts_spearman", "falls", "STS falls in the collapse case.", by=0.02),
    Claim(
        COLLAPSE,
        SIMCSE_RUN,
        "effective_rank",
        "above",
        "SimCSE, the contrastive reference, keeps more directions than the JEPA run.",
        than=JEPA_RUN,
    ),
    Claim(COLLAPSE, JEPA_RUN, "sts_spearman", "rises", "The JEPA run raises STS.", by=0.005),
    Claim(
        COLLAPSE,
        SIMCSE_RUN,
        "alignment",
        "rises",
        "SimCSE's alignment worsens at the preset's learning rate.",
        by=0.02,
    ),
    Claim(
        REGULARISED,
        SIGREG,
        "isoscore",
        "above",
        "LeJEPA (Balestriero & LeCun 2025): SIGReg pulls the embeddings towards an isotropic Gaussian.",
        than=PLAIN,
        source="paper",
    ),
    Claim(REGULARISED, VICREG, "isoscore", "below", "VICReg's IsoScore ends below plain JEPA's.", than=PLAIN),
    Claim(
        REGULARISED,
        VICREG,
        "effective_rank",
        "below",
        "VICReg's RankMe ends below plain JEPA's: it does not add directions.",
        than=PLAIN,
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
        "contrastive reference. Measured on the bundled MiniLM (span masking, batch 32, lr 1e-4, 60 steps, "
        "the demo pairs): the JEPA run kept RankMe at 238 of 246 and raised STS from 0.914 to 0.925; "
        "stop-gradient only and none of the three both collapsed, to RankMe 16 and STS 0.757; SimCSE spread "
        "the embeddings (RankMe 257) while its STS fell to 0.877 at that learning rate. The encoder is "
        "already trained contrastively: at SimCSE's lr 3e-5 the collapse barely starts within 30 steps "
        "(RankMe 151 → 136 on 200 sentences), hence the preset's 1e-4."
    ),
    watch=(
        "RankMe (effective rank) and the per-dimension std fall towards 1 and 0 when the embeddings "
        "collapse: measured 246 → 16 and 0.050 → 0.004 in the collapse case, 246 → 238 and 0.050 → 0.049 "
        "with JEPA;",
        "stop-gradient alone changes nothing here: with no predictor the symmetrised loss with a "
        "stop-gradient has exactly half the gradient of the loss without it, and AdamW ignores that scale, "
        "so the two runs end in the same place (RankMe 16.45 and 16.43; both collapse, as SimSiam reports "
        "without its predictor);",
        "alignment falls to 0 at collapse (0.278 → 0.002) while uniformity rises towards 0 (−3.74 → −0.02): "
        "on the alignment–uniformity plane (uniformity across, alignment up) the collapse runs to the lower "
        "right, to (0, 0), every sentence on one point; JEPA moves a little down (alignment 0.225), SimCSE "
        "up (alignment 0.391: its positives drift apart while its negatives spread).",
    ),
    measures={
        "effective_rank": "RankMe: the number of directions in use. Collapse case 246 → 16 in 60 steps; "
        "JEPA 246 → 238; SimCSE 246 → 257.",
        "alpha_req": "the spectrum's decay steepens as directions die out: 1.99 → 2.86 in the collapse case, "
        "1.99 → 2.18 with JEPA.",
        "dim_std_mean": "1/√d without collapse (0.051 for 384 dimensions; the MiniLM starts at 0.050), 0 at "
        "full collapse (0.004 after 60 steps without EMA, predictor and stop-gradient).",
        "dim_std_min": "the coordinate that varies least; it reaches 0 first.",
        "alignment": "a collapsed encoder aligns every pair (0.002): read it with uniformity. SimCSE's "
        "worsens at the preset's lr (0.278 → 0.391).",
        "uniformity": "rises towards 0 as the sentences crowd together (−0.02 in the collapse case).",
        "loss": "2 − 2 cos: it falls fastest, to about 0.01, in the collapse case, by collapsing; the JEPA "
        "run's stays near 0.35 after 60 steps.",
        "isoscore": "falls at collapse (0.20 → 0.04). SIGReg's target, N(0, I), is isotropic, the opposite "
        "pull to the isotropy paper's classifiers; yet in the preset's 60 steps at lr 1e-4 IsoScore fell "
        "with it too and did not end above plain JEPA's (0.200 → 0.144 with SIGReg, 0.112 with VICReg, "
        "0.174 plain): on this already contrastively trained encoder the pull did not show at that length.",
        "sts_spearman": "JEPA 0.914 → 0.925; collapse case → 0.757; SimCSE at the same lr → 0.877 (on the "
        "demo pairs).",
        "spectrum": "collapse shows as a spectrum whose tail drops by orders of magnitude.",
    },
    claims=CLAIMS,
)
