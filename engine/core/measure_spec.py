"""What a measure declares (:class:`Measure`) and a bookkeeping column of ``metrics.csv`` (:class:`Column`):
the shape of the entries of the measure registry, :mod:`engine.core.measures`, which lists them; and a measure
derived from another, measured on a labelled set beside the training (:func:`on_labelled_set`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

BETTER = ("higher", "lower", "neither")
KINDS = ("scalar", "vector")
SCALES = ("linear", "log")


@dataclass(frozen=True)
class Measure:
    """One measure. ``better`` is "higher", "lower" or "neither" (a profile to read, such as the spectrum);
    ``range`` is its natural (low, high), None = open; ``kind`` is "scalar" (one number per logged step) or
    "vector" (an array per step: the spectrum's d eigenvalues, in ``spectrum.csv``); ``scale`` is the axis
    it is charted on; ``title`` the chart's title where it differs from the label; ``symbol`` the paper's
    name of it on an axis; ``explained_by`` the glossary entry that explains it (None: its own);
    ``fixed_range``: its charts show its whole natural range by default (a nearly flat curve then looks
    flat), the curves' "zoom to data" switch fits the axis to the values instead; ``aliases``: the names
    older run folders logged it under (a ``metrics.csv`` column, the ``summary.json`` keys ``<alias>_*``),
    read as ``name`` (:func:`engine.core.measures.current_name`; the run-folder readers,
    :mod:`engine.runlog.reading`)."""

    name: str
    label: str
    plain: str
    formula: str
    source: str
    better: str
    higher_means: str
    range: tuple[float | None, float | None]
    unit: str = ""
    title: str | None = None
    symbol: str | None = None
    kind: str = "scalar"
    scale: str = "linear"
    explained_by: str | None = None
    fixed_range: bool = False
    aliases: tuple[str, ...] = ()

    @property
    def chart_title(self) -> str:
        """The title of its chart and axis (e.g. "Alignment (lower is better)")."""
        return self.title or self.label

    @property
    def in_glossary(self) -> bool:
        """Whether the glossary has an entry of its own for it (else: its ``explained_by``'s)."""
        return self.explained_by is None


@dataclass(frozen=True)
class Column:
    """A bookkeeping column of ``metrics.csv`` that is not a measure (the step, timings)."""

    name: str
    label: str
    unit: str = ""


def range_text(low: float | None, high: float | None) -> str:
    """A natural range ``(low, high)`` (None: open) in words, e.g. ``0 to 1``, ``1 or more``."""

    def number(value: float) -> str:
        return f"{value:g}".replace("-", "−")

    if low is not None and high is not None:
        return f"{number(low)} to {number(high)}"
    if low is not None:
        return f"{number(low)} or more"
    if high is not None:
        return f"up to {number(high)}"
    return "any number"


def labelled_set_columns(names: tuple[str, ...]) -> tuple[str, ...]:
    """The columns of ``names`` measured on the labelled set: ``probe_<name>`` each, in their order."""
    return tuple(f"probe_{name}" for name in names)


def on_labelled_set(base: Measure) -> Measure:
    """``base`` measured on a labelled set beside the training (column ``probe_<name>``); its glossary
    entry is ``base``'s."""
    first_word = base.label.split()[0]
    keep = any(char.isupper() for char in first_word[1:])  # a name such as "IsoScore" keeps its capitals
    label = base.label if keep else base.label[0].lower() + base.label[1:]
    return replace(
        base,
        name=f"probe_{base.name}",
        label=f"Labelled-set {label}",
        title=None,
        plain=f"{base.label} measured on the labelled set (beside the training). {base.plain}",
        explained_by=base.name,
        aliases=labelled_set_columns(base.aliases),
    )
