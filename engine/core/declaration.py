"""What an experiment declares: its :class:`Experiment` entry, and the plain data inside it (:class:`Lesson`,
:class:`Preset`, :class:`Section`).

Each experiment is one package (``engine/probe``, ``engine/simcse``) whose ``entry`` module holds one
:class:`Experiment` made by :func:`declare`; :mod:`engine.experiments` (above every experiment) registers
them in one place. An entry names its parts as objects (its config class, its run generator, its presets),
never as module paths: an experiment whose run needs torch names a function of its entry that imports its
loop on call, so that reading the registry imports neither torch nor plotly. Nothing here imports
streamlit: a page reads its :class:`Section` and draws it.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.errors import ConfigError, one_line
from engine.core.flags import CommandLine, KnobFlags
from engine.core.lesson_claims import Claim
from engine.core.measure_spec import Measure
from engine.core.measures import MEASURES, SPECTRUM

#: the ``smoke`` settings of an experiment that trains a sentence encoder on the demo corpus (SimCSE, JEPA):
#: three steps of 8 sentences, evaluated on 20 demo pairs at every step, the silhouette on 60 items
ENCODER_SMOKE: Mapping[str, Any] = types.MappingProxyType(
    {
        "train": "demo",
        "eval": "demo-pairs",
        "eval_limit": 20,
        "eval_every": 1,
        "probe_limit": 60,
        "steps": 3,
        "batch_size": 8,
        "device": "cpu",
        "precision": "fp32",
    }
)


@dataclass(frozen=True)
class Lesson:
    """What an experiment page (and its replay) says: a title, a short introduction, what to watch, and what
    to watch in each measure (the glossary's "Watch in …" line, by measure name); ``claims``: what the
    text says about its presets' runs, as data (:class:`~engine.core.lesson_claims.Claim`), checked by
    ``python -m engine lessons check`` (:mod:`engine.lessons.check`)."""

    title: str
    intro: str
    watch: tuple[str, ...]
    measures: Mapping[str, str] = field(default_factory=dict)
    claims: tuple[Claim, ...] = ()


@dataclass(frozen=True)
class Recorded:
    """A preset's runs as recorded and shipped with the repository, to be played for a class without training
    (:mod:`engine.groups.recorded`): run ``<run>`` of seed ``s`` in ``<folder>/<preset>/<run>[-seed-<s>]``
    under ``docs/run-folders`` (the layout ``python -m engine lessons check --seeds N --out DIR`` writes),
    ``seeds`` seeds a run, made by ``command`` (shown wherever they are)."""

    folder: str
    seeds: int
    command: str


@dataclass(frozen=True)
class Preset:
    """Runs to queue: ``runs`` maps a run name to the config fields it sets on top of ``base``; ``demo``
    marks the Overview's one-click demo.

    ``kind`` is the experiment whose page offers it; a run of another experiment (the unsupervised SimCSE
    reference beside the JEPA runs) names its kind in ``run_kinds`` and takes, of the user's settings and
    ``base``, the fields its own config has (:func:`engine.lessons.presets.queue`). ``short``: the fields laid
    over every run for the short CPU version that ``python -m engine lessons check --short`` runs (few steps,
    small limits), declared here so that the checker hard-codes nothing. ``lecture``: the app also offers
    that short version as a preset of its own, ``<name> · lecture``, for a class on a laptop CPU
    (:func:`engine.lessons.presets.lecture_version`; its measured wall time in its help). ``recorded``: its
    full runs as shipped (:class:`Recorded`), which the page plays without training. ``note``: one line
    the page shows under its button (e.g. which start it uses and why), ``short_note`` its short version's."""

    name: str
    kind: str
    description: str
    base: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    demo: bool = False
    run_kinds: Mapping[str, str] = field(default_factory=dict)
    short: dict[str, Any] = field(default_factory=dict)
    lecture: bool = False
    recorded: Recorded | None = None
    note: str = ""
    short_note: str = ""

    def kind_of(self, run: str) -> str:
        """The experiment of run ``run``."""
        return self.run_kinds.get(run, self.kind)

    def fields(
        self, run: str, settings: dict[str, Any] | None = None, *, short: bool = False
    ) -> dict[str, Any]:
        """Run ``run``'s config fields before any are dropped: the user's ``settings``, then the preset, then
        the run, then (``short``) the short version's."""
        return {**(settings or {}), **self.base, **self.runs[run], **(self.short if short else {})}

    def configs(self, settings: dict[str, Any] | None = None) -> list[tuple[str, dict[str, Any]]]:
        """``(run name, config fields)`` per run of the preset's own kind: the user's ``settings``, then the
        preset, then the run (the runs of other kinds: :func:`engine.lessons.presets.queue`)."""
        return [(name, self.fields(name, settings)) for name in self.runs if self.kind_of(name) == self.kind]


@dataclass(frozen=True)
class Section:
    """An experiment's page section, as plain data: the measures its charts offer (as charted), those drawn
    at first (the spectrum chart is :data:`engine.core.measures.SPECTRUM`), the relation figure's first pair,
    what the page says before the first run, the page script that shows it, and ``figures``: the run
    figures drawn under the curves, by name (:data:`engine.charts.RUN_FIGURES`, e.g. ``"align_uniform"``),
    built as chart descriptions for the live view, the finished view and the replay alike. ``title`` and
    ``icon``: the page's heading and its entry in the app's navigation (default: the experiment's title);
    ``beside``: the experiments whose runs its page may show beside its own (JEPA: the unsupervised SimCSE
    reference run of its preset), in its run picker; ``projector``: what projector mode opens on, the lesson's
    measures (measure names and run figure names: SimCSE the alignment–uniformity plane and STS), beside the
    film where the runs have snapshots (empty: the lesson's first measure)."""

    page: str
    metrics: tuple[str, ...]
    drawn: tuple[str, ...]
    pair: tuple[str, str]
    empty: str
    figures: tuple[str, ...] = ()
    title: str = ""
    icon: str = ":material/science:"
    beside: tuple[str, ...] = ()
    projector: tuple[str, ...] = ()


@dataclass(frozen=True)
class CodeOnRun:
    """An experiment's run generator and summary, read on each run from the module that ``load()`` imports
    (torch, the loop), so that an entry naming them imports neither: ``generator`` and ``summary`` are their
    names in that module (read on each call, so a test's replacement of one is the one that runs). Plain
    data: it travels pickled to a worker process, ``load`` by reference."""

    load: Callable[[], types.ModuleType]
    generator: str
    summary: str = "summarize"

    def train(self, config: Any, stop: Any = None) -> Any:
        """The run: ``generator(config, stop)`` of the loaded module (an iterator of events)."""
        return getattr(self.load(), self.generator)(config, stop)

    def summarize(self, rows: list[dict[str, Any]], config: Any) -> dict[str, Any]:
        """The run's summary: ``summary(rows, config)`` of the loaded module."""
        return getattr(self.load(), self.summary)(rows, config)


@dataclass(frozen=True)
class Experiment:
    """One kind of experiment, its parts named as objects (:func:`declare` makes one):

    - ``config_class`` the config dataclass (its knobs); ``generator`` ``(config, stop) -> Iterator[Event]``;
      ``summarize`` ``(rows, config) -> dict``; ``cli`` its own command line
      (:class:`~engine.core.flags.OwnCommandLine`: ``add_arguments(parser)``, ``config_from_args(args)``
      [, ``run_cli(args, config)``]: SimCSE's torchrun launch), None for one flag per knob
      (:class:`~engine.core.flags.KnobFlags`, :attr:`command_line`);
    - ``columns`` the ``metrics.csv`` header (the fallback of a config without ``metric_columns()``): the
      step, the measures of :data:`engine.core.measures.MEASURES` and bookkeeping columns; ``charted_as``
      renames a column for the charts (the probe's ``alignment`` is its class alignment); ``vectors`` the
      vector measures it logs beside (the spectrum, in ``spectrum.csv``); ``own_measures`` the measures
      it declares itself (added to the measure registry when it is registered);
    - ``measured_on`` ``(config, summary, metric=None) -> str | None``: the data a measure (None: the run's
      measures) was measured on, in words; ``describe`` ``(config, summary) -> [(label, text)]``: the data
      a run used (the replay's settings block); ``warm_up`` ``(encode) -> None``: what a spare child
      encodes ahead (through the embedding cache) so that the experiment's first run starts warm;
      ``load_code`` ``() -> module``: imports its run's code (torch, the loop) ahead, in a spare child or a
      Ray worker;
    - ``presets`` ``(settings) -> list[Preset]``; ``lesson`` and ``section`` (its page: the script and its
      sidebar's measures): plain data;
    - ``task_parallel``: its loop parallelises by whole tasks, not by op threads
      (``engine.metrics._parallel.tasks_not_ops``), so in the app it may use every core;
    - ``smoke``: the config fields of a run of a few steps on the bundled demo data, on a CPU, in seconds:
      the runs the page contract tests make of every registered experiment (``tests/pages``).
    """

    kind: str
    title: str
    config_class: type
    generator: Callable[..., Any]
    columns: tuple[str, ...]
    summarize: Callable[..., dict[str, Any]] | None = None
    cli: CommandLine | None = None
    task_parallel: bool = False
    charted_as: Mapping[str, str] = field(default_factory=dict)
    vectors: tuple[str, ...] = ()
    own_measures: tuple[Measure, ...] = ()
    lesson: Lesson | None = None
    section: Section | None = None
    presets: Callable[..., list[Preset]] | None = None
    measured_on: Callable[..., str | None] | None = None
    describe: Callable[..., Any] | None = None
    warm_up: Callable[..., None] | None = None
    load_code: Callable[[], Any] | None = None
    smoke: Mapping[str, Any] = field(default_factory=dict)

    @property
    def command_line(self) -> CommandLine:
        """Its command line: the one it declares, else one flag per knob of its config."""
        return self.cli if self.cli is not None else KnobFlags(self.config_class)

    def make_config(self, **values: Any) -> Any:
        """The config dataclass from its fields; unknown or missing fields, or a value of the wrong type (a
        list where text is due, ``--config-json`` from a hand-edited file), raise a one-line ConfigError."""
        check_types(self.config_class, values, what=f"{self.kind} settings")
        try:
            return self.config_class(**values)
        except TypeError as err:
            raise ConfigError(f"{self.kind} settings: {one_line(err)}") from err

    def columns_for(self, config: Any) -> tuple[str, ...]:
        """The ``metrics.csv`` header of a run with ``config``: its ``metric_columns()`` where the config
        has one (SimCSE's probe columns only with a labelled set), else :attr:`columns`."""
        if hasattr(config, "metric_columns"):
            return tuple(config.metric_columns())
        return self.columns

    def charted(self, column: str) -> str:
        """The name the charts give ``column``."""
        return self.charted_as.get(column, column)

    def measures(self) -> tuple[str, ...]:
        """The measures it logs: its columns' (by their charted names, in column order), then its vectors."""
        own = {measure.name for measure in self.own_measures}
        logged = tuple(c for c in map(self.charted, self.columns) if c in MEASURES or c in own)
        return logged + self.vectors

    def column_of(self, measure: str) -> str | None:
        """The ``metrics.csv`` column that holds ``measure`` (None: not a column, e.g. the spectrum)."""
        return next((c for c in self.columns if self.charted(c) == measure), None)


#: every experiment declared in this process, by kind (:func:`declared`)
_DECLARED: dict[str, Experiment] = {}


def declare(
    kind: str,
    title: str,
    *,
    config_class: type,
    columns: tuple[str, ...],
    generator: Callable[..., Any] | None = None,
    code: CodeOnRun | None = None,
    vectors: tuple[str, ...] = (SPECTRUM,),
    **fields: Any,
) -> Experiment:
    """The :class:`Experiment` ``kind``, every part an object (``fields``: the other attributes of
    :class:`Experiment`); by default it logs the spectrum beside its columns. Its run is ``generator``, or
    ``code``'s (:class:`CodeOnRun`: generator, summary and ``load_code`` from the loop imported on a run).
    The one call an experiment's entry makes, a real one and the tests' toy alike;
    :func:`engine.experiments.register` then lists it."""
    if code is not None:
        generator = code.train
        fields = {"summarize": code.summarize, "load_code": code.load, **fields}
    if generator is None:
        raise ConfigError(f"experiment {kind!r} declares no run: give generator or code")
    if kind in _DECLARED and _DECLARED[kind].config_class is not config_class:
        raise ConfigError(f"two experiments declare the kind {kind!r}")
    if "smoke" in fields:  # plain data: an Experiment travels to a worker process pickled
        fields["smoke"] = dict(fields["smoke"])
    experiment = Experiment(
        kind=kind,
        title=title,
        config_class=config_class,
        generator=generator,
        columns=columns,
        vectors=vectors,
        **fields,
    )
    _DECLARED[kind] = experiment
    return experiment


def declared(kind: str) -> Experiment | None:
    """The experiment ``kind`` if one was declared in this process (None otherwise): how the parts below the
    registry read a kind written in a run folder or handed to a worker as plain text (the registry,
    :mod:`engine.experiments`, declares the lab's; a run's process imports it first)."""
    return _DECLARED.get(kind)


def experiment_of(kind: Experiment | str) -> Experiment:
    """``kind`` itself, or the experiment declared under that kind; an unknown kind: one ConfigError line."""
    if isinstance(kind, Experiment):
        return kind
    found = _DECLARED.get(kind)
    if found is None:
        raise ConfigError(f"unknown experiment {kind!r} (known: {', '.join(_DECLARED) or 'none declared'})")
    return found


_TYPE_WORDS = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}


def check_types(config_class: type, values: dict[str, Any], *, what: str) -> None:
    """Each value must fit its field's annotation (``str``, ``int``, ``float``, ``bool``, or one of them
    ``| None``); an int is a fine float, a bool is not a number."""
    hints = typing.get_type_hints(config_class)
    for name, value in values.items():
        wanted = hints.get(name)
        if wanted is None:
            continue
        allowed = (
            typing.get_args(wanted)
            if typing.get_origin(wanted) in (types.UnionType, typing.Union)
            else (wanted,)
        )
        if value is None and type(None) in allowed:
            continue
        if any(_fits(value, kind) for kind in allowed):
            continue
        words = " or ".join(
            _TYPE_WORDS.get(kind, getattr(kind, "__name__", str(kind)))
            for kind in allowed
            if kind is not type(None)
        )
        raise ConfigError(f"{what}: {name} must be {words}, got {value!r}"[:300])


def _fits(value: Any, kind: Any) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind) if isinstance(kind, type) else True
