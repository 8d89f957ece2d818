"""Reading user files (CSV / TSV / JSONL / JSON / TXT / Parquet) into a DataFrame (columns are guessed
by :mod:`engine.data.columns`).

Rules (each failure is one :class:`DataError` naming the file):
- text must be UTF-8 (a BOM is fine); NUL bytes mean binary (or UTF-16) and are refused;
- the delimiter comes from the extension (``.csv`` comma, ``.tsv``/``.tab`` tab); when that yields a single
  column but the header holds ``;``, ``|``, tab or comma, that delimiter is used instead; other
  extensions are sniffed (``csv.Sniffer``);
- ``.txt`` is one sentence per line (split on ``\\n`` only), column ``text``;
- cells are read as strings (``"NA"`` stays text); at most ``max_rows`` rows (settings
  ``max_rows`` and ``max_file_mb``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import pandas as pd

from engine.core import settings, stopping
from engine.core.errors import DataError
from engine.core.safe_open import check_regular, open_regular, read_regular

DELIMITERS = (",", "\t", ";", "|")
DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}
EXT_DELIMITER = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".psv": "|"}
JSONL_EXTS = (".jsonl", ".ndjson")
_SAMPLE = 64 * 1024


def max_rows_default() -> int:
    """Row cap for user files (setting ``max_rows``)."""
    return int(settings.get("max_rows"))


def max_bytes_default() -> int:
    """Byte cap for user files (setting ``max_file_mb``)."""
    return int(float(settings.get("max_file_mb")) * 1024 * 1024)


# --------------------------------------------------------------------------------------------- reading
def read_table(
    path: str | os.PathLike,
    *,
    max_rows: int | None = None,
    max_bytes: int | None = None,
    sep: str | None = None,
) -> pd.DataFrame:
    """Read a user file into a DataFrame (string cells; JSON values kept as parsed).

    ``sep`` forces a delimiter (the file is then read as a delimited table whatever its extension).

    Raises :class:`DataError` for a missing, empty, binary, non-UTF-8, malformed or oversized file.
    """
    path = Path(path)
    max_rows = max_rows_default() if max_rows is None else int(max_rows)
    max_bytes = max_bytes_default() if max_bytes is None else int(max_bytes)
    fname = path.name or str(path)
    if not path.exists():
        raise DataError(f"{path}: file not found")
    if path.is_dir():
        raise DataError(f"{path}: not a file")
    check_regular(path, fname)  # a named pipe or a device: one line, never a wait
    size = path.stat().st_size
    if size == 0:
        raise DataError(f"{fname}: the file is empty")
    if size > max_bytes:
        raise DataError(f"{fname}: {size / 2**20:,.0f} MB is over the {max_bytes / 2**20:,.0f} MB upload cap")
    ext = path.suffix.lower()
    if ext == ".parquet":
        frame = _read_parquet(path, fname)
    else:
        frame = _read_text_table(path, ext, fname, sep, max_rows)
    frame.columns = [str(col).strip() for col in frame.columns]
    if len(frame) == 0:
        cols = ", ".join(frame.columns) or "none"
        raise DataError(f"{fname}: no data rows (only a header; columns: {cols})")
    if len(frame) > max_rows:
        raise DataError(
            f"{fname}: more than {max_rows:,} rows (the row cap); use a smaller file "
            "or raise the row cap (setting max_rows)"
        )
    return frame


def _read_text_table(path: Path, ext: str, fname: str, sep: str | None, max_rows: int) -> pd.DataFrame:
    """Parse a text file. Line-based formats are first read only up to the row cap (plus slack), so a huge
    file is rejected without loading it; the whole file is read only when that head had too few rows
    (cells spanning lines) or ended inside a quoted cell."""
    whole = ext == ".json"
    raw, cut = (read_regular(path), False) if whole else _head_lines(path, max_rows + 2)
    while True:
        text = decode_text(raw, fname)
        if not text.strip():
            raise DataError(f"{fname}: the file is empty (only whitespace)")
        try:
            frame = (
                parse_delimited(text, sep, fname, max_rows)
                if sep
                else _parse_text(text, ext, fname, max_rows)
            )
        except DataError:
            if not cut:
                raise
            frame = None
        if not cut or (frame is not None and len(frame) > max_rows):
            return frame
        raw, cut = read_regular(path), False


def _head_lines(path: Path, lines: int, chunk: int = 1 << 20) -> tuple[bytes, bool]:
    """The file's bytes up to the end of its ``lines``-th line, and whether anything was left out."""
    parts, seen = [], 0
    with open_regular(path) as handle:
        while block := handle.read(chunk):
            stopping.check()  # a run stopped while it reads a large file ends here (see engine.core.stopping)
            count = block.count(b"\n")
            if seen + count >= lines:
                cut = -1
                for _ in range(lines - seen):
                    cut = block.index(b"\n", cut + 1)
                parts.append(block[: cut + 1])
                return b"".join(parts), cut + 1 < len(block) or bool(handle.read(1))
            parts.append(block)
            seen += count
    return b"".join(parts), False


