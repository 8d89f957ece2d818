"""The words the lab teaches with, written once: each experiment's introduction and what to watch, plain
definitions for the Overview, and the glossary of the measures. The pages, the glossary and the HTML lecture
replay (:mod:`engine.replay`) all read them from here, so a lesson says the same thing everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    """What an experiment page (and its replay) says: a title, a short introduction, what to watch."""

    title: str
    intro: str
    watch: tuple[str, ...]


@dataclass(frozen=True)
class Term:
    """A glossary entry: formula (LaTeX), range, which way is better, what to watch in each experiment, source."""

    name: str
    label: str
    plain: str
    formula: str
    range: str
    better: str
    watch: dict[str, str]
    source: str


LESSONS: dict[str, Lesson] = {
    "probe": Lesson(
        title="Isotropy vs clusters",
        intro=("Sentence embeddings become parameters of a linear classifier (full-batch Adam). After every update "
               "the lab measures IsoScore (how evenly all directions are used) and the silhouette (how well the "
               "classes cluster). Mickus et al. (2024) found that the two move in opposite directions: clusters "
               "cost isotropy."),
        watch=("the silhouette rises while IsoScore falls, step after step;",
               "the IsoScore–silhouette scatter lines up on a falling diagonal (r and ρ close to −1);",
               "in the UMAP film the classes pull apart into separate islands."),
    ),
    "simcse": Lesson(
        title="SimCSE training",
        intro=("Contrastive learning of sentence embeddings (Gao, Yao & Chen 2021): a sentence encoded twice with "
               "different dropout masks is its own positive; the other sentences of the batch are negatives. Flip an "
               "ablation in the sidebar and watch alignment, uniformity and the STS score move."),
        watch=("uniformity falls fast: the embeddings spread over the sphere;",
               "alignment stays low with dropout noise, and collapses to 0 without it (the positives are identical);",
               "the STS Spearman score climbs with dropout, and stalls without it or with the same mask."),
    ),
}

#: plain-word definitions the Overview gives before it uses the words
DEFINITIONS: dict[str, str] = {
    "alignment": "how close the two views of the same sentence land: small is good (positives stay together).",
    "uniformity": "how evenly all sentences spread over the sphere: more negative is more spread out.",
    "anisotropy": "the embeddings crowd into a few directions of the space instead of using all of them; "
                  "isotropy is the opposite, every direction used alike.",
}


def lesson(kind: str) -> Lesson:
    """The lesson of experiment ``kind`` (``probe`` or ``simcse``)."""
    return LESSONS[kind]
