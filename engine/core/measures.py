"""The measure registry: every measure the lab logs or draws, declared once.

A :class:`Measure` holds what every reader needs: its name (the ``metrics.csv`` column), its label (glossary,
pickers) and chart title, its unit, which way is better and what a higher value means, its natural range, its
formula (LaTeX, as KaTeX renders it) with the paper it comes from, its glossary text, and how to chart it (a
linear or log axis; one number per step, or a vector per step such as the spectrum). The charts
(:mod:`engine.charts`), the glossary (:func:`engine.lessons.texts.glossary`, the Glossary page), the replay,
Compare and the lessons read it from here. Which experiments log a measure is not declared here but read from
the experiments' columns (:func:`engine.experiments.logging`), so that it cannot drift.

Adding a measure: one entry in :data:`MEASURES`, its function in :mod:`engine.metrics` and its test; an
experiment that logs it lists its column (:mod:`engine.experiments`) through the name's constant here
(:data:`RANKME`, …) or a group (:data:`GEOMETRY`, :data:`COLLAPSE`, :data:`ON_LABELLED_SET`): a measure's name
is written in its declaration, its function and its tests only. Renaming one keeps the old name in its
``aliases``: older run folders read under the new name (:mod:`engine.runlog.reading`).

This module imports nothing heavy (no torch, no plotly): the replay, the CLI and the pages read it cheaply.
"""

from __future__ import annotations

from engine.core.measure_spec import BETTER as BETTER
from engine.core.measure_spec import KINDS as KINDS
from engine.core.measure_spec import SCALES as SCALES
from engine.core.measure_spec import Column, Measure, labelled_set_columns, on_labelled_set
from engine.core.measure_spec import range_text as range_text

#: the measures' names (the ``metrics.csv`` columns): code that lists measures names them through these and
#: the groups below, never by a string of its own
ISOSCORE = "isoscore"
ISOSCORE_STAR = "isoscore_star"
SILHOUETTE = "silhouette"
ALIGNMENT = "alignment"
UNIFORMITY = "uniformity"
CLASS_ALIGNMENT = "class_alignment"
STS_SPEARMAN = "sts_spearman"
LOSS = "loss"
ACCURACY = "accuracy"
MICRO_F1 = "micro_f1"
RANKME = "rankme"
AVERAGE_COSINE = "average_cosine"
PARTITION_ISOTROPY = "partition_isotropy"
SPECTRUM = "spectrum"  # the vector measure that has a chart of its own (rank on x, one line per step)
ALPHA_REQ = "alpha_req"
DIM_STD_MEAN = "dim_std_mean"
DIM_STD_MIN = "dim_std_min"
#: collapse, seen coming: a run's RankMe below this fraction of its first logged value; the charts mark the
#: step and the page says collapse is beginning (:mod:`engine.core.collapse_onset`; RankMe's glossary entry)
COLLAPSE_ONSET = 0.75

_ISOSCORE = (
    "Rudman, Gillman, Rayne & Eickhoff (2022), “IsoScore: Measuring the Uniformity of Embedding Space "
    "Utilization”, Findings of ACL 2022"
)
_WANG_ISOLA = (
    "Wang & Isola (2020), “Understanding Contrastive Representation Learning through Alignment and "
    "Uniformity on the Hypersphere”, ICML 2020"
)
_SIMCSE = "Gao, Yao & Chen (2021), “SimCSE: Simple Contrastive Learning of Sentence Embeddings”, EMNLP 2021"
_BYOL = (
    "Grill et al. (2020), “Bootstrap Your Own Latent: A New Approach to Self-Supervised Learning”, "
    "NeurIPS 2020"
)
_MICKUS = "Mickus, Grönroos & Attieh (2024), “Isotropy, Clusters, and Classifiers”, ACL 2024"

