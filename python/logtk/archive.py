"""logtk.Archive: lossless, searchable log archives (logtk-archive(5))."""
import os
from ctypes import byref, c_uint64, c_void_p, string_at

from . import _lib
from ._lib import lib
from .errors import error
from .parser import _bytes

__all__ = ["Archive"]

_CHUNK = 8 << 20
GREP_FIXED, GREP_ICASE, GREP_INVERT = 1, 2, 4


class Archive:
    """An archive file.  ``Archive.compress(source, path)`` writes one; ``decompress()``,
    ``grep()``, ``cat()`` and ``totals()`` read it.  Damage raises ArchiveError naming the
    lines lost."""

    def __init__(self, path):
        self.path = os.fspath(path)

    @classmethod
    def compress(cls, source, path, level=None, threads=None, format=None, dataset=None,
                 block_lines=None):
        """Compresses ``source`` (a path, bytes, or an iterable of bytes chunks) into the
        archive ``path`` (written to a temporary file renamed into place at the end, so a
        failure never replaces a good archive).  ``format``/``dataset`` store the header
        fields as columns of their own.  Returns the Archive."""
        w = c_void_p()
        rc = lib.logtk_archive_writer_new(byref(w))
        if rc:
            raise error(rc)
        try:
            def check(rc):
                if rc:
                    raise error(rc, lib.logtk_archive_writer_errmsg(w))
            if dataset is not None and format is None:
                d = lib.logtk_dataset_find(_bytes(dataset))
                if not d:
                    raise error(_lib.ERR_NOT_FOUND, "unknown dataset '%s'" % dataset)
                format = lib.logtk_dataset_format(d).decode()
            for name, value in (("level", level), ("threads", threads), ("format", format),
                                ("block_lines", block_lines)):
                if value is not None:
                    check(lib.logtk_archive_writer_set_option(w, name.encode(),
                                                              _bytes(str(value))))
            check(lib.logtk_archive_writer_open_path(w, os.fsencode(path)))
            if isinstance(source, (bytes, bytearray, memoryview)):
                chunks = [bytes(source)]
            elif isinstance(source, (str, os.PathLike)):
                chunks = _file_chunks(source)
            else:
                chunks = source
            for chunk in chunks:
                check(lib.logtk_archive_writer_write(w, chunk, len(chunk)))
            check(lib.logtk_archive_writer_close(w))
        finally:
            lib.logtk_archive_writer_free(w)
        return cls(path)

    def _reader(self):
        r = c_void_p()
        rc = lib.logtk_archive_reader_new(byref(r))
        if rc:
            raise error(rc)
        rc = lib.logtk_archive_reader_open_path(r, os.fsencode(self.path))
        if rc:
            msg = lib.logtk_archive_reader_errmsg(r)
            lib.logtk_archive_reader_free(r)
            raise error(rc, msg)
        return r

    def blocks(self, first_line=None):
        """Yields (first_line, text) for each block, from the block holding ``first_line``."""
        r = self._reader()
        try:
            if first_line is not None:
                rc = lib.logtk_archive_reader_seek_line(r, first_line)
                if rc == _lib.DONE:
                    return
                if rc:
                    raise error(rc, lib.logtk_archive_reader_errmsg(r))
            b = _lib.ArchiveBlock()
            while True:
                rc = lib.logtk_archive_reader_next(r, byref(b))
                if rc == _lib.DONE:
                    return
                if rc:
                    raise error(rc, lib.logtk_archive_reader_errmsg(r))
                yield b.first_line, string_at(b.text.ptr, b.text.len) if b.text.len else b""
        finally:
            lib.logtk_archive_reader_free(r)

    def decompress(self, out=None):
        """The original bytes; with ``out`` (a path or a binary file), written there."""
        if out is None:
            return b"".join(text for _, text in self.blocks())
        if isinstance(out, (str, os.PathLike)):
            from .parser import _write_atomically
            _write_atomically(out, self.decompress())
            return None
        for _, text in self.blocks():
            out.write(text)
        return None

    def cat(self, first, last=None):
        """Lines ``first``..``last`` (1-based, inclusive; ``last`` None: to the end), as
        bytes with their terminators, found through the archive's index."""
        if first < 1:
            raise error(_lib.ERR_INVALID, "cat: lines are numbered from 1")
        out = []
        for start, text in self.blocks(first):
            lines = text.splitlines(keepends=True)
            lo = max(first - start, 0)
            hi = len(lines) if last is None else min(last - start + 1, len(lines))
            out.extend(lines[lo:hi])
            if last is not None and start + len(lines) > last:
                break
        return b"".join(out)

    def grep(self, pattern, fixed=False, ignore_case=False, invert=False, threads=1):
        """The lines (bytes with their terminators, in archive order) that match the PCRE2
        ``pattern`` (a fixed string with ``fixed``), as `logtk grep` selects them."""
        flags = (GREP_FIXED if fixed else 0) | (GREP_ICASE if ignore_case else 0) | \
                (GREP_INVERT if invert else 0)
        g = c_void_p()
        rc = lib.logtk_grep_new(byref(g), _bytes(pattern), flags)
        if rc:
            msg = lib.logtk_grep_errmsg(g) if g else None
            lib.logtk_grep_free(g)
            raise error(rc, msg)
        found = []

        def on_line(user, data, n):
            found.append(string_at(data, n))
            return 0
        cb = _lib.WRITE_CALLBACK(on_line)
        r = None
        try:
            if threads and threads > 1:
                lib.logtk_grep_set_threads(g, int(threads))
            r = self._reader()
            b = _lib.ArchiveBlock()
            count = c_uint64()
            while True:
                rc = lib.logtk_grep_next_block(g, r, byref(b), cb, None, byref(count))
                if rc == _lib.DONE:
                    break
                if rc:
                    msg = lib.logtk_grep_errmsg(g) or lib.logtk_archive_reader_errmsg(r)
                    raise error(rc, msg)
        finally:
            lib.logtk_grep_free(g)
            if r:
                lib.logtk_archive_reader_free(r)
        return found

    def totals(self):
        """(lines, blocks, raw_bytes) from the archive's index."""
        r = self._reader()
        try:
            lines, blocks, raw = c_uint64(), c_uint64(), c_uint64()
            rc = lib.logtk_archive_reader_totals(r, byref(lines), byref(blocks), byref(raw))
            if rc:
                raise error(rc, lib.logtk_archive_reader_errmsg(r))
            return lines.value, blocks.value, raw.value
        finally:
            lib.logtk_archive_reader_free(r)


def _file_chunks(path):
    with open(path, "rb") as f:
        while True:
            chunk = f.read(_CHUNK)
            if not chunk:
                return
            yield chunk
