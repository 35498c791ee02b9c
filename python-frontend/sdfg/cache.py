"""The on-disk cache of compiled programs: its key, its directory, its
entries.

A compiled program is a shared library that this process loads and runs,
so the cache is code: what it returns must be what this process would
have compiled, and nobody else may be able to put anything there.

- The key (cache_key.py) covers everything that changes the generated
  code: the function's source, the signature of the call, what the
  function and every function it reaches read from outside, the options
  of the build, the frontend's sources, the compiler binaries and the
  processor.
- An entry is a directory named by the key's digest, built privately and
  renamed into place whole; `ok.json`, written last, records the size and
  sha256 of `program.so` and `meta.json`, and is checked first, before
  `meta.json` is parsed or the library loaded (`lookup`, `load`). A
  damaged entry is discarded and rebuilt with a `CacheWarning`. Only
  `program.so` is ever loaded, by its full path.
- The directory ($SDFG_CACHE_DIR, default ~/.cache/sdfg) is made 0700. One
  that others can write (group or world write permission, or a parent
  that others can write without the sticky bit), or that is owned by
  another user than this one or root, is refused with `CacheError`; so is
  an entry of it. One that cannot be created or written falls back, with
  a `CacheWarning`, to a private temporary directory for this process
  (its entries are still found where they are valid).
- Its size is bounded by $SDFG_CACHE_MAX_BYTES (default 2 GiB): after a
  build, the least recently used entries go first (an entry's
  directory's mtime is refreshed whenever it is loaded), never one that
  this process has loaded.

`python -m sdfg cache info` and `python -m sdfg cache clear` show and
empty it (`info`, `clear`).
"""

import atexit
import hashlib
import itertools
import json
import os
import re
import shutil
import stat
import tempfile
import threading
import time
import warnings

from . import native
from .cache_key import VERSION
from .errors import CacheError, CacheWarning

#: The default of $SDFG_CACHE_MAX_BYTES.
DEFAULT_MAX_BYTES = 2 << 30

_OK = "ok.json"
_VERIFIED = ("program.so", "meta.json")
_ENTRY_NAME = re.compile(r"^[0-9a-f]{32}$")
# Staging directories of builds and entries being removed: left behind
# only by a process that died, and removed by eviction after this long.
_STALE_SECONDS = 3600

_lock = threading.RLock()
# Configured directory -> the private one used instead (`_fallback`).
_FALLBACKS = {}
# Path of each program.so this process loaded -> (st_dev, st_ino) of the
# file loaded (see load).
_LOADED = {}
# Entries this process loaded: eviction leaves them.
_IN_USE = set()
_load_counter = itertools.count()


class DamagedEntry(Exception):
    """An entry whose files do not match what its ok.json records (or
    that has none): it is rebuilt."""


# ---------------------------------------------------------------------------
# The directory
# ---------------------------------------------------------------------------

def configured_dir():
    """$SDFG_CACHE_DIR, else ~/.cache/sdfg (absolute)."""
    d = os.environ.get("SDFG_CACHE_DIR")
    if not d:
        d = os.path.join(os.path.expanduser("~"), ".cache", "sdfg")
    return os.path.abspath(d)


def _trusted_owner(st):
    return st.st_uid in (os.geteuid(), 0)


def _refuse(path, why):
    raise CacheError(
        f"refusing to use the program cache {path}: {why}; another user "
        "could put code there that this process would run. Make it "
        f"private (chmod 700 {path}, owned by you) or set SDFG_CACHE_DIR "
        "to a private directory")


