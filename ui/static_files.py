"""Files the browser loads by URL from the app's static folder (``[server] enableStaticServing``, ``static/``
beside ``app.py``, served at ``app/static/...``) rather than as Streamlit media: a media file lives as long as
the script run that drew it, so a browser that asked for it after the reader had moved on got a 404 (the
Overview's screenshot, seen as a console error in a browser test, 2026-12-02). A static file's URL never
goes stale."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ui import feed

STATIC = feed.STATIC


def serve(source: Path, name: str, static: Path = STATIC) -> str:
    """Put ``source`` into the static folder as ``name`` (a hard link, else a copy; written atomically, once
    per content size) and return its URL, relative to the app's pages."""
    target = static / name
    if not (target.exists() and target.stat().st_size == source.stat().st_size):
        static.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=static, prefix=".serve-", suffix=".tmp")
        os.close(handle)
        os.unlink(temporary)
        try:
            os.link(source, temporary)
        except OSError:
            shutil.copyfile(source, temporary)
        os.replace(temporary, target)
    return f"app/static/{target.name}"
