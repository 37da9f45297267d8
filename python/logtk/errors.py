"""Exceptions raised by the package: each carries the library's status code and its
message (the handle's logtk_*_errmsg(), which names the file and line where there is one)."""
from ._lib import lib


class LogtkError(Exception):
    """A liblogtk call failed.  ``code`` is the LOGTK_ERR_* status, ``message`` the
    library's message."""

    def __init__(self, code, message=None):
        self.code = code
        if not message:
            message = lib.logtk_strerror(code).decode("utf-8", "replace")
        self.message = message
        super().__init__(message)


class NoMemoryError(LogtkError, MemoryError):
    """LOGTK_ERR_NOMEM"""


class LogtkIOError(LogtkError, OSError):
    """LOGTK_ERR_IO: a file could not be opened, read or written"""

    def __str__(self):
        return self.message


class InvalidError(LogtkError, ValueError):
    """LOGTK_ERR_INVALID: bad argument or option value"""


class PatternError(LogtkError, ValueError):
    """LOGTK_ERR_SYNTAX: a bad log format or regular expression"""


class DataError(LogtkError):
    """LOGTK_ERR_DATA and LOGTK_ERR_LINE_TOO_LONG: bad input data"""


class ArchiveError(LogtkError):
    """LOGTK_ERR_ARCHIVE: a damaged compressed stream or archive"""


class StateError(LogtkError):
    """LOGTK_ERR_STATE: a snapshot or model damaged, foreign or of another version"""


class NotFoundError(LogtkError, LookupError):
    """LOGTK_ERR_NOT_FOUND: unknown name (dataset, parser, model, template id)"""


class LimitError(LogtkError):
    """LOGTK_ERR_LIMIT: a regex hit its match limit, or a size limit of a model"""


class UnsupportedError(LogtkError):
    """LOGTK_ERR_UNSUPPORTED"""


_BY_CODE = {-1: NoMemoryError, -2: LogtkIOError, -3: InvalidError, -4: PatternError,
            -5: DataError, -6: DataError, -7: ArchiveError, -8: StateError, -9: NotFoundError,
            -10: LimitError, -11: UnsupportedError}


def error(code, errmsg=None):
    """The exception for status ``code``; ``errmsg`` is the handle's message (bytes)."""
    message = errmsg.decode("utf-8", "replace") if isinstance(errmsg, bytes) else errmsg
    return _BY_CODE.get(code, LogtkError)(code, message)
