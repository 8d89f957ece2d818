"""One-click presets of the UI: named lists of runs (kind, run name, config fields) to queue at once.

- "SimCSE Figure 2": the four runs of Gao et al. 2021, Fig. 2 (:data:`engine.simcse.views.FIGURE2_RUNS`:
  unsup SimCSE, no dropout, fixed 0.1, delete one word), evaluated every 10 steps as in the paper, on STS-B
  dev when the data folder holds it, else on the built-in demo pairs (its description says which).
- "Isotropy paper, setup (i)": Mickus et al. 2024 setup (i): the probe on the full Pang & Lee polarity set
  (10,662 sentences), 1000 full-batch Adam updates, IsoScore and silhouette after every update.
- "Isotropy paper, setup (iii)" and "(iv)": the word-level multi-label setups (POS sets, supersense sets of
  WordNet 3.0 words, ``wordnet-pos`` / ``wordnet-supersenses``) on static word vectors: the rows of the
  encoder's input embedding table for the words that are one word piece (14,307 words with the bundled
  encoder; the paper used word2vec, not available here), per-label BCE, each distinct label set one silhouette
  cluster, 1000 full-batch Adam updates with IsoScore and silhouette after every update.
- "Demo: clusters form": the probe on the built-in demo corpus, small and fast (the overview's button).

A preset only fills config fields; the user's current settings (encoder, device, seed, data folder) are
the base it is laid over, so its description can depend on them (:func:`presets` takes them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import paths


@dataclass(frozen=True)
class Preset:
    """Runs to queue: ``runs`` maps a run name to the config fields it sets on top of ``base``."""

    name: str
    kind: str
    description: str
    base: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)

    def configs(self, settings: dict[str, Any] | None = None) -> list[tuple[str, dict[str, Any]]]:
        """``(run name, config fields)`` per run: the user's ``settings``, then the preset, then the run."""
        return [
            (name, {**(settings or {}), **self.base, **overrides}) for name, overrides in self.runs.items()
        ]


def _figure2_runs() -> dict[str, dict[str, Any]]:
    """The four runs, the same-mask one (one forward a step: about half the work) last, so that runs side by
    side (``engine.jobs``) end close together."""
    from engine.simcse.views import FIGURE2_RUNS

    order = sorted(FIGURE2_RUNS, key=lambda name: bool(FIGURE2_RUNS[name].get("same_mask")))
    return {name: dict(FIGURE2_RUNS[name]) for name in order}


def sts_evaluation(settings: dict[str, Any] | None = None) -> str:
    """Where a SimCSE run with these settings evaluates, in words (as :func:`engine.simcse.train.default_sets`
    picks it): its ``eval`` set, else STS-B dev when the data folder holds ``stsb/``, else the demo pairs."""
    settings = settings or {}
    if settings.get("eval"):
        return str(settings["eval"])
    chosen = settings["data_dir"] if "data_dir" in settings else default_data_dir()
    folder = paths.data_dir(chosen)
    if folder is not None and (folder / "stsb").is_dir():
        return "STS-B dev"
    return "the built-in demo pairs, not STS-B (no data folder holding stsb/ is set)"


def presets(settings: dict[str, Any] | None = None) -> dict[str, Preset]:
    """The registry of presets (built on call, so the SimCSE registry is imported lazily); ``settings``
    (the user's current ones, e.g. the data folder) complete the descriptions."""
    return {
        "SimCSE Figure 2": Preset(
            "SimCSE Figure 2",
            "simcse",
            "Queues the four runs of SimCSE's Figure 2 (unsup SimCSE, no dropout, fixed 0.1, delete one word); "
            f"alignment and uniformity every 10 steps on {sts_evaluation(settings)}.",
            # the paper's runs whatever the sidebar says (dropout 0.1, no same mask, no augmentation but
            # theirs), and four runs do not save one encoder name
            base={
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
            },
            runs=_figure2_runs(),
        ),
        "Isotropy paper, setup (i)": Preset(
            "Isotropy paper, setup (i)",
            "probe",
            "Probe on the full rt-polarity set (10,662 sentences, 2 classes): 1000 full-batch Adam updates, "
            "IsoScore and silhouette after every update.",
            base={
                "data": "rt-polarity",
                "label_col": None,
                "limit": None,
                "steps": 1000,
                "lr": 1e-3,
                "metric_every": 1,
                "sample_size": None,
                "snapshot_every": 10,
                "snapshot_limit": 2000,
            },
            runs={"isotropy-setup-i": {}},
        ),
        **{
            name: Preset(
                name,
                "probe",
                f"Probe on {what} of WordNet 3.0 (wordnet/ in the data folder), multi-label, per-label binary "
                "cross-entropy: the words that are one word piece of the encoder's vocabulary (14,307 with the "
                "bundled one) start from its input embedding table (static word vectors; the paper used word2vec). "
                "1000 full-batch Adam updates, IsoScore and silhouette (each distinct label set one cluster) after "
                "every update: slower than setup (i), 14,307 words against 10,662 sentences.",
                base={
                    "data": data,
                    "label_col": None,
                    "limit": None,
                    "vectors": None,
                    "objective": "classifier",
                    "steps": 1000,
                    "lr": 1e-3,
                    "metric_every": 1,
                    "sample_size": None,
                    "fixed_sample": False,
                    "snapshot_every": 10,
                    "snapshot_limit": 2000,
                },
                runs={run: {}},
            )
            for name, data, what, run in (
                (
                    "Isotropy paper, setup (iii)",
                    "wordnet-pos",
                    "the sets of parts of speech",
                    "isotropy-setup-iii",
                ),
                (
                    "Isotropy paper, setup (iv)",
                    "wordnet-supersenses",
                    "the sets of supersenses (45 labels)",
                    "isotropy-setup-iv",
                ),
            )
        },
        "Demo: clusters form": Preset(
            "Demo: clusters form",
            "probe",
            "The probe on the built-in demo corpus (topics): 150 updates, metrics every step, a UMAP frame "
            "every 5 steps. Runs in seconds on a laptop.",
            base={
                "data": "demo",
                "label_col": None,
                "limit": None,
                "steps": 150,
                "lr": 1e-3,
                "metric_every": 1,
                "sample_size": None,
                "snapshot_every": 5,
                "snapshot_limit": 2000,
            },
            runs={"demo-clusters": {}},
        ),
    }


def for_kind(kind: str, settings: dict[str, Any] | None = None) -> dict[str, Preset]:
    return {name: preset for name, preset in presets(settings).items() if preset.kind == kind}


def default_data_dir() -> str | None:
    """The app's data folder (:func:`engine.paths.app_data_dir`) as text, or None."""
    folder = paths.app_data_dir()
    return None if folder is None else str(folder)