def check_trusted(path):
    """CacheError unless only this user (or root) can change what the
    directory `path` holds: it is owned by this user or root and neither
    its group nor others may write it, and no directory above it lets
    others replace it (write permission without the sticky bit of /tmp,
    another owner). A link is followed, and the directories above both it
    and its target are checked. Returns the directory's stat."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        _check_above(path)
        return check_trusted(os.path.realpath(path))
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(f"{path} is not a directory")
    if not _trusted_owner(st):
        _refuse(path, f"it is owned by another user (uid {st.st_uid})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        _refuse(path, "others can write it (mode "
                      f"{stat.S_IMODE(st.st_mode):04o})")
    _check_above(path)
    return st


def _check_above(path):
    """CacheError where a directory above `path` lets others replace it."""
    parent = os.path.dirname(os.path.realpath(path)) \
        if not os.path.islink(path) else \
        os.path.realpath(os.path.dirname(path))
    while True:
        pst = os.stat(parent)
        if pst.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and \
                not pst.st_mode & stat.S_ISVTX:
            _refuse(path, f"others can write the directory {parent} above "
                          f"it (mode {stat.S_IMODE(pst.st_mode):04o}, not "
                          "sticky) and could replace it")
        if not _trusted_owner(pst):
            _refuse(path, f"the directory {parent} above it is owned by "
                          f"another user (uid {pst.st_uid})")
        up = os.path.dirname(parent)
        if up == parent:
            return
        parent = up


def _make_dir(path):
    """Creates `path` (mode 0700) where it is missing."""
    parent = os.path.dirname(path)
    if parent and not os.path.isdir(parent):
        os.makedirs(parent, exist_ok=True)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass


def _fallback(path, why):
    """The private temporary directory used instead of the configured
    one `path` for the rest of this process (one warning)."""
    with _lock:
        d = _FALLBACKS.get(path)
        if d is None:
            d = _FALLBACKS[path] = tempfile.mkdtemp(prefix="sdfg-cache-")
            atexit.register(shutil.rmtree, d, True)
            warnings.warn(CacheWarning(
                f"the program cache {path} cannot be used ({why}); "
                f"programs compiled now are cached in {d} for this "
                "process only"), stacklevel=4)
        return d


def _search_roots():
    """The directories entries are looked up in: the configured one
    where it exists (CacheError where it is not trusted), and this
    process's private one where it fell back to that."""
    path = configured_dir()
    roots = []
    try:
        check_trusted(path)
        roots.append(path)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except PermissionError:  # cannot even look: nothing to find there
        pass
    if path in _FALLBACKS:
        roots.append(_FALLBACKS[path])
    return roots


def staging_dir():
    """A new private directory to build an entry in, in the directory it
    will be committed to (the configured one, or where that cannot be
    created or written, the fallback)."""
    path = configured_dir()
    if path not in _FALLBACKS:
        try:
            _make_dir(path)
            check_trusted(path)
            return tempfile.mkdtemp(prefix=".build-", dir=path)
        except CacheError:
            raise
        except OSError as e:
            _fallback(path, e.strerror or str(e))
    return tempfile.mkdtemp(prefix=".build-", dir=_FALLBACKS[path])


# ---------------------------------------------------------------------------
# Entries
# ---------------------------------------------------------------------------

def _read(directory, name, limit=None):
    """The bytes of the file `name` of an entry: a regular file (not a
    link) that only this user or root can write (CacheError otherwise);
    DamagedEntry where it is missing or too long."""
    path = os.path.join(directory, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW |
                     getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise DamagedEntry(f"{name} is missing") from None
    except OSError as e:  # a link (ELOOP), unreadable
        raise DamagedEntry(f"{name} cannot be opened ({e.strerror})") \
            from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise DamagedEntry(f"{name} is not a regular file")
        if not _trusted_owner(st):
            _refuse(path, f"it is owned by another user (uid {st.st_uid})")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            _refuse(path, "others can write it (mode "
                          f"{stat.S_IMODE(st.st_mode):04o})")
        if limit is not None and st.st_size > limit:
            raise DamagedEntry(f"{name} has {st.st_size} bytes")
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 22)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks), (st.st_dev, st.st_ino)
    finally:
        os.close(fd)


def _record(data):
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _check(name, data, ok):
    want = ok[name]
    if len(data) != want["size"]:
        raise DamagedEntry(f"{name} has {len(data)} bytes, ok.json records "
                           f"{want['size']}")
    if hashlib.sha256(data).hexdigest() != want["sha256"]:
        raise DamagedEntry(f"{name} does not have the sha256 ok.json "
                           "records")


def _read_ok(directory):
    """The record ok.json holds: {file: {"size", "sha256"}}."""
    data, _ = _read(directory, _OK, limit=1 << 16)
    try:
        ok = json.loads(data)
        files = ok["files"]
        for name in _VERIFIED:
            rec = files[name]
            if not (isinstance(rec["size"], int) and
                    isinstance(rec["sha256"], str)):
                raise TypeError
    except (ValueError, KeyError, TypeError):
        raise DamagedEntry("ok.json is not a record of the entry's files") \
            from None
    return files


