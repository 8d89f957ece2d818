"""Reading user files (CSV / TSV / JSONL / JSON / TXT / Parquet) into a DataFrame, and guessing columns.

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
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from engine import settings, stopping
from engine.errors import DataError
from engine.safe_open import check_regular, open_regular, read_regular

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
            stopping.check()  # a run stopped while it reads a large file ends here (see engine.stopping)
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


# ------------------------------------------------------------------------------------------ columns
TEXT_NAMES = (
    "text",
    "sentence",
    "sentences",
    "sent",
    "content",
    "review",
    "document",
    "doc",
    "body",
    "utterance",
    "query",
    "question",
    "tweet",
    "comment",
    "passage",
    "title",
)
LABEL_NAMES = (
    "label",
    "labels",
    "class",
    "classes",
    "category",
    "categories",
    "topic",
    "sentiment",
    "target",
    "y",
    "gold_label",
    "tag",
    "tags",
    "intent",
    "polarity",
    "emotion",
)
LEFT_NAMES = ("sentence1", "sentence_1", "sent1", "text1", "text_1", "text_a", "s1", "left", "question1")
RIGHT_NAMES = ("sentence2", "sentence_2", "sent2", "text2", "text_2", "text_b", "s2", "right", "question2")
SCORE_NAMES = (
    "score",
    "similarity",
    "similarity_score",
    "sim",
    "relatedness",
    "relatedness_score",
    "gold_score",
    "label",
)
PREMISE_NAMES = ("premise", "sentence1", "sentence_1", "text_a", "s1")
HYPOTHESIS_NAMES = ("hypothesis", "sentence2", "sentence_2", "text_b", "s2")
NLI_LABEL_NAMES = ("label", "gold_label", "labels", "class")
ANCHOR_NAMES = ("anchor", "sent0", "premise", "query", "sentence", "text")
POSITIVE_NAMES = ("positive", "sent1", "entailment", "pos", "positive_sentence")
NEGATIVE_NAMES = ("negative", "hard_neg", "hard_negative", "contradiction", "neg", "negative_sentence")
NLI_VALUES = {"entailment", "neutral", "contradiction", "-", "0", "1", "2", "-1"}


@dataclass
class ColumnGuess:
    """The guessed kind and the column for each role (``None`` = not found); for the UI's column picker."""

    kind: str
    columns: list[str] = field(default_factory=list)
    text: str | None = None
    label: str | None = None
    left: str | None = None
    right: str | None = None
    score: str | None = None
    premise: str | None = None
    hypothesis: str | None = None
    anchor: str | None = None
    positive: str | None = None
    negative: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def _norm(name: object) -> str:
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def find_column(columns: list[str], candidates: tuple[str, ...], exclude: tuple = ()) -> str | None:
    """The first column whose normalised name is in ``candidates`` (in candidate order)."""
    by_norm: dict[str, str] = {}
    for col in columns:
        if col not in exclude:
            by_norm.setdefault(_norm(col), col)
    for cand in candidates:
        if cand in by_norm:
            return by_norm[cand]
    return None


def resolve_column(columns: list[str], requested: str) -> str | None:
    """A user-given column name: exact match, else case/space-insensitive."""
    if requested in columns:
        return requested
    matches = [col for col in columns if _norm(col) == _norm(requested)]
    return matches[0] if matches else None


def _values(frame: pd.DataFrame, col: str, n: int = 2000) -> list[str]:
    return [str(v).strip() for v in frame[col].head(n).tolist() if v is not None and str(v).strip() != ""]


def _is_numeric(frame: pd.DataFrame, col: str) -> bool:
    values = _values(frame, col)
    if not values:
        return False
    numbers = pd.to_numeric(pd.Series(values), errors="coerce")
    return bool(numbers.notna().all())


def _looks_nli(frame: pd.DataFrame, col: str, numeric_ok: bool) -> bool:
    """Label values are NLI names (or 0/1/2 codes when ``numeric_ok``), "-" allowed."""
    values = {v.lower() for v in _values(frame, col)}
    if not values or not values <= NLI_VALUES:
        return False
    named = values & {"entailment", "neutral", "contradiction"}
    return bool(named) or (numeric_ok and "2" in values)


def _string_columns(frame: pd.DataFrame) -> list[str]:
    return [col for col in frame.columns if _values(frame, col, 200) and not _is_numeric(frame, col)]


def guess_columns(frame: pd.DataFrame) -> ColumnGuess:
    """Guess the column of every role from the names (and contents), then the most specific kind.

    Kind order: triples (anchor/positive/negative, sent0/sent1/hard_neg) > nli-pairs (premise/hypothesis
    + NLI labels) > pairs (sentence1/sentence2 + numeric score) > labelled (text + label) > sentences.
    """
    cols = [str(c) for c in frame.columns]
    g = ColumnGuess(kind="sentences", columns=cols)
    g.anchor, g.positive = find_column(cols, ANCHOR_NAMES), find_column(cols, POSITIVE_NAMES)
    g.negative = find_column(cols, NEGATIVE_NAMES)
    g.premise, g.hypothesis = find_column(cols, PREMISE_NAMES), find_column(cols, HYPOTHESIS_NAMES)
    g.left, g.right = find_column(cols, LEFT_NAMES), find_column(cols, RIGHT_NAMES)
    numeric = [c for c in cols if c not in (g.left, g.right) and _is_numeric(frame, c)]
    g.score = find_column(numeric, SCORE_NAMES)
    g.text = find_column(cols, TEXT_NAMES) or _fallback_text(frame)
    g.label = find_column(cols, LABEL_NAMES, exclude=(g.text,))
    nli_label = find_column(cols, NLI_LABEL_NAMES, exclude=(g.premise, g.hypothesis))
    if g.anchor and g.positive and g.negative and len({g.anchor, g.positive, g.negative}) == 3:
        g.kind = "triples"
    elif (
        g.premise
        and g.hypothesis
        and nli_label
        and _looks_nli(frame, nli_label, numeric_ok=_norm(g.premise) == "premise")
    ):
        g.kind, g.label = "nli-pairs", nli_label
    elif g.left and g.right and g.score:
        g.kind = "pairs"
    elif g.text and g.label:
        g.kind = "labelled"
    return g


def _fallback_text(frame: pd.DataFrame) -> str | None:
    """No column named like text: the single string column, else the one with the longest texts."""
    strings = [c for c in _string_columns(frame) if _norm(c) not in LABEL_NAMES]
    if len(strings) <= 1:
        return strings[0] if strings else None
    return max(strings, key=lambda c: frame[c].head(500).astype(str).str.len().mean())
