"""The probe's one-click presets (:class:`engine.core.declaration.Preset`), listed by
:func:`engine.lessons.presets.presets`.

- "Isotropy paper, setup (i)": Mickus et al. 2024 setup (i): the probe on the full Pang & Lee polarity set
  (10,662 sentences), 1000 full-batch Adam updates, IsoScore and silhouette after every update.
- "Isotropy paper, setup (iii)" and "(iv)": the word-level multi-label setups (POS sets, supersense sets of
  WordNet 3.0 words, ``wordnet-pos`` / ``wordnet-supersenses``) on static word vectors: the rows of the
  encoder's input embedding table for the words that are one word piece (14,307 words with the bundled
  encoder; the paper used word2vec, not available here), per-label BCE, each distinct label set one silhouette
  cluster, 1000 full-batch Adam updates with IsoScore and silhouette after every update.
- "Isotropy paper, setup (iv), nouns": as the paper's setup (iv), the 26 noun supersenses
  (``wordnet-noun-supersenses``) of a seeded sample of 2,275 nouns (``limit``; the paper's Table 1 size).
- "Demo: clusters form": the probe on the built-in demo corpus, small and fast (the overview's button).
"""

from __future__ import annotations

from typing import Any

from engine.core.declaration import Preset

DEMO = "Demo: clusters form"
SETUP_I = "Isotropy paper, setup (i)"
#: the sentences of setup (i) (rt-polarity, Pang & Lee 2005), encoded before its first update
SETUP_I_SENTENCES = 10662
NOUNS = "Isotropy paper, setup (iv), nouns"
#: the paper's setup (iv): 2,275 items (Mickus et al. 2024, Table 1: 690,326 parameters
#: = 2,275 x 300 + 26 x 301)
NOUN_SAMPLE = 2275


def _wordnet(name: str, data: str, what: str, run: str, limit: int | None = None) -> Preset:
    size = (
        f"{limit:,} words, faster than setup (i)'s 10,662 sentences"
        if limit
        else "slower than setup (i), 14,307 words against 10,662 sentences"
    )
    return Preset(
        name,
        "probe",
        f"Probe on {what} of WordNet 3.0 (wordnet/ in the data folder), multi-label, per-label binary "
        "cross-entropy: the words that are one word piece of the encoder's vocabulary (14,307 with the "
        "bundled one) start from its input embedding table (static word vectors; the paper used word2vec). "
        "1000 full-batch Adam updates, IsoScore and silhouette (each distinct label set one cluster) after "
        f"every update: {size}.",
        base={
            "data": data,
            "label_col": None,
            "limit": limit,
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


def _encoding(settings: dict[str, Any] | None) -> str:
    """How long setup (i)'s encoding will take on the device ``settings`` pick (the last measured rate there:
    :func:`engine.encoders.cache.encoding_estimate`); an unusable device name is left to Start to refuse."""
    from engine.compute.device import resolve_device
    from engine.core.errors import EmbedlabError
    from engine.encoders.cache import encoding_estimate

    try:
        device = resolve_device(str((settings or {}).get("device") or "auto")).type
    except EmbedlabError:
        device = "cpu"
    return encoding_estimate(SETUP_I_SENTENCES, device)


def presets(settings: dict[str, Any] | None = None, *, estimate: bool = True) -> list[Preset]:
    """The probe's presets; ``settings`` (the device) complete setup (i)'s description with how long its
    encoding will take (``estimate`` False: without it, which spares resolving the device, i.e. importing
    torch, where only the presets' fields are read)."""
    return [
        Preset(
            SETUP_I,
            "probe",
            f"Probe on the full rt-polarity set ({SETUP_I_SENTENCES:,} sentences, 2 classes): 1000 "
            f"full-batch Adam updates, IsoScore and silhouette after every update. Before the first update, "
            f"{_encoding(settings) if estimate else 'its sentences are encoded'}.",
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
        _wordnet(
            "Isotropy paper, setup (iii)", "wordnet-pos", "the sets of parts of speech", "isotropy-setup-iii"
        ),
        _wordnet(
            "Isotropy paper, setup (iv)",
            "wordnet-supersenses",
            "the sets of supersenses (45 labels)",
            "isotropy-setup-iv",
        ),
        _wordnet(
            NOUNS,
            "wordnet-noun-supersenses",
            "the sets of noun supersenses (26 labels) of a seeded sample of 2,275 nouns (the paper's Table 1 "
            "size; the seed picks the sample)",
            "isotropy-setup-iv-nouns",
            limit=NOUN_SAMPLE,
        ),
        Preset(
            DEMO,
            "probe",
            "The probe on the built-in demo corpus (topics): 150 updates, metrics every step, a UMAP frame "
            "every 5 steps, at a lecture pace (about 25 s, a step counter beside the charts).",
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
                "lecture_pace": True,
            },
            runs={"demo-clusters": {}},
            demo=True,
            # lessons check --short: only shorter, and unpaced (a pace spreads the same steps over 25 s)
            short={"steps": 75, "snapshot_every": 0, "lecture_pace": False},
        ),
    ]
