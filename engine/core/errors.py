"""User-facing errors: each carries one clear line that the CLI and the UI show as is."""


class EmbedlabError(Exception):
    """Base of every error a user can cause; ``str(err)`` is a one-line message."""


class DataError(EmbedlabError):
    """A data set or user file cannot be read or does not fit the task."""


class EncoderError(EmbedlabError):
    """An encoder cannot be found, downloaded or loaded."""


class ConfigError(EmbedlabError):
    """A setting is out of range or inconsistent with the data."""


class RunFailed(EmbedlabError):
    """A run ended by an unexpected failure (out of memory, a full disk, a bug); the message is its one line
    and the run folder keeps the details."""


def one_line(err: BaseException) -> str:
    """Render any exception as a single line (type name only when the message is empty)."""
    text = " ".join(str(err).split())
    if isinstance(err, EmbedlabError):
        return text or type(err).__name__
    return f"{type(err).__name__}: {text}" if text else type(err).__name__
