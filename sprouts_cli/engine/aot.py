"""Which compiled form the engine's kernels take, and the ahead-of-time one built by ``numba.pycc``.

A process that loads numba holds ~155 MB before it computes anything (LLVM's library
alone is ~115 MB of it), and numba needs LLVM even to load kernels from its cache: a
solve of ``0*12`` peaked at 241 MB, where the search itself needs well under 100 MB.
So the solver's hot kernels (the Python-facing entry points, each declared with
``@kernel(export=SIGNATURE)`` beside its code) can also be built once, ahead of time,
into a small extension module that needs only numpy; a process that finds it loads
neither numba nor llvmlite.  Three paths, chosen once per process when the first
kernel module is imported:

* ``python``: ``SPROUTS_PURE_PYTHON=1`` (or no numba): every kernel runs as plain Python;
* ``aot``: a module built from exactly these kernel sources is present (the stamp:
  a hash of every engine file that defines kernels, this file, and the numba, numpy
  and Python versions it was built with): the entry points are its functions, and the
  kernels they call run compiled inside it (as plain Python if called from Python);
* ``jit``: otherwise, and always with ``SPROUTS_AOT=0``: numba compiles the kernels
  (``cache=True``), the default and the reference the others are tested against.

The module is built only when asked (``sprouts kernels --build``; ``make`` does it at
install), in a child process, into ``SPROUTS_KERNELS_DIR`` or the user's cache
directory, one folder per stamp.  A stale or foreign build is never loaded: it sits
under another stamp.  ``numba.pycc`` is pending deprecation; if it is gone, or no C
compiler is found, the build fails with one line and the JIT path is used.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import json
import os
import platform
import sys
import sysconfig
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import jit

ENGINE_DIR = Path(__file__).resolve().parent
#: The extension's module name (fixed at build time: ``PyInit_<name>``).
MODULE_NAME = "sprouts_aot_kernels"
#: Where built modules live instead of the user's cache directory.
DIR_ENV = "SPROUTS_KERNELS_DIR"
#: ``0``: never load a built module (the JIT path).
USE_ENV = "SPROUTS_AOT"
#: A source file that holds this defines kernels and is part of the stamp.
KERNEL_MARK = b"@kernel"
STAMP_FILE = "stamp.json"
#: The solver's compiled proof-number core, whose entry points (``pncore.EXPORTS``) the module
#: holds too, as ``core_<name>``: a solve then loads no numba either.
CORE_FILE = ENGINE_DIR.parent / "solve" / "pncore.py"

PURE_PYTHON = jit.PURE_PYTHON


@dataclass(frozen=True)
class Export:
    """A kernel called from Python, built into the module with this numba signature."""

    module: str
    name: str
    signature: str
    function: Callable[..., Any]


#: Every exported kernel, by name, as its module was imported.
EXPORTS: dict[str, Export] = {}


class BuildFailed(Exception):
    """The module could not be built (one line, for the user)."""


# ------------------------------------------------------------------ the path of this process


@functools.cache
def chosen_path() -> tuple[str, ModuleType | None]:
    """``("python" | "aot" | "jit", the built module or None)``, decided once per process."""
    if PURE_PYTHON:
        return "python", None
    if os.environ.get(USE_ENV, "") != "0":
        built = load_built()
        if built is not None:
            return "aot", built
    if not jit.numba_present():  # pragma: no cover - numba is a dependency
        return "python", None
    return "jit", None


def kernel_path() -> str:
    """The path this process's kernels take: ``python``, ``aot`` or ``jit``."""
    return chosen_path()[0]


def kernel(fn: Callable[..., Any] | None = None, *, export: str | None = None) -> Any:
    """The engine's kernel decorator: ``numba.njit(cache=True)``, plain Python, or the built function.

    ``export`` is the numba signature of a kernel called from Python (an entry point of
    the built module); the kernels that only entry points call need none.  Every
    result has ``.py_func``, the plain-Python source, as numba's kernels do.
    """
    if fn is None:
        return functools.partial(kernel, export=export)
    if export is not None:
        EXPORTS[fn.__name__] = Export(fn.__module__, fn.__name__, export, fn)
    path, built = chosen_path()
    if path == "jit":
        return jit.kernel(fn, stamp=sources_stamp())
    compiled = getattr(built, fn.__name__, None) if export is not None else None
    if compiled is None:  # plain Python, or (aot) a kernel called only from compiled code
        return jit.plain(fn)
    return guarded(compiled, fn, export)  # type: ignore[arg-type]


