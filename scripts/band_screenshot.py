"""A group's band chart as a PNG (docs/screenshots/group-band.png by default): the figure that Compare's
groups section draws (engine.charts.bands), written as a standalone HTML page and photographed in chromium.

    python scripts/band_screenshot.py GROUP_FOLDER [--measure isoscore] [--band std|minmax] [--runs]
        [--out docs/screenshots/group-band.png]

GROUP_FOLDER is a group of engine.groups (``<cache>/groups/<name>``: ``python -m engine probe --seeds ...``,
``python -m engine sweep ...`` or ``python -m engine claims``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "e2e"), str(REPO / "tests")]

import browser_flow  # noqa: E402 - needs the path above

from engine import groups, runlog  # noqa: E402
from engine.charts.bands import band_figure  # noqa: E402
from engine.runlog import export  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("group", help="a group folder")
    parser.add_argument("--measure", default="isoscore")
    parser.add_argument("--band", choices=("std", "minmax"), default="std")
    parser.add_argument("--runs", action="store_true", help="draw the members thin behind the band")
    parser.add_argument("--out", default=str(REPO / "docs" / "screenshots" / "group-band.png"))
    args = parser.parse_args()
    group = groups.read_group(args.group)
    dirs = groups.member_dirs(group)
    cells = {
        groups.cell_label(params): [runlog.read_metrics(dirs[m.id]) for m in members if m.status == "done"]
        for params, members in groups.cells(group)
    }
    figure = band_figure(cells, args.measure, kind=args.band, show_runs=args.runs, height=420)
    figure.update_layout(title=f"{figure.layout.title.text} · {group.name}", width=900)
    with tempfile.TemporaryDirectory(prefix="embedlab-band-") as tmp:
        html = Path(tmp) / "band.html"
        html.write_bytes(export.figure_html(figure))
        with browser_flow.chromium() as browser:
            page = browser.new_page(viewport={"width": 920, "height": 440})
            page.goto(html.as_uri())
            page.wait_for_selector(".main-svg", timeout=60_000)
            page.screenshot(path=args.out)
    print(f"{args.out} <- {group.path} ({args.measure}, {args.band})")


if __name__ == "__main__":
    main()
