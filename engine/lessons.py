"""The words the lab teaches with, written once: each experiment's introduction and what to watch, plain
definitions for the Overview, and the glossary of the measures. The pages, the glossary and the HTML lecture
replay (:mod:`engine.replay`) all read them from here, so a lesson says the same thing everywhere.

- :data:`LESSONS` / :func:`lesson` — each experiment's title, introduction and what to watch;
- :data:`DEFINITIONS` — alignment, uniformity and anisotropy in plain words (the Overview, before it uses them);
- :data:`TERMS` / :func:`glossary` — one :class:`Term` per measure: plain words, formula (LaTeX, as KaTeX
  renders it), range, which way is better, what to watch in each experiment, and the paper it comes from.
  :func:`glossary` takes the label, range and direction from the metrics registry
  (:data:`engine.metrics.METRICS`) where it describes the measure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


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
    ),
    "simcse": Lesson(
        title="SimCSE training",
        intro=(
            "Contrastive learning of sentence embeddings (Gao, Yao & Chen 2021): a sentence encoded twice with "
            "different dropout masks is its own positive; the other sentences of the batch are negatives. Flip an "
            "ablation in the sidebar and watch alignment, uniformity and the STS score move."
        ),
        watch=(
            "uniformity falls fast: the embeddings spread over the sphere;",
            "alignment stays low with dropout noise, and collapses to 0 without it (the positives are identical);",
            "the STS Spearman score climbs with dropout, and stalls without it or with the same mask.",
        ),
    ),
}

#: plain-word definitions the Overview gives before it uses the words
DEFINITIONS: dict[str, str] = {
    "alignment": "how close the two views of the same sentence land: small is good (positives stay together).",
    "uniformity": "how evenly all sentences spread over the sphere: more negative is more spread out.",
    "anisotropy": "the embeddings crowd into a few directions of the space instead of using all of them; "
    "isotropy is the opposite, every direction used alike.",
}

#: the same-mask switch in plain words, with a readable reference (the views' own line cites an issue number)
SAME_MASK = (
    "Both views of a sentence share one dropout mask, the paper's “fixed 0.1”: the sentence is encoded "
    "once with dropout 0.1 and that one embedding is also its positive, so only the push between "
    "different sentences trains. The rate is fixed at 0.1, so the dropout slider is off while this is "
    "on. This is how the SimCSE authors said to reproduce the ablation, in their answer to GitHub issue 36."
)
SAME_MASK_LINK = "https://github.com/princeton-nlp/SimCSE/issues/36"
SAME_MASK_DROPOUT = 0.1  # the paper's "fixed 0.1"

_ISOSCORE = (
    "Rudman, Gillman, Rayne & Eickhoff (2022), “IsoScore: Measuring the Uniformity of Embedding Space "
    "Utilization”, Findings of ACL 2022"
)
_WANG_ISOLA = (
    "Wang & Isola (2020), “Understanding Contrastive Representation Learning through Alignment and "
    "Uniformity on the Hypersphere”, ICML 2020"
)
_SIMCSE = "Gao, Yao & Chen (2021), “SimCSE: Simple Contrastive Learning of Sentence Embeddings”, EMNLP 2021"
_MICKUS = "Mickus, Grönroos & Attieh (2024), “Isotropy, Clusters, and Classifiers”, ACL 2024"

#: the glossary, in reading order; :func:`glossary` completes label, range and direction from the registry
TERMS: dict[str, Term] = {
    term.name: term
    for term in (
        Term(
            "isoscore",
            "IsoScore",
            "How evenly the embeddings use all the directions of their space. 1: every direction carries the same "
            "variance; 0: all the variance lies along one direction; k equally used directions out of d score "
            "(k − 1)/(d − 1).",
            r"\mathrm{IsoScore}(X) = \frac{\mathrm{PR}(C) - 1}{d - 1},\qquad "
            r"\mathrm{PR}(C) = \frac{(\operatorname{tr} C)^2}{\lVert C \rVert_F^2},\qquad C = \operatorname{cov}(X)",
            "0 to 1",
            "Higher is better",
            {
                "probe": "falls while the silhouette rises: the classifier squeezes the points onto a few directions. "
                "With fewer items than dimensions (n ≤ d) it cannot exceed (n − 2)/(d − 1): use more items, "
                "or read IsoScore*.",
                "simcse": "measured on the evaluation sentences; it moves little while uniformity falls. With fewer "
                "sentences than dimensions it is capped at (n − 2)/(d − 1).",
            },
            _ISOSCORE + " (PyPI IsoScore 2.0.1)",
        ),
        Term(
            "isoscore_star",
            "IsoScore*",
            "IsoScore of a shrunk covariance: a share ζ of a reference covariance C₀ (the identity by default) is "
            "mixed into the sample's covariance, so that a small sample (fewer points than dimensions) still gets "
            "a stable score.",
            r"C_\zeta = (1 - \zeta)\,\operatorname{cov}(X) + \zeta\, C_0,\qquad "
            r"\mathrm{IsoScore}^{\star}_{\zeta}(X) = \frac{\mathrm{PR}(C_\zeta) - 1}{d - 1}",
            "0 to 1",
            "Higher is better",
            {
                "probe": "read it instead of IsoScore when the Limit leaves fewer items than dimensions.",
                "simcse": "read it when few STS pairs are evaluated (fewer sentences than dimensions).",
            },
            "Rudman & Eickhoff (2024), “Stable Anisotropic Regularization”, ICLR 2024",
        ),
        Term(
            "silhouette",
            "Silhouette",
            "How well the labelled classes form separate clusters: for each point, how much closer it is to its own "
            "class (mean distance a) than to the nearest other class (mean distance b).",
            r"s(i) = \frac{b(i) - a(i)}{\max\{a(i),\, b(i)\}},\qquad S = \frac{1}{n}\sum_{i=1}^{n} s(i)",
            "−1 to 1",
            "Higher is better",
            {
                "probe": "climbs from about 0 towards 1 as the classes pull apart; its rise mirrors IsoScore's fall "
                "(the scatter's r and ρ near −1).",
                "simcse": "(probe silhouette, on the demo topics) unsupervised SimCSE never sees the labels, so it "
                "need not rise.",
            },
            "Rousseeuw (1987), “Silhouettes: a graphical aid to the interpretation and validation of cluster "
            "analysis”, J. Comput. Appl. Math. 20 (as scikit-learn's silhouette_score)",
        ),
        Term(
            "alignment",
            "Alignment",
            "How close the two embeddings of a positive pair land on the unit sphere (here: evaluation pairs rated "
            "above 4 of 5, near-paraphrases).",
            r"\ell_{\text{align}} = \mathbb{E}_{(x,\,x^{+}) \sim p_{\text{pos}}} \bigl\lVert f(x) - f(x^{+}) \bigr\rVert^{2}",
            "0 to 4",
            "Lower is better",
            {
                "simcse": "stays low with dropout noise; read it together with uniformity in the alignment–uniformity "
                "plane, where lower-left is better. The chart names the pairs it was measured on.",
                "probe": "the probe's alignment is its class alignment (same-class pairs as the positives; see Class "
                "alignment): its charts and lessons name it so, and it shares the alignment–uniformity plane "
                "with SimCSE runs in Compare and in the lesson to take home.",
            },
            _WANG_ISOLA,
        ),
        Term(
            "uniformity",
            "Uniformity",
            "How evenly all the sentences spread over the unit sphere: the log of the mean Gaussian similarity of "
            "all pairs.",
            r"\ell_{\text{uniform}} = \log\, \mathbb{E}_{x,\,y \,\overset{\text{i.i.d.}}{\sim}\, p_{\text{data}}}\, "
            r"e^{-2 \lVert f(x) - f(y) \rVert^{2}}",
            "−4 to 0",
            "Lower is better",
            {
                "simcse": "falls fast in every run: the negatives push the sentences apart over the sphere.",
                "probe": "rises (less uniform) as the points gather into a few class clusters.",
            },
            _WANG_ISOLA,
        ),
        Term(
            "class_alignment",
            "Class alignment",
            "Alignment with sentences of the same class as the positives: how tightly each class sits on the sphere.",
            r"\ell^{\text{class}}_{\text{align}} = \mathbb{E}_{i \ne j,\; y_i = y_j} \bigl\lVert f(x_i) - f(x_j) \bigr\rVert^{2}",
            "0 to 4",
            "Lower is better",
            {
                "probe": "falls as each class gathers; 2 means same-class points are no closer than random directions."
            },
            _WANG_ISOLA,
        ),
        Term(
            "sts_spearman",
            "STS Spearman",
            "How well the cosine similarities of sentence pairs rank the pairs as people scored them (0: unrelated, "
            "5: same meaning). SimCSE reports it × 100.",
            r"\rho = \operatorname{corr}\Bigl(\operatorname{rank}\bigl(\cos(f(s_i), f(s'_i))\bigr),\; "
            r"\operatorname{rank}(g_i)\Bigr)",
            "−1 to 1",
            "Higher is better",
            {
                "simcse": "climbs with dropout noise and stalls without it or with the same mask. The chart's title "
                "names the pairs it was measured on: STS-B dev from the data folder, or the built-in demo "
                "pairs when there is none."
            },
            "Cer, Diab, Agirre, Lopez-Gazpio & Specia (2017), “SemEval-2017 Task 1” (the STS Benchmark); used as in "
            + _SIMCSE,
        ),
        Term(
            "loss",
            "Loss",
            "The training objective. SimCSE: InfoNCE, each sentence must pick its own positive out of the batch "
            "(temperature τ). Probe: the cross-entropy of the linear classifier.",
            r"\begin{gathered}\text{SimCSE: } \ell_i = -\log \frac{e^{\operatorname{sim}(h_i, h_i^{+})/\tau}}"
            r"{\sum_{j=1}^{N} e^{\operatorname{sim}(h_i, h_j^{+})/\tau}} \\ "
            r"\text{probe: } \mathcal{L} = -\frac{1}{n} \sum_{i=1}^{n} \log \operatorname{softmax}(W e_i + b)_{y_i}"
            r"\end{gathered}",
            "0 or more",
            "Lower is better",
            {
                "probe": "falls towards 0 as the classifier separates the classes; a loss that grows (or becomes "
                "NaN) means the learning rate is too high.",
                "simcse": "falls, noisily (a new batch each step); with the same mask it falls fastest and means least.",
            },
            _SIMCSE + "; " + _MICKUS,
        ),
        Term(
            "accuracy",
            "Accuracy",
            "Share of the training sentences the linear classifier labels correctly.",
            r"\mathrm{acc} = \frac{1}{n} \sum_{i=1}^{n} \mathbf{1}\bigl[\arg\max_c\,(W e_i + b)_c = y_i\bigr]",
            "0 to 1",
            "Higher is better",
            {
                "probe": "reaches 1 quickly: the embeddings themselves are trained, so every class can be separated."
            },
            _MICKUS,
        ),
        Term(
            "effective_rank",
            "Effective rank",
            "About how many directions the embeddings really use: the exponential of the entropy of their "
            "normalised singular values (RankMe).",
            r"p_k = \frac{\sigma_k}{\sum_j \sigma_j} + \varepsilon,\qquad "
            r"\operatorname{RankMe}(X) = \exp\Bigl(-\sum_{k} p_k \log p_k\Bigr)",
            "1 to min(n, d)",
            "Higher is better",
            {
                "probe": "drops towards the number of classes as the clusters form.",
                "simcse": "rises a little as contrastive training spreads the embeddings.",
            },
            "Garrido, Balestriero, Najman & LeCun (2023), “RankMe: Assessing the downstream performance of "
            "pretrained self-supervised representations by their rank”, ICML 2023; after Roy & Vetterli (2007)",
        ),
        Term(
            "average_cosine",
            "Average cosine",
            "The mean cosine similarity of two different embeddings: near 0 when they point every way, near 1 when "
            "they share a common direction (a large mean vector). Unlike IsoScore it sees the mean.",
            r"\overline{\cos} = \frac{1}{n(n-1)} \sum_{i \ne j} \frac{x_i^{\top} x_j}{\lVert x_i \rVert\, \lVert x_j \rVert}",
            "−1 to 1",
            "Lower is better",
            {
                "simcse": "falls as the negatives push the sentences apart (pre-trained encoders often start high).",
                "probe": "moves with the classes: the points of one class come to point the same way.",
            },
            "Ethayarajh (2019), “How Contextual are Contextualized Word Representations?”, EMNLP 2019",
        ),
        Term(
            "partition_isotropy",
            "Partition isotropy I(W)",
            "Whether the partition function Z(c) looks the same in every principal direction c: its smallest value "
            "over its largest, over the eigenvectors of WᵀW taken with both signs.",
            r"I(W) = \frac{\min_{c \in C} Z(c)}{\max_{c \in C} Z(c)},\qquad Z(c) = \sum_{i=1}^{n} e^{c^{\top} w_i}",
            "0 to 1",
            "Higher is better",
            {
                "probe": "falls as a few directions come to dominate.",
                "simcse": "rises when training removes a dominant common direction.",
            },
            "Mu & Viswanath (2018), “All-but-the-Top: Simple and Effective Postprocessing for Word "
            "Representations”, ICLR 2018",
        ),
        Term(
            "spectrum",
            "Covariance spectrum",
            "The variances along the principal directions, largest first: a flat spectrum spreads the variance "
            "over many directions (isotropic), a steep one puts it into a few.",
            r"C = \frac{1}{n-1} \sum_{i=1}^{n} (x_i - \bar{x})(x_i - \bar{x})^{\top},\qquad "
            r"\lambda_1 \ge \lambda_2 \ge \dots \ge \lambda_d \ \text{(the eigenvalues of } C\text{)}",
            "0 or more, one value per direction",
            "Neither: read its shape",
            {
                "simcse": "flattens: the SimCSE paper reads this as the contrastive objective at work.",
                "probe": "concentrates on about as many directions as there are classes.",
            },
            _SIMCSE + " (Section 5)",
        ),
    )
}

_BETTER = {"higher": "Higher is better", "lower": "Lower is better", "neither": "Neither: read its shape"}
_KEEP_LABEL = {"partition_isotropy"}  # the glossary's label names the paper's symbol I(W)


def _number(value: float) -> str:
    return f"{value:g}".replace("-", "−")


def range_text(low: float | None, high: float | None) -> str:
    """A registry range ``(low, high)`` (None: open) in words, e.g. ``0 to 1``, ``1 or more``."""
    if low is not None and high is not None:
        return f"{_number(low)} to {_number(high)}"
    if low is not None:
        return f"{_number(low)} or more"
    if high is not None:
        return f"up to {_number(high)}"
    return "any number"


def glossary() -> list[Term]:
    """The glossary's terms in reading order. Where the metrics registry (:data:`engine.metrics.METRICS`)
    describes a measure, the label, the range and the direction are the registry's (one source for the CLI,
    the pages and the replay); the plain words, the formula, what to watch and the source are the lesson's."""
    from engine.metrics import METRICS

    terms = []
    for entry in TERMS.values():
        spec = METRICS.get(entry.name)
        if spec is not None:
            entry = replace(
                entry,
                label=entry.label if entry.name in _KEEP_LABEL else spec.label,
                range=range_text(*spec.range),
                better=_BETTER.get(spec.better, entry.better),
            )
        terms.append(entry)
    return terms


def lesson(kind: str) -> Lesson:
    """The lesson of experiment ``kind`` (``probe`` or ``simcse``)."""
    return LESSONS[kind]
