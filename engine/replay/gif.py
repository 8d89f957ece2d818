"""A run's UMAP film as an animated GIF, drawn with Pillow (no other binary): one frame per film frame.

Each frame shows every point coloured by its label (the app's palette), the run's name and ``step N`` above, a
legend, and a bar below that fills as training goes. The axes are fixed over the whole film, as in the app's
film, so points move instead of the view. The GIF loops; its last frame is held longer.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pandas as pd
from PIL import Image, ImageDraw, ImageFont

from engine import charts
from engine.core.errors import DataError
from engine.replay.frames import FilmFrames

WIDTH, HEIGHT, TOP, BOTTOM, MARGIN = 640, 700, 64, 26, 16
FRAME_MS, LAST_MS = 400, 2000
BACKGROUND, INK, MUTED, BAR = (255, 255, 255), (31, 35, 40), (140, 148, 158), (214, 39, 40)
MAX_LEGEND = 10


def _rgb(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    return int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow without FreeType: the small bitmap font
        return ImageFont.load_default()


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def film_gif(
    film: FilmFrames | None,
    points: pd.DataFrame | None = None,
    title: str = "",
    *,
    frame_ms: int = FRAME_MS,
    progress: Callable[[int, int], None] | None = None,
) -> bytes:
    """The frames of ``film`` as GIF bytes (a DataError when it has no frame); ``progress(done, total)`` after
    each frame drawn (e.g. an :class:`engine.runlog.events.Meter` of "drawing" frames)."""
    if film is None or not film.steps:
        raise DataError("the run has no UMAP film to draw (the film needs snapshots: --snapshot-every N)")
    n = film.n_points
    labels = (
        points["label"].astype(str).to_numpy()
        if points is not None and len(points) == n
        else np.full(n, "points")
    )
    names = sorted(set(labels.tolist()))
    codes = np.searchsorted(np.array(names), labels)
    colours = [_rgb(charts.color(i)) for i in range(len(names))]
    # a fixed palette: background, ink, muted, bar, then one entry per label colour (at most 252)
    palette = [BACKGROUND, INK, MUTED, BAR, *colours[:252]]
    flat = [channel for rgb in palette for channel in rgb]
    flat += [0] * (768 - len(flat))
    codes = 4 + np.minimum(codes, 251)

    xy = film.coords.reshape(-1, 2)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    box = (MARGIN, TOP, WIDTH - MARGIN, HEIGHT - BOTTOM - 8)
    scale = min((box[2] - box[0]) / span[0], (box[3] - box[1]) / span[1])
    offset = np.array(
        [
            box[0] + ((box[2] - box[0]) - span[0] * scale) / 2,
            box[1] + ((box[3] - box[1]) - span[1] * scale) / 2,
        ]
    )
    radius = 4 if n <= 500 else 3 if n <= 3000 else 2
    big, small = _font(17), _font(13)
    order = np.random.default_rng(0).permutation(n)  # no label always drawn on top
    heading = _fit_width(title, big, WIDTH - 2 * MARGIN - _legend_width(names) - 12)
    images = []
    for index, step in enumerate(film.steps):
        image = Image.new("P", (WIDTH, HEIGHT), 0)
        image.putpalette(flat)
        draw = ImageDraw.Draw(image)
        pixels = (film.coords[index] - lo) * scale
        pixels[:, 1] = (span[1] * scale) - pixels[:, 1]  # y grows upwards
        pixels += offset
        for i in order:
            x, y = pixels[i]
            draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=int(codes[i]))
        draw.text((MARGIN, 10), heading, fill=1, font=big)
        draw.text((MARGIN, 34), f"step {step}", fill=1, font=big)
        _legend(draw, names, small)
        shown = (index + 1) / len(film.steps)  # the film's own progress bar, drawn in the frame
        draw.rectangle((MARGIN, HEIGHT - BOTTOM, WIDTH - MARGIN, HEIGHT - BOTTOM + 6), fill=2)
        draw.rectangle(
            (MARGIN, HEIGHT - BOTTOM, MARGIN + shown * (WIDTH - 2 * MARGIN), HEIGHT - BOTTOM + 6), fill=3
        )
        images.append(image)
        if progress is not None:
            progress(index + 1, len(film.steps))
    durations = [frame_ms] * (len(images) - 1) + [LAST_MS]
    out = io.BytesIO()
    images[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return out.getvalue()


def _legend_width(names: list[str]) -> int:
    if len(names) == 1 and names[0] == "points":
        return 0
    return 300 if len(names) > 2 else 150


def _fit_width(text: str, font: ImageFont.ImageFont | ImageFont.FreeTypeFont, width: int) -> str:
    """``text`` cut (with an ellipsis) to fit ``width`` pixels."""
    while text and font.getlength(text) > width:
        text = text[:-2] + "…" if len(text) > 1 else ""
    return text


def _legend(
    draw: ImageDraw.ImageDraw, names: list[str], font: ImageFont.ImageFont | ImageFont.FreeTypeFont
) -> None:
    """Label names with their colour, right-aligned in the title band (at most :data:`MAX_LEGEND`)."""
    if len(names) == 1 and names[0] == "points":
        return
    shown = names[:MAX_LEGEND]
    columns = 2 if len(shown) > 2 else 1
    for i, name in enumerate(shown):
        column, row = divmod(i, (len(shown) + columns - 1) // columns)
        x = WIDTH - MARGIN - (columns - column) * 150
        y = 8 + row * 16 if len(shown) <= 6 else 4 + row * 12
        draw.rectangle((x, y + 3, x + 9, y + 12), fill=4 + min(i, 251))
        draw.text((x + 14, y), _fit(name, 18), fill=1, font=font)
    if len(names) > MAX_LEGEND:
        draw.text((WIDTH - MARGIN - 150, 50), f"+ {len(names) - MAX_LEGEND} more labels", fill=2, font=font)