def _check_meta_shape(meta):
    """DamagedEntry unless `meta` has the fields, of the types, that the
    calls read (a meta.json of another version of the frontend, or
    another file)."""
    def is_list_of(v, n):
        return isinstance(v, list) and all(
            isinstance(x, list) and len(x) == n for x in v)
    try:
        good = (isinstance(meta, dict) and
                isinstance(meta["name"], str) and
                is_list_of(meta["params"], 4) and
                is_list_of(meta["outputs"], 3) and
                isinstance(meta["returns_tuple"], bool) and
                isinstance(meta["returns_none"], bool) and
                isinstance(meta["abi"], dict) and
                any(isinstance(f, dict) and f.get("name") == meta["name"]
                    and isinstance(f.get("args"), list)
                    for f in meta["abi"]["functions"]) and
                all(isinstance(meta.get(k, []), list) for k in
                    ("index_checks", "globals", "linalg_sites",
                     "line_sources")))
    except (KeyError, TypeError):
        good = False
    if not good:
        raise DamagedEntry("meta.json does not describe a compiled program")


def _verify(directory):
    """The meta of the entry `directory` once its files match ok.json
    (DamagedEntry otherwise; CacheError for one others could have
    written)."""
    st = os.lstat(directory)
    if not stat.S_ISDIR(st.st_mode):
        raise DamagedEntry("it is not a directory")
    if not _trusted_owner(st):
        _refuse(directory, f"it is owned by another user (uid {st.st_uid})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        _refuse(directory, "others can write it (mode "
                           f"{stat.S_IMODE(st.st_mode):04o})")
    ok = _read_ok(directory)
    data, _ = _read(directory, "meta.json")
    _check("meta.json", data, ok)
    try:
        meta = json.loads(data)
    except ValueError:
        raise DamagedEntry("meta.json is not JSON") from None
    _check_meta_shape(meta)
    data, _ = _read(directory, "program.so")
    _check("program.so", data, ok)
    return meta


def warn_damaged(directory, why):
    """The CacheWarning for an entry that is compiled again."""
    warnings.warn(CacheWarning(
        f"the cached program {directory} is damaged ({why}); compiling it "
        "again"), stacklevel=4)


def lookup(key_digest):
    """(directory, meta) of the verified entry named `key_digest`, or
    None: where there is none, or it was damaged (then discarded, with a
    CacheWarning)."""
    for root in _search_roots():
        directory = os.path.join(root, key_digest)
        if not os.path.lexists(directory):
            continue
        try:
            meta = _verify(directory)
        except DamagedEntry as e:
            warn_damaged(directory, e)
            discard(directory)
            continue
        _touch(directory)
        return directory, meta
    return None


def commit(staging, key_digest, meta):
    """Completes the entry built in `staging` (program.so, and whatever
    else the build wrote there) with meta.json and, last, ok.json, and
    renames it into place whole; returns its directory (another
    process's, where that one finished first)."""
    for name in os.listdir(staging):
        os.chmod(os.path.join(staging, name), 0o644)
    with open(os.path.join(staging, "meta.json"), "w") as f:
        json.dump(meta, f)
    files = {}
    for name in _VERIFIED:
        with open(os.path.join(staging, name), "rb") as f:
            files[name] = _record(f.read())
    ok = os.path.join(staging, _OK)
    with open(ok, "w") as f:
        json.dump({"version": VERSION, "files": files}, f)
    os.chmod(ok, 0o644)
    os.chmod(os.path.join(staging, "meta.json"), 0o644)
    os.chmod(staging, 0o755)
    root = os.path.dirname(staging)
    directory = os.path.join(root, key_digest)
    try:
        os.rename(staging, directory)
    except OSError:
        # Another process finished first; use its entry (load checks it).
        native.remove_tree(staging)
    evict(root, keep=(directory,))
    return directory


def discard(directory):
    """Removes an entry: renamed away first, so that no process finds it
    half removed."""
    root = os.path.dirname(directory)
    try:
        trash = tempfile.mkdtemp(prefix=".trash-", dir=root)
        os.rename(directory, os.path.join(trash, "entry"))
    except OSError:
        try:  # a file or a link where an entry belongs
            if not os.path.isdir(directory) or os.path.islink(directory):
                os.unlink(directory)
        except OSError:
            pass
        return
    native.remove_tree(trash)


def _touch(directory):
    """Marks the entry as used now (least recently used go first)."""
    try:
        os.utime(directory)
    except OSError:  # a read-only cache
        pass


def load(directory, abi):
    """The NativeModule of the entry `directory`'s program.so, verified
    against its ok.json right before it is loaded (DamagedEntry where it
    does not match: it may have changed since lookup). A path whose
    library this process loaded before, and whose file has been replaced
    since, is loaded under another name: the dynamic loader would
    otherwise hand back the library it mapped from the old file."""
    ok = _read_ok(directory)
    data, file_id = _read(directory, "program.so")
    _check("program.so", data, ok)
    path = os.path.join(directory, "program.so")
    with _lock:
        previous = _LOADED.get(path)
        if previous is None or previous == file_id:
            module = native.NativeModule(None, path, abi)
        else:
            module = _load_copy(directory, path, data, abi)
        _LOADED[path] = file_id
        _IN_USE.add(directory)
    _touch(directory)
    return module


def _load_copy(directory, path, data, abi):
    """Loads the verified bytes `data` of `path` under a name this process
    has not loaded: a link beside it, else a private copy."""
    link = os.path.join(directory,
                        f".load-{os.getpid()}-{next(_load_counter)}.so")
    try:
        os.link(path, link)
    except OSError:
        private = tempfile.mkdtemp(prefix="sdfg-load-")
        copy = os.path.join(private, "program.so")
        with open(copy, "wb") as f:
            f.write(data)
        return native.NativeModule(private, copy, abi)
    try:
        return native.NativeModule(None, link, abi)
    finally:
        os.unlink(link)


# ---------------------------------------------------------------------------
# Size limit, info, clear
# ---------------------------------------------------------------------------

def max_bytes():
    """$SDFG_CACHE_MAX_BYTES (a number of bytes, or with a K, M, G or T
    suffix: powers of 1024), else DEFAULT_MAX_BYTES."""
    text = os.environ.get("SDFG_CACHE_MAX_BYTES", "").strip()
    if not text:
        return DEFAULT_MAX_BYTES
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?", text,
                     re.IGNORECASE)
    if m is None:
        raise ValueError(f"SDFG_CACHE_MAX_BYTES={text!r}: expected a number "
                         "of bytes (2147483648) or one with a K, M, G or T "
                         "suffix (2G)")
    scale = 1024 ** " KMGT".index(m.group(2).upper() or " ")
    return int(float(m.group(1)) * scale)


