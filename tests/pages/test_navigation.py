"""The page scripts live in views/ and there is no pages/ folder (Streamlit would list every script there as a
page and run it without app.py on a fresh server); the app's navigation names each of them once; the live
view's files (its component's script, the shared renderer and its styles) are where ui/live_view.py reads
them, and the static folder that serves Plotly.js and the live feed exists."""

from __future__ import annotations

from apphelpers import REPO_ROOT

from ui import live_view, navigation


def test_views_folder_holds_exactly_the_navigation_pages_and_there_is_no_pages_folder() -> None:
    assert not (REPO_ROOT / "pages").exists()
    found = sorted(
        p.relative_to(REPO_ROOT).as_posix()
        for p in (REPO_ROOT / navigation.FOLDER).iterdir()
        if p.name != "__pycache__"
    )
    assert found == sorted(script for script, _, _ in navigation.PAGES)
    assert [title for _, title, _ in navigation.PAGES] == [
        "Overview",
        "Isotropy vs clusters",
        "SimCSE training",
        "JEPA (non-contrastive)",
        "Compare runs",
        "Data & encoders",
        "Glossary",
    ]


def test_the_live_view_files_are_there() -> None:
    for path in (
        live_view.ENGINE_WEB / "charts.js",
        live_view.ENGINE_WEB / "charts.css",
        live_view.UI_WEB / "live.js",
    ):
        assert path.is_file(), path
    assert live_view.STATIC == REPO_ROOT / "static" and (live_view.STATIC / ".gitignore").is_file()
    assert live_view.plotly_source().is_file()
