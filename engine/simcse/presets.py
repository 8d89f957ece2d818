"""SimCSE's one-click presets (:class:`engine.core.declaration.Preset`), listed by
:func:`engine.lessons.presets.presets`.

- "SimCSE Figure 2": the four runs of Gao et al. 2021, Fig. 2
  (:data:`engine.simcse.augmentations.FIGURE2_RUNS`: unsup SimCSE, no dropout, fixed 0.1, delete one word),
  evaluated every 10 steps as in the paper, from the lab's stand-in for the paper's raw start: the bundled
  encoder read at its [CLS] token (:data:`engine.encoders.starts.MINILM_CLS`, with [CLS] + MLP in training as
  the paper's unsup runs). Its lecture version (:data:`LECTURE`) is short enough for a class on a 2-core CPU.
- "SimCSE on a trained encoder": the same four runs at the bundled encoder's own (mean) pooling, which
  sentence-transformers already trained contrastively: what SimCSE does to an encoder trained this way.

Both evaluate on STS-B dev when the data folder holds it, else on the built-in demo pairs (the description
says which).
"""

from __future__ import annotations

from typing import Any

from engine.core.declaration import Preset, Recorded
from engine.encoders.starts import MINILM_CLS, RAW_FULL, RAW_LECTURE, Chosen, raw_or_stand_in
from engine.training.presets import SHORT, sts_evaluation

FIGURE2 = "SimCSE Figure 2"
TRAINED = "SimCSE on a trained encoder"

#: the paper's runs whatever the sidebar says (dropout 0.1, no same mask, no augmentation but theirs), and
#: four runs do not save one encoder name
_PAPERS_RUNS: dict[str, Any] = {
    "mode": "unsup",
    "eval_every": 10,
    "snapshot_every": 10,
    "probe": "demo",
    "dropout": 0.1,
    "same_mask": False,
    "augment": "none",
    "hard_negative_weight": 1.0,
    "save_encoder": None,
    "replace_encoder": False,
}

#: Figure 2 from the [CLS] start: the encoder and its pooling (native: [CLS] + MLP in training, raw [CLS]
#: evaluated), and the paper's step size, batch and evaluation every 10 steps (lr 3e-5, batch 64), for 100
#: steps on wiki1m where the data folder holds it, evaluated on 250 pairs of STS-B dev (docs/results.md)
_FROM_CLS: dict[str, Any] = {
    **_PAPERS_RUNS,
    "encoder": MINILM_CLS.name,
    "pooler": "native",
    "lr": 3e-5,
    "batch_size": 64,
    "steps": 100,
    "eval": None,
    "eval_limit": 250,
}

#: the lecture version: the demo corpus, 10 steps of batch 32 at 3e-4 ([CLS] lifts within them: STS-B dev
#: 0.775 → 0.83 by step 10, docs/results.md), evaluated every 5 steps on 250 pairs of STS-B dev where the data
#: folder holds it (else on the demo pairs), with the silhouette and UMAP frames on 200 demo topics every 5
#: steps, so that its film shows
LECTURE: dict[str, Any] = {
    **SHORT,
    "eval": None,
    "eval_limit": 250,
    "steps": 10,
    "batch_size": 32,
    "lr": 3e-4,
    "eval_every": 5,
    "snapshot_every": 5,
    "probe": "demo",
    "probe_limit": 200,
}


#: the full preset's three-seed check, shipped (docs/results.md, "SimCSE Figure 2"): played by the page
RECORDED = Recorded(
    folder="cache/lessons-check/full",
    seeds=3,
    command='python -m engine lessons check --seeds 3 --preset "SimCSE Figure 2" --workers 2 '
    "--data-dir ../shared/data --out DIR --reuse --record",
)


def _figure2_runs() -> dict[str, dict[str, Any]]:
    """The four runs, the same-mask one (one forward a step: about half the work) last, so that runs side by
    side (``engine.jobs``) end close together."""
    from engine.simcse.augmentations import FIGURE2_RUNS

    order = sorted(FIGURE2_RUNS, key=lambda name: bool(FIGURE2_RUNS[name].get("same_mask")))
    return {name: dict(FIGURE2_RUNS[name]) for name in order}


def _start_words(start: Chosen) -> str:
    if start.raw:
        return f"from {start.encoder}, a raw MLM BERT as in the paper"
    return f"from {MINILM_CLS.title}, the lab's stand-in for the paper's raw BERT"


def presets(settings: dict[str, Any] | None = None) -> list[Preset]:
    """SimCSE's presets; ``settings`` (the user's, e.g. the data folder) complete the description. Figure 2
    starts from a raw MLM BERT where the local Hugging Face cache or the hub holds one (the full version from
    :data:`RAW_FULL`, the lecture from :data:`RAW_LECTURE`), else from :data:`MINILM_CLS`
    (:func:`engine.encoders.starts.raw_or_stand_in`; its note says which and why)."""
    where = sts_evaluation(settings)
    full, lecture = raw_or_stand_in(RAW_FULL), raw_or_stand_in(RAW_LECTURE)
    return [
        Preset(
            FIGURE2,
            "simcse",
            "Queues the four runs of SimCSE's Figure 2 (unsup SimCSE, no dropout, fixed 0.1, delete one "
            f"word) {_start_words(full)}; alignment and uniformity every 10 steps on {where}.",
            base={**_FROM_CLS, "encoder": full.encoder},
            runs=_figure2_runs(),
            short={**LECTURE, "encoder": lecture.encoder},
            lecture=True,
            recorded=RECORDED,
            note=full.why,
            short_note=lecture.why,
        ),
        Preset(
            TRAINED,
            "simcse",
            "Queues the same four runs on the bundled all-MiniLM-L6-v2 at its own (mean) pooling, an encoder "
            "sentence-transformers already trained contrastively: the positive is easy from the first "
            "step, so the paper's differences barely show; alignment and uniformity every 10 steps on "
            f"{where}.",
            base={**_PAPERS_RUNS, "encoder": None},
            runs=_figure2_runs(),
            short=SHORT,
        ),
    ]
