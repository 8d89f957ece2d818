"""The probe's entry in the experiment registry (:mod:`engine.experiments`): plain data and lazy references
only, so that reading it imports neither torch nor the probe's loop."""

from __future__ import annotations

from engine.experiment import Experiment, Lesson, Section
from engine.measures import SPECTRUM

LESSON = Lesson(
    title="Isotropy vs clusters",
    intro=(
        "Sentence embeddings become parameters of a linear classifier (full-batch Adam). After every update "
        "the lab measures IsoScore (how evenly all directions are used) and the silhouette (how well the "
        "classes cluster). Mickus et al. (2024) found that the two move in opposite directions: clusters "
        "cost isotropy."
    ),
    watch=(
        "the silhouette rises while IsoScore falls, step after step;",
        "the IsoScore–silhouette scatter lines up on a falling diagonal (r and ρ close to −1);",
        "in the UMAP film the classes pull apart into separate islands.",
    ),
    measures={
        "isoscore": "falls while the silhouette rises: the classifier squeezes the points onto a few "
        "directions. With fewer items than dimensions (n ≤ d) it cannot exceed (n − 2)/(d − 1): use more "
        "items, or read IsoScore*.",
        "isoscore_star": "read it instead of IsoScore when the Limit leaves fewer items than dimensions.",
        "silhouette": "climbs from about 0 towards 1 as the classes pull apart; its rise mirrors IsoScore's "
        "fall (the scatter's r and ρ near −1).",
        "alignment": "the probe's alignment is its class alignment (same-class pairs as the positives; see "
        "Class alignment): its charts and lessons name it so, and it shares the alignment–uniformity plane "
        "with SimCSE runs in Compare and in the lesson to take home.",
        "uniformity": "rises (less uniform) as the points gather into a few class clusters.",
        "class_alignment": "falls as each class gathers; 2 means same-class points are no closer than random "
        "directions.",
        "loss": "falls towards 0 as the classifier separates the classes; a loss that grows (or becomes NaN) "
        "means the learning rate is too high.",
        "accuracy": "reaches 1 quickly: the embeddings themselves are trained, so every class can be "
        "separated.",
        "micro_f1": "in the multi-label setups (WordNet parts of speech, supersenses) it rises before the "
        "exact-match accuracy does: single labels come right before whole label sets.",
        "effective_rank": "drops towards the number of classes as the clusters form.",
        "average_cosine": "moves with the classes: the points of one class come to point the same way.",
        "partition_isotropy": "falls as a few directions come to dominate.",
        "spectrum": "concentrates on about as many directions as there are classes.",
    },
)

SECTION = Section(
    page="views/isotropy.py",
    # engine.probe.measure.COLUMNS as charted; effective rank, I(W), uniformity and the spectrum every few
    # logged steps
    metrics=(
        "loss",
        "accuracy",
        "micro_f1",
        "isoscore",
        "silhouette",
        "effective_rank",
        "average_cosine",
        "partition_isotropy",
        "uniformity",
        "class_alignment",
    ),
    drawn=("loss", "accuracy", "isoscore", "silhouette", "effective_rank", SPECTRUM),
    pair=("isoscore", "silhouette"),
    empty="No probe runs yet. Press ▶ Start in the sidebar, or a preset.",
)

EXPERIMENT = Experiment(
    kind="probe",
    title="Isotropy vs clusters (linear-classifier embedding optimisation)",
    config_class="engine.probe:ProbeConfig",
    generator="engine.probe:run_probe",
    # the measures: engine.probe.measure.COLUMNS; the spectrum goes to spectrum.csv (Row.spectrum)
    columns=(
        "step",
        "loss",
        "accuracy",
        "micro_f1",
        "isoscore",
        "silhouette",
        "effective_rank",
        "average_cosine",
        "partition_isotropy",
        "uniformity",
        "alignment",
        "seconds",
    ),
    summarize="engine.probe:summarize",
    cli="engine.probe",
    task_parallel=True,
    charted_as={"alignment": "class_alignment"},
    vectors=(SPECTRUM,),
    lesson=LESSON,
    section=SECTION,
    presets="engine.probe.presets:presets",
    measured_on="engine.probe.facts:measured_on",
    describe="engine.probe.facts:describe",
    warm_up="engine.probe.warm:warm_demo",
)
