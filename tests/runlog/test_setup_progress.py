"""Set-up progress (engine.runlog.events): a Meter's count, rate and time left on an injected clock, and
relay() yielding what a set-up call reports while it runs, then its result (or its error, a stop included)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from clocks import Clock

from engine.core import stopping
from engine.runlog.events import Meter, Progress, duration_text, from_line, relay, to_line


def test_a_meter_counts_rates_and_says_the_time_left() -> None:
    clock = Clock()
    meter = Meter("encoding", "sentences", every=1.0, clock=clock)
    first = meter(64, 10_662)
    assert first == Progress("encoding 64/10,662 sentences", 64 / 10_662)  # no rate before time passes
    clock.now += 0.5
    assert meter(128, 10_662) is None  # under a second after the last one shown
    clock.now += 0.5  # 1 s after the first: 192 - 64 = 128 sentences in 1 s
    shown = meter(192, 10_662)
    assert shown.phase == "encoding 192/10,662 sentences · 128/s · 1 min 22 s left"  # 10,470 / 128 = 81.8
    assert shown.fraction == pytest.approx(192 / 10_662)
    clock.now += 0.1
    last = meter(10_662, 10_662)  # the end always shows, however soon
    assert last.phase == "encoding 10,662/10,662 sentences · done" and last.fraction == 1.0


def test_a_meter_whose_first_call_is_the_end_shows_the_count_only() -> None:
    assert Meter("encoding", "sentences", clock=Clock())(600, 600).phase == "encoding 600/600 sentences"


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.4, "0 s"), (59.4, "59 s"), (61, "1 min 01 s"), (3725, "1 h 02 min")]
)
def test_durations_read_as_a_person_says_them(seconds: float, text: str) -> None:
    assert duration_text(seconds) == text


def test_a_metered_progress_travels_over_the_wire_unchanged() -> None:
    shown = Meter("encoding", "sentences", clock=Clock())(5, 10)
    assert from_line(to_line(shown)) == shown


def test_relay_yields_the_reports_in_order_then_returns_the_result() -> None:
    def work(report) -> str:
        for done in (1, 2, 3):
            report(Progress(f"step {done}", done / 3))
        report(None)  # a meter's "not yet": nothing yielded
        return "made"

    gen = relay(work)
    seen = []
    with pytest.raises(StopIteration) as end:
        while True:
            seen.append(next(gen).phase)
    assert seen == ["step 1", "step 2", "step 3"] and end.value.value == "made"


def test_relay_raises_the_works_error_and_the_work_sees_the_callers_stop() -> None:
    def failing(report) -> None:
        raise ValueError("bad file")

    with pytest.raises(ValueError, match="bad file"):
        list(relay(failing))

    stop = threading.Event()
    stop.set()

    def encoding(report) -> np.ndarray:
        report(Progress("encoding", 0.0))
        stopping.check()  # in the helper thread: the stop of the caller's watching() block
        return np.zeros(1)

    with stopping.watching(stop), pytest.raises(stopping.Stopped):
        list(relay(encoding))


def test_the_probe_reports_each_batch_of_sentences_it_encodes(tmp_path, monkeypatch) -> None:
    """A corpus not in the embedding cache: the probe's set-up yields the count of every batch encoded
    (the meter's throttle off here), before its first row."""
    from functools import partial

    from engine.probe.config import ProbeConfig
    from engine.probe.loop import run_probe
    from engine.runlog.events import Row

    monkeypatch.setenv("EMBEDLAB_CACHE_DIR", str(tmp_path / "cache"))  # nothing cached
    monkeypatch.setattr("engine.probe.loop.Meter", partial(Meter, every=0.0))
    events = list(run_probe(ProbeConfig(data="demo", label_col="sentiment", limit=150, steps=1)))
    phases = [e.phase for e in events if isinstance(e, Progress)]
    counts = [phase.split(" · ")[0] for phase in phases if phase.startswith("encoding")]
    assert counts == [f"encoding {n}/150 sentences" for n in (64, 128, 150)], phases
    assert phases.index("loading encoder") < next(i for i, p in enumerate(phases) if p.startswith("encoding"))
    first_row = next(i for i, e in enumerate(events) if isinstance(e, Row))
    encoded = [i for i, e in enumerate(events) if isinstance(e, Progress) and e.phase.startswith("encoding")]
    assert max(encoded) < first_row  # all set-up progress comes before the first step


def test_the_gif_reports_each_frame_it_draws() -> None:
    from engine.replay.frames import FilmFrames
    from engine.replay.gif import film_gif

    film = FilmFrames(steps=[0, 5, 10], coords=np.random.default_rng(0).normal(size=(3, 20, 2)))
    seen: list[tuple[int, int]] = []
    data = film_gif(film, title="a film", progress=lambda done, total: seen.append((done, total)))
    assert data[:6] == b"GIF89a" and seen == [(1, 3), (2, 3), (3, 3)]