_MEASURES = (
    Measure(
        ISOSCORE,
        "IsoScore",
        "How evenly the embeddings use all the directions of their space. 1: every direction carries the "
        "same variance; 0: all the variance lies along one direction; k equally used directions out of d "
        "score (k − 1)/(d − 1).",
        r"\mathrm{IsoScore}(X) = \frac{\mathrm{PR}(C) - 1}{d - 1},\qquad "
        r"\mathrm{PR}(C) = \frac{(\operatorname{tr} C)^2}{\lVert C \rVert_F^2},\qquad "
        r"C = \operatorname{cov}(X)",
        _ISOSCORE + " (PyPI IsoScore 2.0.1)",
        "higher",
        "the variance is spread over more directions (more isotropic)",
        (0.0, 1.0),
        fixed_range=True,
    ),
    Measure(
        ISOSCORE_STAR,
        "IsoScore*",
        "IsoScore of a shrunk covariance: a share ζ of a reference covariance C₀ (the identity by default) "
        "is mixed into the sample's covariance, so that a small sample (fewer points than dimensions) still "
        "gets a stable score.",
        r"C_\zeta = (1 - \zeta)\,\operatorname{cov}(X) + \zeta\, C_0,\qquad "
        r"\mathrm{IsoScore}^{\star}_{\zeta}(X) = \frac{\mathrm{PR}(C_\zeta) - 1}{d - 1}",
        "Rudman & Eickhoff (2024), “Stable Anisotropic Regularization”, ICLR 2024",
        "higher",
        "the shrunk covariance spreads its variance over more directions",
        (0.0, 1.0),
        fixed_range=True,
    ),
    Measure(
        SILHOUETTE,
        "Silhouette",
        "How well the labelled classes form separate clusters: for each point, how much closer it is to its "
        "own class (mean distance a) than to the nearest other class (mean distance b).",
        r"s(i) = \frac{b(i) - a(i)}{\max\{a(i),\, b(i)\}},\qquad S = \frac{1}{n}\sum_{i=1}^{n} s(i)",
        "Rousseeuw (1987), “Silhouettes: a graphical aid to the interpretation and validation of cluster "
        "analysis”, J. Comput. Appl. Math. 20 (as scikit-learn's silhouette_score)",
        "higher",
        "tighter, farther-apart classes",
        (-1.0, 1.0),
        fixed_range=True,
    ),
    Measure(
        ALIGNMENT,
        "Alignment",
        "How close the two embeddings of a positive pair land on the unit sphere (here: evaluation pairs "
        "rated above 4 of 5, near-paraphrases).",
        r"\ell_{\text{align}} = \mathbb{E}_{(x,\,x^{+}) \sim p_{\text{pos}}} "
        r"\bigl\lVert f(x) - f(x^{+}) \bigr\rVert^{2}",
        _WANG_ISOLA,
        "lower",
        "the two sentences of a positive pair land farther apart",
        (0.0, 4.0),
        unit="squared distance",
        title="Alignment (lower is better)",
        symbol="l_align",
    ),
    Measure(
        UNIFORMITY,
        "Uniformity",
        "How evenly all the sentences spread over the unit sphere: the log of the mean Gaussian similarity "
        "of all pairs.",
        r"\ell_{\text{uniform}} = \log\, \mathbb{E}_{x,\,y \,\overset{\text{i.i.d.}}{\sim}\, "
        r"p_{\text{data}}}\, e^{-2 \lVert f(x) - f(y) \rVert^{2}}",
        _WANG_ISOLA,
        "lower",
        "the sentences crowd together on the sphere",
        (-4.0, 0.0),
        title="Uniformity (lower is better)",
        symbol="l_uniform",
    ),
    Measure(
        CLASS_ALIGNMENT,
        "Class alignment",
        "Alignment with sentences of the same class as the positives: how tightly each class sits on the "
        "sphere.",
        r"\ell^{\text{class}}_{\text{align}} = \mathbb{E}_{i \ne j,\; y_i = y_j} "
        r"\bigl\lVert f(x_i) - f(x_j) \bigr\rVert^{2}",
        _WANG_ISOLA,
        "lower",
        "the points of a class sit farther apart (2: no closer than random directions)",
        (0.0, 4.0),
        unit="squared distance",
        title="Class alignment (lower is better)",
        symbol="l_align",
    ),
    Measure(
        STS_SPEARMAN,
        "STS Spearman",
        "How well the cosine similarities of sentence pairs rank the pairs as people scored them (0: "
        "unrelated, 5: same meaning). SimCSE reports it × 100.",
        r"\rho = \operatorname{corr}\Bigl(\operatorname{rank}\bigl(\cos(f(s_i), f(s'_i))\bigr),\; "
        r"\operatorname{rank}(g_i)\Bigr)",
        "Cer, Diab, Agirre, Lopez-Gazpio & Specia (2017), “SemEval-2017 Task 1” (the STS Benchmark); used "
        "as in " + _SIMCSE,
        "higher",
        "the cosines rank the pairs more as people do",
        (-1.0, 1.0),
        title="STS Spearman ρ",
    ),
    Measure(
        LOSS,
        "Loss",
        "The training objective. SimCSE: InfoNCE, each sentence must pick its own positive out of the batch "
        "(temperature τ). Probe: the cross-entropy of the linear classifier. JEPA: 2 − 2 × the cosine of the "
        "predicted and the target embedding (symmetrised), plus the anti-collapse regulariser if any.",
        r"\begin{gathered}\text{SimCSE: } \ell_i = -\log \frac{e^{\operatorname{sim}(h_i, h_i^{+})/\tau}}"
        r"{\sum_{j=1}^{N} e^{\operatorname{sim}(h_i, h_j^{+})/\tau}} \\ "
        r"\text{probe: } \mathcal{L} = -\frac{1}{n} \sum_{i=1}^{n} "
        r"\log \operatorname{softmax}(W e_i + b)_{y_i} \\ "
        r"\text{JEPA: } \mathcal{L} = 2 - 2\cos\bigl(g(f_\theta(x')),\, \operatorname{sg} f_\xi(x'')\bigr)"
        r"\end{gathered}",
        _SIMCSE + "; " + _MICKUS + "; " + _BYOL,
        "lower",
        "the model meets its objective less well",
        (0.0, None),
        unit="nats",
        title="Training loss",
    ),
    Measure(
        ACCURACY,
        "Accuracy",
        "Share of the training sentences the linear classifier labels correctly.",
        r"\mathrm{acc} = \frac{1}{n} \sum_{i=1}^{n} \mathbf{1}\bigl[\arg\max_c\,(W e_i + b)_c = y_i\bigr]",
        _MICKUS,
        "higher",
        "more items labelled correctly",
        (0.0, 1.0),
    ),
    Measure(
        MICRO_F1,
        "Micro-F1",
        "The F1 score of the classifier's label decisions pooled over every (item, label) cell: with one "
        "label per item it equals the accuracy; with label sets (multi-label) a partly right set still "
        "counts its right labels. Empty for the triplet objective (no classifier).",
        r"F_1^{\text{micro}} = \frac{2\,\mathrm{TP}}{2\,\mathrm{TP} + \mathrm{FP} + \mathrm{FN}}",
        'as scikit-learn\'s f1_score(average="micro"); the multi-label setups of ' + _MICKUS,
        "higher",
        "more labels predicted right and fewer wrong",
        (0.0, 1.0),
    ),
    Measure(
        RANKME,
        "RankMe",
        "About how many directions the embeddings really use: the exponential of the entropy of their "
        "normalised singular values. Also called the effective rank (Roy & Vetterli 2007; older runs' column "
        f"effective_rank). Collapse, seen coming: once a run's RankMe falls below {COLLAPSE_ONSET:.0%} of "
        "its first value, the charts mark that step and the page says that collapse is beginning.",
        r"p_k = \frac{\sigma_k}{\sum_j \sigma_j} + \varepsilon,\qquad "
        r"\operatorname{RankMe}(X) = \exp\Bigl(-\sum_{k} p_k \log p_k\Bigr)",
        "Garrido, Balestriero, Najman & LeCun (2023), “RankMe: Assessing the downstream performance of "
        "pretrained self-supervised representations by their rank”, ICML 2023; after Roy & Vetterli (2007)",
        "higher",
        "the embeddings use more directions",
        (1.0, None),
        unit="directions",
        title="RankMe (effective rank)",
        aliases=("effective_rank",),
    ),
    Measure(
        AVERAGE_COSINE,
        "Average cosine",
        "The mean cosine similarity of two different embeddings: near 0 when they point every way, near 1 "
        "when they share a common direction (a large mean vector). Unlike IsoScore it sees the mean.",
        r"\overline{\cos} = \frac{1}{n(n-1)} \sum_{i \ne j} "
        r"\frac{x_i^{\top} x_j}{\lVert x_i \rVert\, \lVert x_j \rVert}",
        "Ethayarajh (2019), “How Contextual are Contextualized Word Representations?”, EMNLP 2019",
        "lower",
        "the embeddings share a common direction more",
        (-1.0, 1.0),
        fixed_range=True,
    ),
    Measure(
        PARTITION_ISOTROPY,
        "Partition isotropy I(W)",
        "Whether the partition function Z(c) looks the same in every principal direction c: its smallest "
        "value over its largest, over the eigenvectors of WᵀW taken with both signs.",
        r"I(W) = \frac{\min_{c \in C} Z(c)}{\max_{c \in C} Z(c)},\qquad "
        r"Z(c) = \sum_{i=1}^{n} e^{c^{\top} w_i}",
        "Mu & Viswanath (2018), “All-but-the-Top: Simple and Effective Postprocessing for Word "
        "Representations”, ICLR 2018",
        "higher",
        "every principal direction looks more alike",
        (0.0, 1.0),
        fixed_range=True,
    ),
    Measure(
        SPECTRUM,
        "Covariance spectrum",
        "The variances along the principal directions, largest first: a flat spectrum spreads the variance "
        "over many directions (isotropic), a steep one puts it into a few.",
        r"C = \frac{1}{n-1} \sum_{i=1}^{n} (x_i - \bar{x})(x_i - \bar{x})^{\top},\qquad "
        r"\lambda_1 \ge \lambda_2 \ge \dots \ge \lambda_d \ \text{(the eigenvalues of } C\text{)}",
        _SIMCSE + " (Section 5)",
        "neither",
        "more variance along that principal direction (read the shape: flatter uses more directions)",
        (0.0, None),
        unit="variance",
        kind="vector",
        scale="log",
    ),
)

