"""A run folder checked against itself before a table is written from it (issue 55, item 3).

A shipped ``metrics.csv`` cut to 3,000 bytes gave "50 steps, end 0.8247" for a run that ended at step 100;
random bytes gave "0 steps — —"; a NaN in the last row showed an earlier step's value as the end; all with
exit 0. Here every folder that ``python -m engine results`` reads, shipped or not, must hold:

- a ``status.json`` object whose ``last_step`` is the step of ``metrics.csv``'s last row (none: no rows);
- a ``metrics.csv`` of UTF-8 text ending in a newline, a header starting with ``step``, every row with as
  many cells as the header, each cell empty or a finite number (the writer, ``format_cell``, writes a
  non-finite value as an empty cell, never ``nan``), steps whole and increasing;
- where it has one (a shipped copy must), a :data:`MANIFEST` whose SHA-256 digests (FIPS 180-4) match its
  files: written by ``results --ship`` from the bytes it copied, the format of ``sha256sum``.

A folder that fails is :class:`DamagedFolder`, one line naming the file and what is wrong.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from collections.abc import Iterable
from pathlib import Path

from engine.core.atomic import write_text_atomic
from engine.core.errors import EmbedlabError
from engine.core.safe_open import read_regular

#: the checksum manifest of a shipped run folder: ``<sha256 hex>  <file name>`` a line (``sha256sum -c``)
MANIFEST = "MANIFEST.sha256"
STATUS, METRICS = "status.json", "metrics.csv"


class DamagedFolder(EmbedlabError):
    """A run folder whose files disagree with themselves or with its manifest: one line naming the file."""


def digest(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex (FIPS 180-4, :mod:`hashlib`)."""
    return hashlib.sha256(data).hexdigest()


def manifest_text(files: dict[str, bytes]) -> str:
    """The manifest of ``files`` (name → bytes), one ``<digest>  <name>`` line each, sorted by name."""
    return "".join(f"{digest(data)}  {name}\n" for name, data in sorted(files.items()))


def parse_manifest(text: str, where: str = MANIFEST) -> dict[str, str]:
    """A manifest's lines as file name → digest; :class:`DamagedFolder` for a line that is not
    ``<64 hex digits>  <plain file name>`` or a name given twice."""
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        value, sep, name = line.partition("  ")
        plain_name = bool(name) and "/" not in name and name not in (".", "..") and name.strip() == name
        if not (sep and plain_name and len(value) == 64 and all(c in "0123456789abcdef" for c in value)):
            raise DamagedFolder(f"{where}: line {number} is not '<sha256>  <file name>'")
        if name in found:
            raise DamagedFolder(f"{where}: {name} is listed twice")
        found[name] = value
    return found


def write_manifest(folder: Path, names: Iterable[str]) -> None:
    """``folder``'s :data:`MANIFEST` of the files ``names`` as they are now."""
    write_text_atomic(folder / MANIFEST, manifest_text({n: read_regular(folder / n) for n in names}))


def verify_manifest(folder: Path) -> None:
    """Each file the manifest lists has its digest; :class:`DamagedFolder` names the first that does not."""
    path = folder / MANIFEST
    for name, expected in parse_manifest(_text(path), str(path)).items():
        try:
            data = read_regular(folder / name)
        except OSError as err:
            raise DamagedFolder(f"{folder / name}: listed in {MANIFEST} but unreadable ({err})") from None
        if digest(data) != expected:
            raise DamagedFolder(f"{folder / name}: its SHA-256 differs from {MANIFEST}'s (damaged copy)")


def metrics_steps(data: bytes, where: str = METRICS) -> list[int]:
    """The steps of a ``metrics.csv``'s rows, every row checked (see the module's list);
    :class:`DamagedFolder` names the first fault."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DamagedFolder(f"{where}: not UTF-8 text") from None
    if not text.endswith("\n"):
        raise DamagedFolder(f"{where}: its last line is cut (no newline at the end)")
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or rows[0][:1] != ["step"]:
        raise DamagedFolder(f"{where}: no header starting with 'step'")
    steps: list[int] = []
    for number, row in enumerate(rows[1:], 2):
        if len(row) != len(rows[0]):
            raise DamagedFolder(f"{where}: line {number} has {len(row)} cells, the header {len(rows[0])}")
        if not all(_finite_or_empty(cell) for cell in row[1:]):
            raise DamagedFolder(f"{where}: line {number} holds a cell that is not a finite number")
        if not row[0].isdigit() or (steps and int(row[0]) <= steps[-1]):
            raise DamagedFolder(
                f"{where}: line {number}'s step {row[0]!r} is not a whole step after the last"
            )
        steps.append(int(row[0]))
    return steps


def check_folder(folder: Path, shipped: bool) -> None:
    """``folder`` checked against its manifest (required when ``shipped``) and itself: metrics.csv's rows
    (:func:`metrics_steps`) end at status.json's ``last_step``."""
    if shipped or (folder / MANIFEST).exists():
        verify_manifest(folder)
    status = _status(folder / STATUS)
    path = folder / METRICS
    try:
        steps = metrics_steps(read_regular(path), str(path))
    except OSError as err:
        raise DamagedFolder(f"{path}: unreadable ({err})") from None
    last = steps[-1] if steps else None
    if status.get("last_step") != last:
        raise DamagedFolder(
            f"{path}: its last row is step {last}, {STATUS} says {status.get('last_step')} (cut or damaged)"
        )


def _status(path: Path) -> dict:
    try:
        value = json.loads(_text(path))
    except ValueError:
        raise DamagedFolder(f"{path}: not JSON") from None
    if not isinstance(value, dict) or not isinstance(value.get("last_step", 0), (int, type(None))):
        raise DamagedFolder(f"{path}: not a run's status (an object with a whole last_step)")
    return value


def _text(path: Path) -> str:
    try:
        return read_regular(path).decode("utf-8")
    except OSError as err:
        raise DamagedFolder(f"{path}: unreadable ({err})") from None
    except UnicodeDecodeError:
        raise DamagedFolder(f"{path}: not UTF-8 text") from None


def _finite_or_empty(cell: str) -> bool:
    if cell == "":
        return True
    try:
        return math.isfinite(float(cell))
    except ValueError:
        return False