def check_columns(text: str, sep: str, fname: str) -> None:
    """Refuse a table wider than the setting ``max_columns`` from its header alone, before parsing it."""
    header = text.lstrip("\ufeff").split("\n", 1)[0]
    fields = header.count(sep) + 1
    limit = int(settings.get("max_columns"))
    if fields > limit:
        raise DataError(
            f"{fname}: {fields:,} columns in the header; a data file has at most {limit:,} "
            "(text, label, ...): is this the right file?"
        )


def decode_text(raw: bytes, fname: str) -> str:
    """UTF-8 (with or without BOM) or a clear error; NUL bytes mean binary content."""
    if b"\x00" in raw[:_SAMPLE]:
        raise DataError(
            f"{fname}: looks like a binary file (or UTF-16 text), not CSV/TSV/JSONL/TXT; "
            "save it as UTF-8 text"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        sample = raw[:_SAMPLE]
        junk = sum(1 for b in sample if b < 9 or 13 < b < 32 or b == 127) + sample.count(b"\xff")
        if junk > 0.05 * len(sample):
            raise DataError(f"{fname}: looks like a binary file, not CSV/TSV/JSONL/TXT text") from None
        bad = raw[err.start]
        raise DataError(
            f"{fname}: not UTF-8 text (byte 0x{bad:02x} at offset {err.start}); save it as UTF-8"
        ) from None


def _read_parquet(path: Path, fname: str) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except Exception as err:  # pyarrow raises several types for a broken file
        raise DataError(f"{fname}: not a readable Parquet file ({type(err).__name__})") from None


def _parse_text(text: str, ext: str, fname: str, max_rows: int) -> pd.DataFrame:
    if ext in JSONL_EXTS:
        return parse_jsonl(text, fname, max_rows)
    if ext == ".json":
        return _parse_json(text, fname, max_rows)
    if ext == ".txt":
        return parse_lines(text, fname, max_rows)
    if ext not in EXT_DELIMITER and text.lstrip().startswith("{"):
        return parse_jsonl(text, fname, max_rows)
    sep = EXT_DELIMITER.get(ext) or sniff_delimiter(text)
    if sep is None:
        return parse_lines(text, fname, max_rows)
    frame = parse_delimited(text, sep, fname, max_rows)
    if frame.shape[1] == 1:
        header = text.lstrip("\ufeff").split("\n", 1)[0]
        other = [d for d in DELIMITERS if d != sep and d in header]
        if other:
            alt = max(other, key=header.count)
            frame = parse_delimited(text, alt, fname, max_rows)
    return frame


def sniff_delimiter(text: str) -> str | None:
    """The delimiter of a delimited text (``csv.Sniffer`` over , tab ; |), or ``None`` if there is none."""
    sample = text[:_SAMPLE]
    if "\n" in sample[:-1]:
        sample = sample[: sample.rfind("\n")]
    try:
        return csv.Sniffer().sniff(sample, delimiters="".join(DELIMITERS)).delimiter
    except csv.Error:
        header = sample.split("\n", 1)[0]
        counts = {d: header.count(d) for d in DELIMITERS}
        best = max(counts, key=counts.get)
        return best if counts[best] else None


def parse_delimited(text: str, sep: str, fname: str, max_rows: int) -> pd.DataFrame:
    """Parse CSV/TSV text; every cell a string ("NA" stays "NA").

    Comma and other delimiters use standard CSV quoting. Tab-separated files are usually written without
    quoting (STS-B, SNLI: sentences hold stray ``"``), so a TSV is also read with quotes as plain characters,
    and that reading wins when it is a consistent table and quoting failed or joined lines into one cell.
    """
    check_columns(text, sep, fname)
    try:
        frame = _read_csv(text, sep, max_rows, csv.QUOTE_MINIMAL)
    except _EmptyTable:
        raise DataError(f"{fname}: no columns found (empty table)") from None
    except DataError as err:
        if sep != "\t" or '"' not in text:
            raise DataError(f"{fname}: not a valid {DELIMITER_NAMES[sep]}-separated table ({err})") from None
        frame = None
    if sep == "\t" and '"' in text:
        lines = [line.rstrip("\r") for line in text.split("\n") if line.strip()]
        widths = {line.count("\t") for line in lines}
        if len(widths) == 1 and (
            frame is None or not _well_quoted(text.lstrip("\ufeff"), lines)
        ):  # quotes are plain characters
            frame = _read_csv(text, sep, max_rows, csv.QUOTE_NONE)
        elif frame is None:
            raise DataError(
                f"{fname}: not a valid tab-separated table (lines have {min(widths) + 1} to "
                f"{max(widths) + 1} fields, and quoting does not explain it)"
            )
    frame.attrs["delimiter"] = sep
    return frame


_QUOTED_OR_PLAIN_FIELD = re.compile(r'(?:"(?:[^"]|"")*"|[^"\t\n][^\t\n]*|)(?:\t|\r?\n|\Z)')


def _well_quoted(text: str, lines: list[str]) -> bool:
    """Whether every tab-separated field that starts with ``"`` is a whole CSV-quoted field (closing quote
    at its end, inner quotes doubled), as a CSV writer makes it; stray quotes in text are not.

    Line by line first (fast); a quoted field may hold tabs and newlines, so when that view fails the text
    is scanned field by field, quote-aware. A stray quote stops the scan at the first field it opens."""
    if all(_line_well_quoted(line) for line in lines):
        return True
    position, end = 0, len(text)
    while position < end:
        field = _QUOTED_OR_PLAIN_FIELD.match(text, position)
        if field is None or field.end() == position:
            return False
        position = field.end()
    return True


def _line_well_quoted(line: str) -> bool:
    for cell in line.split("\t"):
        if cell.startswith('"') and (
            len(cell) < 2 or not cell.endswith('"') or '"' in cell[1:-1].replace('""', "")
        ):
            return False
    return True


class _EmptyTable(DataError):
    """A delimited text with no columns at all."""


def _read_csv(text: str, sep: str, max_rows: int, quoting: int) -> pd.DataFrame:
    try:
        return pd.read_csv(
            io.StringIO(text),
            sep=sep,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            nrows=max_rows + 1,
            skip_blank_lines=True,
            engine="c",
            quoting=quoting,
        )
    except pd.errors.EmptyDataError:
        raise _EmptyTable("no columns found (empty table)") from None
    except (pd.errors.ParserError, csv.Error, ValueError) as err:
        detail = " ".join(str(err).split())
        raise DataError(re.sub(r"^Error tokenizing data\. C error: ", "", detail)) from None


def parse_jsonl(text: str, fname: str, max_rows: int) -> pd.DataFrame:
    """One JSON object per line (blank lines skipped)."""
    records = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataError(f"{fname}: line {number} is not valid JSON ({err.msg})") from None
        except RecursionError:
            raise DataError(f"{fname}: line {number} is nested too deeply to be a data record") from None
        if not isinstance(record, dict):
            raise DataError(f'{fname}: line {number} is not a JSON object ({{"text": ...}})')
        records.append(record)
        if len(records) > max_rows:
            break
    return pd.DataFrame.from_records(records)


def _parse_json(text: str, fname: str, max_rows: int) -> pd.DataFrame:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return parse_jsonl(text, fname, max_rows)  # many ".json" files are really JSON Lines
    except RecursionError:
        raise DataError(f"{fname}: nested too deeply to be a table of records") from None
    if isinstance(data, dict):
        lists = [value for value in data.values() if isinstance(value, list)]
        data = lists[0] if len(lists) == 1 else [data]
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise DataError(f'{fname}: expected a JSON list of objects like [{{"text": ...}}, ...]')
    return pd.DataFrame.from_records(data[: max_rows + 1])


def parse_lines(text: str, fname: str, max_rows: int) -> pd.DataFrame:
    """One sentence per line; split on ``\\n`` only (``str.splitlines`` would also split on U+0085)."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    lines = [line for line in lines if line.strip()]
    frame = pd.DataFrame({"text": lines[: max_rows + 1]})
    return frame