_COLLAPSE_LENS = (
    Measure(
        ALPHA_REQ,
        "α-ReQ",
        "How fast the variances along the principal directions fall off: the exponent α of a power law "
        "λ_k ∝ k^−α fitted to the covariance spectrum as the paper's reference code (reptrix) does: least "
        "squares of log λ_k on log k with weights 1/k over the ranks 11 to 100 (fewer when N − 1, d or the "
        "number of non-zero eigenvalues is smaller; no value when that leaves under 3 ranks). Small: a flat "
        "spectrum, many directions used; large: the variance in a few directions, towards collapse.",
        r"\min_{c,\,\alpha} \sum_{k=11}^{K} \tfrac{1}{k} \left(\log \lambda_k - c + \alpha \log k\right)^2,"
        r"\qquad K = \min(100, N - 1, d)",
        "Agrawal, Mondal, Ghosh & Richards (2022), “α-ReQ: Assessing Representation Quality in "
        "Self-Supervised Learning by measuring eigenspectrum decay”, NeurIPS 2022; window and weights "
        "of its reference implementation, reptrix (alpha.get_alpha)",
        "lower",
        "the variance is concentrated in fewer directions (steeper spectrum)",
        (0.0, None),
        title="α-ReQ (spectrum decay)",
    ),
    Measure(
        DIM_STD_MEAN,
        "Per-dimension std",
        "The standard deviation over the sentences of each coordinate of the unit-length embeddings, "
        "averaged over the d coordinates: about 1/√d when the embeddings spread over the sphere, 0 when "
        "they all collapse to one point (SimSiam's collapse monitor).",
        r"u_i = \frac{z_i}{\lVert z_i \rVert},\qquad s_j = \operatorname{std}_i(u_{ij}),\qquad "
        r"\bar{s} = \frac{1}{d}\sum_{j=1}^{d} s_j \quad(\approx 1/\sqrt{d}\ \text{without collapse})",
        "Chen & He (2021), “Exploring Simple Siamese Representation Learning”, CVPR 2021 (Sec. 4.1)",
        "higher",
        "the unit embeddings vary more across sentences (farther from collapse)",
        (0.0, 1.0),
    ),
    Measure(
        DIM_STD_MIN,
        "Minimum per-dimension std",
        "The smallest per-coordinate standard deviation of the unit-length embeddings: 0 when some "
        "coordinate no longer varies between sentences.",
        r"\min_{j} \operatorname{std}_i\bigl(z_{ij} / \lVert z_i \rVert\bigr)",
        "Chen & He (2021), “Exploring Simple Siamese Representation Learning”, CVPR 2021 (Sec. 4.1)",
        "higher",
        "every coordinate still varies between sentences",
        (0.0, 1.0),
        explained_by=DIM_STD_MEAN,
    ),
)