def _entries(root):
    """(mtime, directory, bytes) of each entry of `root`."""
    found = []
    try:
        listing = list(os.scandir(root))
    except OSError:
        return found
    for de in listing:
        if not _ENTRY_NAME.match(de.name) or \
                not de.is_dir(follow_symlinks=False):
            continue
        size = 0
        try:
            for f in os.scandir(de.path):
                size += f.stat(follow_symlinks=False).st_size
            mtime = de.stat(follow_symlinks=False).st_mtime
        except OSError:  # removed meanwhile
            continue
        found.append((mtime, de.path, size))
    return found


def _remove_stale(root, age):
    """Trash directories, and staging directories older than `age`
    seconds: what a process that died left behind (a live one finishes
    a build well within that time; removing a trash directory that
    another process is removing too is harmless)."""
    now = time.time()
    try:
        listing = list(os.scandir(root))
    except OSError:
        return
    for de in listing:
        if de.name.startswith((".build-", ".trash-")):
            try:
                st = de.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and (
                    de.name.startswith(".trash-") or
                    now - st.st_mtime >= age):
                native.remove_tree(de.path)


def evict(root, keep=()):
    """Removes the least recently used entries of `root` until their total
    size is within max_bytes(), leaving those in `keep` and those this
    process loaded."""
    limit = max_bytes()
    _remove_stale(root, _STALE_SECONDS)
    entries = _entries(root)
    total = sum(size for _, _, size in entries)
    for _, directory, size in sorted(entries):
        if total <= limit:
            break
        if directory in _IN_USE or directory in keep:
            continue
        discard(directory)
        total -= size


def info():
    """{"location", "exists", "entries", "bytes", "limit"} of the
    configured cache (CacheError where it is not trusted)."""
    path = configured_dir()
    exists = os.path.lexists(path)
    entries = []
    if exists:
        check_trusted(path)
        entries = _entries(path)
    return {"location": path, "exists": exists, "entries": len(entries),
            "bytes": sum(size for _, _, size in entries),
            "limit": max_bytes()}


def clear():
    """Removes every entry of the configured cache (and what dead
    processes left there); returns how many entries there were."""
    path = configured_dir()
    if not os.path.lexists(path):
        return 0
    check_trusted(path)
    entries = _entries(path)
    for _, directory, _ in entries:
        discard(directory)
    _remove_stale(path, _STALE_SECONDS)
    return len(entries)