def guarded(compiled: Callable[..., Any], fn: Callable[..., Any], signature: str) -> Callable[..., Any]:
    """``compiled`` behind a check of its array arguments.

    A pycc function reads its arrays as the signature says without looking (an int32
    array given for ``int64[::1]`` is read past its end), where numba's dispatcher would
    compile another version: so a wrong dtype or rank is a TypeError here, and an array
    that is not contiguous is copied.  The array last found right in each place is
    remembered and passes at once when given again (the engine passes the same buffers
    call after call, and the checks cost 1.3 µs of a 4 µs call with four arrays); only
    assigning to its ``dtype`` or ``shape`` in place could make it wrong since.
    """
    import numpy as np

    checks = [
        (i, np.dtype(d), ndim, contiguous)
        for i, (d, ndim, contiguous) in enumerate(arg_types(signature))
        if d is not None
    ]
    passed: list[Any] = [None] * (max([c[0] for c in checks], default=-1) + 1)

    @functools.wraps(fn)
    def call(*args: Any) -> Any:
        fixed = None
        for i, dtype, ndim, contiguous in checks:
            a = args[i]
            if a is passed[i]:
                continue
            if type(a) is not np.ndarray or a.dtype != dtype or a.ndim != ndim:
                raise TypeError(f"{fn.__name__}: argument {i} must be a {ndim}-d {dtype} array")
            if contiguous and not a.flags.c_contiguous:
                fixed = fixed or list(args)
                fixed[i] = np.ascontiguousarray(a)
            else:
                passed[i] = a
        return compiled(*(fixed or args))

    call.py_func = fn  # type: ignore[attr-defined]
    return call


def arg_types(signature: str) -> list[tuple[str | None, int, bool]]:
    """The arguments of a numba signature ``RET(ARG, ...)``: (dtype or None for a scalar, rank,
    whether C-contiguous), e.g. ``int64[::1]`` is ``("int64", 1, True)``."""
    depth = 0
    start = len(signature)
    for i in range(len(signature) - 1, -1, -1):  # the last top-level parenthesis holds the arguments
        c = signature[i]
        depth += c == ")"
        depth -= c == "("
        if depth == 0:
            start = i
            break
    inner = signature[start + 1 : -1]
    parts, depth, begin = [], 0, 0
    for i, c in enumerate(inner):
        depth += c in "(["
        depth -= c in ")]"
        if c == "," and depth == 0:
            parts.append(inner[begin:i])
            begin = i + 1
    parts.append(inner[begin:])
    out: list[tuple[str | None, int, bool]] = []
    for part in (p.strip() for p in parts if p.strip()):
        if "[" not in part:
            out.append((None, 0, False))
            continue
        dtype, _, dims = part.partition("[")
        axes = dims.rstrip("]").split(",")
        out.append((dtype.strip(), len(axes), axes[-1].strip() == "::1"))
    return out


# ------------------------------------------------------------------ where built modules live


def kernels_dir() -> Path:
    """The folder of built modules: ``SPROUTS_KERNELS_DIR``, or ``kernels`` in the user's cache."""
    given = os.environ.get(DIR_ENV)
    if given:
        return Path(given)
    return user_cache_dir() / "kernels"


def user_cache_dir() -> Path:
    """The user's cache folder for sprouts, as ``platformdirs.user_cache_dir`` gives it
    (``platformdirs_cache_dir``).  On Linux it is read here as platformdirs reads it,
    ``$XDG_CACHE_HOME/sprouts`` when that is an absolute path, else ``$HOME/.cache/sprouts``:
    importing platformdirs (with tempfile, shutil, random) costs every solve a megabyte and
    milliseconds; elsewhere, or without an absolute ``HOME``, platformdirs answers."""
    if sys.platform == "linux":
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        if os.path.isabs(xdg):
            return Path(xdg) / "sprouts"
        home = os.environ.get("HOME", "")
        if os.path.isabs(home):
            return Path(home) / ".cache" / "sprouts"
    return platformdirs_cache_dir()


def platformdirs_cache_dir() -> Path:
    """``platformdirs.user_cache_dir`` for sprouts: the reference ``user_cache_dir`` agrees with."""
    from platformdirs import user_cache_dir as cache_dir

    return Path(cache_dir("sprouts", appauthor=False))


def kernel_sources() -> list[Path]:
    """The files a build depends on: every engine module that defines kernels, and this one."""
    found = [p for p in sorted(ENGINE_DIR.rglob("*.py")) if KERNEL_MARK in p.read_bytes()]
    return sorted({*found, Path(__file__).resolve()})