#: the isotropy family beside IsoScore, measured with it in one covariance pass
#: (:func:`engine.metrics.isotropy_profile`, whose keys these are)
GEOMETRY = (RANKME, AVERAGE_COSINE, PARTITION_ISOTROPY)
#: what :func:`engine.metrics.collapse_profile` gives (the keys of its dict)
COLLAPSE_PROFILE = (ALPHA_REQ, DIM_STD_MEAN, DIM_STD_MIN)
#: the collapse lens of non-contrastive training: RankMe (of :data:`GEOMETRY`) and :data:`COLLAPSE_PROFILE`
COLLAPSE = (RANKME, *COLLAPSE_PROFILE)
#: measured again on SimCSE's labelled set, as ``probe_<name>``
ON_LABELLED_SET = (SILHOUETTE, ISOSCORE, *GEOMETRY)


#: the columns of :data:`ON_LABELLED_SET` (``probe_silhouette``, ``probe_isoscore``, …)
LABELLED_SET_COLUMNS = labelled_set_columns(ON_LABELLED_SET)


MEASURES: dict[str, Measure] = {measure.name: measure for measure in (*_MEASURES, *_COLLAPSE_LENS)}
MEASURES.update({f"probe_{name}": on_labelled_set(MEASURES[name]) for name in ON_LABELLED_SET})

