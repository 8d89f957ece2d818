"""Every setting checked at once (:mod:`engine.core.settings` reads one at a time, where it is used).

A bad value used to surface wherever its setting was first read: ``EMBEDLAB_MALLOC_TUNING=abc`` was a
traceback from ``cli.main`` (read before its one-line error handler) and killed the app's job worker; a
float setting's NaN passed both bounds (issue 47). So a command checks every setting before any work
(:func:`check_all`), and the app shows every bad one's line (:func:`problems`) while its pages draw with the
defaults (:func:`get_or_default`).
"""

from __future__ import annotations

from typing import Any

from engine.core import settings
from engine.core.errors import ConfigError


def problems() -> list[str]:
    """One line per variable of a setting set to a value the setting refuses (unset ones are defaults)."""
    found = []
    for setting in settings.SETTINGS.values():
        if setting.env is None:
            continue
        try:
            settings.get(setting.name)
        except ConfigError as err:
            found.append(str(err))
    return found


def check_all() -> None:
    """Raise the first bad setting's :class:`ConfigError` (saying how many more there are)."""
    found = problems()
    if found:
        more = f" (and {len(found) - 1} more bad setting(s))" if len(found) > 1 else ""
        raise ConfigError(found[0] + more)


def get_or_default(name: str) -> Any:
    """``settings.get(name)``, or its default when the variable is bad: for a page that must still draw
    (the app shows the bad settings' lines itself), never for a choice a run depends on."""
    try:
        return settings.get(name)
    except ConfigError:
        return settings.default(name)