def sha256_hex(*parts: bytes) -> str:
    """``hashlib.sha256`` of ``parts`` one after the other, its hex digest, from Python's own SHA-256
    where it has one (``_sha256``; ``_sha2`` from 3.12): ``hashlib`` loads OpenSSL's libcrypto,
    megabytes of every solve that only hashes the few files of a stamp (the digests are the same;
    docs/performance.md)."""
    try:
        from _sha2 import sha256 as own
    except ImportError:
        try:
            from _sha256 import sha256 as own
        except ImportError:  # pragma: no cover - a Python built without them
            from hashlib import sha256 as own
    digest = own()
    for part in parts:
        digest.update(part)
    return str(digest.hexdigest())


def sources_hash() -> str:
    """A hash of ``kernel_sources()``, their paths and contents."""
    return sha256_hex(*[str(p.relative_to(ENGINE_DIR)).encode() + b"\0" + p.read_bytes() + b"\0"
                        for p in kernel_sources()])


@functools.cache
def sources_stamp() -> str:
    """``sources_hash()`` once per process: the key of every JIT kernel's cache beside its own file.

    A compiled kernel holds the code of the kernels it calls, which may live in other
    files of ``engine/kernels/``; numba alone would check only the kernel's own file.
    """
    return sources_hash()


def _version(package: str) -> str:
    """An installed package's version, read off its ``.dist-info`` folder's name (importing
    ``importlib.metadata`` would cost a process 4 MB); "none" if it is not installed."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return "none"
    found = list(Path(spec.origin).parent.parent.glob(f"{package}-*.dist-info"))
    if len(found) == 1:
        return found[0].name[len(package) + 1 : -len(".dist-info")]
    from importlib import metadata  # another layout: ask the slow way

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


def stamp_facts() -> dict[str, str]:
    """What a build must match to be loaded (read without importing numba)."""
    return {
        "sources": sources_hash()[:20],
        "core": sha256_hex(CORE_FILE.read_bytes())[:20],
        "numba": _version("numba"),
        "numpy": _version("numpy"),
        "python": f"{sysconfig.get_config_var('EXT_SUFFIX')} {sys.version.split()[0]} {platform.machine()}",
        "cpu": host_cpu(),
    }


def host_cpu() -> str:
    """What the processor can do, as Linux's ``/proc/cpuinfo`` says (a hash of its distinct model
    name and flags lines), or "" where that cannot be read.

    A build for a known processor is compiled for it (``target_cpu = "host"``, as the JIT
    kernels are: on 10-spot positions the generic build's canonical call took 7.3 µs against
    the JIT's 5.5 µs); the stamp then holds this, so a cache folder shared with a machine of
    another processor never loads a build that could use instructions it lacks.
    """
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
    wanted = [line for line in text.splitlines() if line.split(":")[0].strip() in ("model name", "flags")]
    if not wanted:
        return ""
    facts = sorted(set(wanted))
    return sha256_hex("\n".join(facts).encode())[:16]


def stamp(facts: dict[str, str] | None = None) -> str:
    """The folder name of the build that matches these sources and versions."""
    facts = facts or stamp_facts()
    return sha256_hex(json.dumps(facts, sort_keys=True).encode())[:16]


def module_file(folder: Path) -> Path:
    return folder / f"{MODULE_NAME}{sysconfig.get_config_var('EXT_SUFFIX')}"


#: The key in ``stamp.json`` of the built file's checksum (``_file_hash``).
FILE_CHECK = "crc32"


def _file_hash(path: Path) -> str:
    """The CRC-32 of a built file, checked against the one recorded beside it before it is loaded:
    a file that is not the one built there (written over, cut short) is passed over.  Every
    solve checks it, so the cheapest check that finds such a change: CRC-32 reads the module
    about ten times faster than Python's own SHA-256 (a hash would not stop tampering anyway:
    the record sits beside the file)."""
    import zlib

    return f"{zlib.crc32(path.read_bytes()):08x}"


def built_folder(directory: Path | None = None) -> Path | None:
    """The folder of a complete build for this stamp, or None (absent, stale, or not ours)."""
    facts = stamp_facts()
    folder = (directory or kernels_dir()) / stamp(facts)
    try:
        recorded = json.loads((folder / STAMP_FILE).read_text())
        lib = module_file(folder)
        if recorded.get("facts") != facts or recorded.get(FILE_CHECK) != _file_hash(lib):
            return None
    except (OSError, ValueError, AttributeError):
        return None
    return folder


#: Why the last ``load_built`` found nothing to load (for ``sprouts kernels``).
load_problem: list[str] = []


def load_built(directory: Path | None = None) -> ModuleType | None:
    """The built module for these kernel sources, loaded, or None."""
    load_problem.clear()
    folder = built_folder(directory)
    if folder is None:
        load_problem.append("not built for these sources and versions")
        return None
    try:
        return load_built_from(folder)
    except (ImportError, OSError, AssertionError) as e:
        load_problem.append(f"{module_file(folder)} does not load: {e}")
        return None


def status(directory: Path | None = None) -> dict[str, Any]:
    """What ``sprouts kernels`` shows: where builds live, this stamp, whether it is built."""
    directory = directory or kernels_dir()
    facts = stamp_facts()
    folder = built_folder(directory)
    found = directory.glob("*") if directory.is_dir() else []
    others = sorted(p.name for p in found if (p / STAMP_FILE).exists() and p.name != stamp(facts))
    if PURE_PYTHON:
        path = "python"
    elif os.environ.get(USE_ENV, "") == "0" or folder is None:
        path = "jit"
    else:
        path = "aot"
    return {
        "directory": str(directory),
        "stamp": stamp(facts),
        "built": folder is not None,
        "module": str(module_file(folder)) if folder else None,
        "stale_builds": others,
        "path": path,
        **{f"{k}_version" if k != "sources" else "sources_hash": v for k, v in facts.items()},
    }


# ------------------------------------------------------------------ building


def build(directory: Path | None = None, force: bool = False, timeout: float = 1800) -> Path:
    """Build the module for these sources (in a child process) unless it is built; its folder.

    The child imports the kernels on the JIT path, compiles the exported ones with
    ``numba.pycc``, and checks the new module against the JIT kernels on a small
    workload before it is put in place (written beside, then renamed).  Older builds
    in the folder past the newest ``KEEP_BUILDS`` are removed.  Raises ``BuildFailed`` with one line.
    """
    directory = directory or kernels_dir()
    folder = built_folder(directory)
    if folder is not None and not force:
        return folder
    import shutil  # here: a process that only loads a build needs neither
    import subprocess

    facts = stamp_facts()
    target = directory / stamp(facts)
    work = directory / f".building-{os.getpid()}"
    try:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if k != "SPROUTS_PURE_PYTHON"}
        env[USE_ENV] = "0"
        env["PYTHONWARNINGS"] = "ignore"
        code = "import sys; from sprouts_cli.engine.aot_check import compile_into; compile_into(sys.argv[1])"
        try:
            done = subprocess.run(
                [sys.executable, "-c", code, str(work)], env=env, capture_output=True, text=True,
                timeout=timeout, check=False,
            )
        except subprocess.TimeoutExpired:
            raise BuildFailed(f"the build took over {timeout:.0f} s") from None
        lib = module_file(work)
        if done.returncode != 0 or not lib.is_file():
            raise BuildFailed(_last_line(done.stderr) or f"the build ended with code {done.returncode}")
        record = {"facts": facts, FILE_CHECK: _file_hash(lib), "exports": done.stdout.split(),
                  "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        (work / STAMP_FILE).write_text(json.dumps(record, indent=1))
        if built_folder(directory) is not None and not force:
            return target  # another process built it meanwhile
        shutil.rmtree(target, ignore_errors=True)
        os.replace(work, target)
    except OSError as e:
        raise BuildFailed(f"cannot write to {directory}: {e.strerror or e}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _forget_old_builds(directory)
    return target


#: Builds kept in the folder, the newest first (checkouts of other versions share the folder).
KEEP_BUILDS = 4


def _forget_old_builds(directory: Path) -> None:
    import shutil

    builds = [p for p in directory.iterdir() if (p / STAMP_FILE).is_file()]
    builds.sort(key=lambda p: (p / STAMP_FILE).stat().st_mtime, reverse=True)
    for old in builds[KEEP_BUILDS:]:
        shutil.rmtree(old, ignore_errors=True)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def load_built_from(folder: Path) -> ModuleType:
    """The module built in ``folder``, loaded whatever its stamp says (``load_built`` checks it)."""
    lib = module_file(folder)
    loader = importlib.machinery.ExtensionFileLoader(MODULE_NAME, str(lib))
    spec = importlib.util.spec_from_file_location(MODULE_NAME, lib, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