#: an older name of a measure -> its name (:attr:`Measure.aliases`)
ALIASES: dict[str, str] = {alias: m.name for m in MEASURES.values() for alias in m.aliases}

#: the columns of ``metrics.csv`` that are not measures
BOOKKEEPING: dict[str, Column] = {
    column.name: column
    for column in (
        Column("step", "step"),
        Column("seconds", "Seconds", "s"),
        Column("eval_seconds", "Evaluation seconds", "s"),
    )
}


def add(measure: Measure) -> None:
    """Add a measure an experiment declares itself (:attr:`engine.core.declaration.Experiment.own_measures`);
    another measure of the same name is one ValueError line."""
    known = MEASURES.get(measure.name)
    if known is not None and known != measure:
        raise ValueError(f"a measure named {measure.name!r} is declared already")
    MEASURES[measure.name] = measure
    ALIASES.update({alias: measure.name for alias in measure.aliases})


def remove(name: str) -> None:
    """Take the measure ``name`` (and its older names) off the registry."""
    measure = MEASURES.pop(name, None)
    for alias in measure.aliases if measure is not None else ():
        ALIASES.pop(alias, None)


def get(name: str) -> Measure:
    """The measure ``name``; a KeyError that lists the known names otherwise."""
    try:
        return MEASURES[name]
    except KeyError:
        raise KeyError(f"unknown measure {name!r} (known: {', '.join(MEASURES)})") from None


def current_name(column: str) -> str:
    """The name of the measure a run folder's ``column`` holds: its own, or the measure's where ``column``
    is an older name of it (:data:`ALIASES`: ``effective_rank`` reads as ``rankme``)."""
    return ALIASES.get(column, column)


def chart_title(name: str) -> str:
    """A column's title on charts: the measure's (or bookkeeping column's) own, else the name in words."""
    if name in MEASURES:
        return MEASURES[name].chart_title
    if name in BOOKKEEPING:
        return BOOKKEEPING[name].label
    return name.replace("_", " ").capitalize()
