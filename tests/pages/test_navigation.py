"""pages/ holds the page scripts and nothing else (Streamlit may list every module there as a page); the
app's navigation names each of them once; the live canvas component's files sit beside ui/painter.py."""

from __future__ import annotations

from apphelpers import REPO_ROOT

from ui import navigation, painter


def test_pages_folder_holds_exactly_the_navigation_pages() -> None:
    found = sorted(
        p.relative_to(REPO_ROOT).as_posix()
        for p in (REPO_ROOT / "pages").iterdir()
        if p.name != "__pycache__"
    )
    assert found == sorted(script for script, _, _ in navigation.PAGES)
    assert [title for _, title, _ in navigation.PAGES] == [
        "Overview",
        "SimCSE training",
        "JEPA (non-contrastive)",
        "Isotropy vs clusters",
        "Compare runs",
        "Data & encoders",
        "Glossary",
    ]


def test_the_live_canvas_component_files_are_there() -> None:
    assert painter.FILES.is_dir() and painter.FILES.parent == REPO_ROOT / "ui"
    html = (painter.FILES / "index.html").read_text(encoding="utf-8")
    assert '<script src="painter.js"></script>' in html and (painter.FILES / "painter.js").is_file()
