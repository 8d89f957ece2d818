"""JEPA's lesson (:class:`engine.experiment.Lesson`): the papers' claims, and what this lab's runs measured
(docs/results.md, "Does JEPA collapse?")."""

from __future__ import annotations

from engine.experiment import Lesson

LESSON = Lesson(
    title="JEPA (non-contrastive)",
    intro=(
        "Predict the embedding of one view of a sentence from another, in latent space, with no negatives "
        "(BYOL, SimSiam, I-JEPA). Nothing in the loss stops every sentence from mapping to the same point; "
        "the papers say a slowly moving target (EMA), a predictor and a stop-gradient, or a regulariser "
        "(VICReg, SIGReg), keep it from collapsing. Flip the switches and watch RankMe and the per-dimension "
        "std."
    ),
    watch=(
        "RankMe (effective rank) and the per-dimension std fall towards 1 and 0 when the embeddings "
        "collapse;",
        "α-ReQ rises as the variance gathers in fewer directions;",
        "alignment falls to 0 at collapse, but uniformity rises towards 0: the plane shows both.",
    ),
    measures={
        "effective_rank": "RankMe: the number of directions in use; collapse drives it towards 1.",
        "alpha_req": "the spectrum's decay: it steepens (α rises) as directions die out.",
        "dim_std_mean": "1/√d without collapse (0.051 for 384 dimensions), 0 at full collapse.",
        "alignment": "a collapsed encoder aligns every pair perfectly (0): read it with uniformity.",
        "uniformity": "rises towards 0 as the sentences crowd together.",
        "loss": "2 − 2 cos: 0 when the prediction matches the target; without a stop-gradient it falls "
        "fastest, by collapsing.",
        "isoscore": "SIGReg pushes the embeddings towards an isotropic Gaussian, so IsoScore rises with it.",
        "spectrum": "collapse shows as a spectrum whose tail drops by orders of magnitude.",
    },
)
