"""Reading and writing the files of the toolkit without tracebacks or half-written files.

Every fault is a ``SproutsError`` of one line that names the file once: a missing
file is "no such file", a binary or deeply nested JSON file is said to be one, an
output whose directory is missing or read-only is refused before any work, and a
file is written to a temporary file beside it and renamed, never half-written.
Directories are never created silently.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from .errors import GameFileError, OutputError
from .limits import check_game_size

#: The recursion limit while a JSON file is decoded (the interpreter's own default).
JSON_RECURSION_LIMIT = 1000


def unreadable(error: OSError) -> str:
    """Why a file could not be read, without its name (the caller gives it once)."""
    if isinstance(error, FileNotFoundError):
        return "no such file"
    if isinstance(error, IsADirectoryError):
        return "is a directory, not a file"
    return f"cannot read: {error.strerror or error}"


def read_json_file(p: Path) -> object:
    """A JSON file's contents; a missing, unreadable, binary, oversized or malformed file is a
    ``GameFileError`` of one line that names the file once."""
    try:
        check_game_size(p.stat().st_size, str(p))
        data = p.read_bytes()
    except FileNotFoundError:
        raise GameFileError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise GameFileError(f"{p}: is a directory, not a file") from None
    except OSError as e:
        raise GameFileError(f"{p}: cannot read: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise GameFileError(f"{p}: not a text file (byte {e.start + 1} is not UTF-8)") from None
    # The decoder recurses once per level of nesting; solvers raise the recursion limit for
    # their own needs, and with a high limit a deeply nested file would overflow the C stack
    # (a crash, not an error).  A saved game is a few levels deep.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(min(limit, JSON_RECURSION_LIMIT))
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise GameFileError(f"{p}: line {e.lineno}, column {e.colno}: not JSON: {e.msg}") from None
    except RecursionError:
        raise GameFileError(f"{p}: nested too deeply to be a saved game") from None
    finally:
        sys.setrecursionlimit(limit)


def check_directory(path: str | os.PathLike, for_file: str | os.PathLike | None = None) -> None:
    """Refuse a directory to write into that is missing, not a directory, or not writable."""
    d = Path(path)
    what = f"{for_file}: directory {str(d)!r}" if for_file is not None else f"{d}"
    if not d.exists():
        raise OutputError(f"{what}: no such directory (it is not created for you)")
    if not d.is_dir():
        raise OutputError(f"{what}: not a directory")
    if not os.access(d, os.W_OK | os.X_OK):
        raise OutputError(f"{what}: the directory is not writable")


def check_output(path: str | os.PathLike, suffixes: tuple[str, ...] = ()) -> None:
    """Refuse an output file before any work: a wrong extension, a directory, or a missing or
    read-only directory to hold it."""
    p = Path(path)
    if suffixes and p.suffix.lower() not in suffixes:
        raise OutputError(f"{p}: the output must end in {' or '.join(suffixes)}")
    if p.is_dir():
        raise OutputError(f"{p}: is a directory, not a file")
    if p.exists() and not os.access(p, os.W_OK):
        raise OutputError(f"{p}: the file is not writable")
    check_directory(p.parent if str(p.parent) else Path("."), p)


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Never a half-written file: write a temporary file beside ``path`` and ``os.replace`` it.

    A fault (missing or read-only directory, full disk) is an ``OutputError`` of one line.
    """
    p = Path(path)
    directory = p.parent if str(p.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=directory)
    except FileNotFoundError:
        raise OutputError(f"{p}: no such directory {str(directory)!r} (it is not created for you)") from None
    except OSError as e:
        raise OutputError(f"{p}: cannot write: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
            f.flush()
            os.fsync(f.fileno())
        # the mode a new file would have had (or the old file's), not mkstemp's private 0600
        if p.exists():
            mode = p.stat().st_mode & 0o777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, p)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise OutputError(f"{p}: cannot write: {e.strerror or e}") from None
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


__all__ = ["check_directory", "check_output", "read_json_file", "unreadable", "write_atomic"]
