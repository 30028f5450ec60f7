"""The names a tool's entry module defines, remembered between runs.

Reading them means parsing the module (`ast`, without running it), which costs more than
the rest of loading a tool; `config list`, `run` and `call` load every selected tool on
every start. The answer is kept in one small file under the cache directory, keyed by the
entry's path, size and modification time (as Python keys its own `.pyc` files); any change
to the file parses it again. A cache that cannot be read or written is simply not used.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import msgspec

CACHE_FILE = "entry-names.json"
MAX_ENTRIES = 512

_Entry = tuple[int, int, list[str]]  # size, mtime_ns, names
_decoder = msgspec.json.Decoder(dict[str, _Entry])
_cache: dict[str, _Entry] | None = None


def _cache_path() -> Path:
    from ..paths import cache_home

    return cache_home() / CACHE_FILE


def _load() -> dict[str, _Entry]:
    global _cache
    if _cache is None:
        try:
            _cache = _decoder.decode(_cache_path().read_bytes())
        except (OSError, msgspec.DecodeError):
            _cache = {}
    return _cache


def _save(cache: dict[str, _Entry]) -> None:
    path = _cache_path()
    while len(cache) > MAX_ENTRIES:
        del cache[next(iter(cache))]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{CACHE_FILE}.{os.getpid()}")
        temp.write_bytes(msgspec.json.encode(cache))
        os.replace(temp, path)
    except OSError:
        pass


def entry_names(path: Path, parse: Callable[[], set[str]]) -> set[str]:
    """`parse()`'s answer for the entry module at `path`, from the cache when the file has
    not changed since it was last parsed."""
    try:
        info = path.stat()
    except OSError:
        return parse()
    key = str(path)
    cache = _load()
    hit = cache.get(key)
    if hit is not None and hit[0] == info.st_size and hit[1] == info.st_mtime_ns:
        return set(hit[2])
    names = parse()
    cache.pop(key, None)
    cache[key] = (info.st_size, info.st_mtime_ns, sorted(names))
    _save(cache)
    return names
