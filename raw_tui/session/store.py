"""Saved history: every event of every session in one SQLite database (WAL mode).

Each event is committed as it is published, so a crash or `kill -9` mid-turn loses nothing
already published. A database another process holds locked is waited for, up to
`BUSY_TIMEOUT_S`; a write that still fails is never a silent gap: the store keeps the error
(`failed`), tells `on_failure` (a headless run ends with it, exit 1) and later writes fail at
once. The database (and its WAL files) is 0600 in a 0700 directory. Credentials are never stored: the bus takes every configured secret out
of an event before the store sees it (`raw_tui/protocol/redact.py`), and the session row keeps only
the agent name, the model alias and the working directory.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

import msgspec

from ..protocol import bus as ev
from ..protocol.errors import HISTORY_ERROR, RawError
from ..paths import open_private, private_dir, state_home

T = TypeVar("T")

BUSY_TIMEOUT_S = 15.0  # how long a write waits for a database another process holds locked

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    cwd TEXT NOT NULL,
    agent TEXT NOT NULL,
    model TEXT NOT NULL,
    config TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    title TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX IF NOT EXISTS sessions_by_cwd ON sessions(cwd, updated_at);
"""


@dataclass(frozen=True)
class SessionRow:
    id: str
    cwd: str
    agent: str
    model: str
    config: str
    created_at: float
    updated_at: float
    title: str
    events: int = 0


def _tighten(path: Path) -> None:
    """A file of ours that others may read: 0600."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077:
        os.chmod(path, 0o600)


def default_path() -> Path:
    return state_home() / "history.sqlite3"


class HistoryError(RawError):
    """The history database cannot be opened or used (corrupt, not a database, the state
    folder a file, a full disk): one line naming the path."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(HISTORY_ERROR, f"history {path}: {reason}")
        self.reason = reason


@contextmanager
def _guarded(path: Path) -> Iterator[None]:
    """sqlite3 and file-system errors as a HistoryError naming the database."""
    try:
        yield
    except sqlite3.Error as err:
        raise HistoryError(path, str(err) or type(err).__name__) from None
    except OSError as err:
        where = f"{err.filename}: " if err.filename and str(err.filename) != str(path) else ""
        raise HistoryError(path, f"{where}{err.strerror or err}") from None


def _history_op(method: Callable[..., T]) -> Callable[..., T]:
    """A store method whose database errors are a HistoryError."""

    @functools.wraps(method)
    def guarded(self: "HistoryStore", *args: Any, **kwargs: Any) -> T:
        with _guarded(self.path):
            return method(self, *args, **kwargs)

    return guarded


def _sql_text(value: str) -> str:
    """A path or an id as SQLite can bind it: a byte that is not UTF-8 (a folder named
    `d\\xff` arrives as a lone surrogate) is written `\\xff`, the same way every time."""
    if value.isascii():
        return value
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class HistoryStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        with _guarded(self.path):
            if self.path.parent.exists() and not self.path.parent.is_dir():
                raise HistoryError(self.path, f"{self.path.parent} is not a folder")
            private_dir(self.path.parent)
            os.close(open_private(self.path, os.O_RDWR))  # 0600 before SQLite creates it
            for suffix in ("-wal", "-shm"):  # SQLite gives these the database's mode
                _tighten(Path(f"{self.path}{suffix}"))
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                      timeout=BUSY_TIMEOUT_S)
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.execute("PRAGMA foreign_keys=ON")
                self.db.executescript(SCHEMA)
                self.db.execute("SELECT COUNT(*) FROM sessions").fetchone()  # readable?
            except sqlite3.Error:
                self.db.close()
                raise
        self._seq: dict[str, int] = {}
        self.failed: HistoryError | None = None  # the first write that failed
        self.on_failure: Callable[[HistoryError], None] | None = None

    def close(self) -> None:
        self.db.close()

    @_history_op
    def create(self, session_id: str, *, cwd: str, agent: str, model: str, config: str) -> None:
        now = time.time()
        self.db.execute(
            "INSERT INTO sessions (id, cwd, agent, model, config, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, _sql_text(cwd), agent, model, _sql_text(config), now, now))
        self._seq[session_id] = 0

    def append(self, session_id: str, event: ev.Event) -> None:
        """Store one event now (one autocommitted statement), waiting for a busy database
        (bounded). A failure raises HistoryError, is kept in `failed` and told to
        `on_failure`; after one, every write fails at once (the history has a gap: whoever
        runs the session ends it)."""
        if self.failed is not None:
            raise self.failed
        try:
            with _guarded(self.path):
                self._append(session_id, event)
        except HistoryError as err:
            tag = type(event).__struct_config__.tag
            self.failed = HistoryError(self.path, f"{err.reason} ({tag} not saved)")
            if self.on_failure is not None:
                self.on_failure(self.failed)
            raise self.failed from None

    def _append(self, session_id: str, event: ev.Event) -> None:
        seq = self._next_seq(session_id)
        try:
            self.db.execute("INSERT INTO events (session_id, seq, type, data) "
                            "VALUES (?, ?, ?, ?)",
                            (session_id, seq, type(event).__struct_config__.tag,
                             ev.encode(event)))
        except BaseException:
            self._seq[session_id] -= 1  # not written: the next write takes this seq
            raise
        if isinstance(event, (ev.UserMessage, ev.RunEnd)):
            self._touch(session_id, event)

    def _next_seq(self, session_id: str) -> int:
        if session_id not in self._seq:
            row = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = ?",
                                  (session_id,)).fetchone()
            self._seq[session_id] = row[0]
        self._seq[session_id] += 1
        return self._seq[session_id]

    def _touch(self, session_id: str, event: ev.Event) -> None:
        self.db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (time.time(), session_id))
        if isinstance(event, ev.UserMessage):
            title = " ".join(event.text.split())[:60]
            self.db.execute("UPDATE sessions SET title = ? WHERE id = ? AND title = ''",
                            (title, session_id))

    @_history_op
    def get(self, session_id: str) -> SessionRow | None:
        rows = self._rows("WHERE s.id = ?", (_sql_text(session_id),))
        return rows[0] if rows else None

    @_history_op
    def list(self, cwd: str | None = None) -> list[SessionRow]:
        if cwd is None:
            return self._rows("", ())
        return self._rows("WHERE s.cwd = ?", (_sql_text(cwd),))

    def latest(self, cwd: str) -> SessionRow | None:
        rows = self.list(cwd)
        return rows[0] if rows else None

    def _rows(self, where: str, params: tuple) -> list[SessionRow]:
        query = ("SELECT s.id, s.cwd, s.agent, s.model, s.config, s.created_at, s.updated_at,"
                 " s.title, (SELECT COUNT(*) FROM events e WHERE e.session_id = s.id)"
                 f" FROM sessions s {where} ORDER BY s.updated_at DESC, s.created_at DESC")
        return [SessionRow(*row) for row in self.db.execute(query, params)]

    @_history_op
    def events(self, session_id: str) -> list[ev.Event]:
        """The stored events, in order. One that no longer decodes (written by another
        version) is replaced by a warning notice, so a resume never fails on it."""
        rows = self.db.execute("SELECT seq, data FROM events WHERE session_id = ? ORDER BY seq",
                               (session_id,))
        out: list[ev.Event] = []
        for seq, data in rows:
            try:
                out.append(ev.decode(data))
            except msgspec.DecodeError as err:
                out.append(ev.Notice(level="warning",
                                     message=f"stored event {seq} skipped: {err}"))
        return out

    @_history_op
    def raw_events(self, session_id: str) -> list[bytes]:
        rows = self.db.execute("SELECT data FROM events WHERE session_id = ? ORDER BY seq",
                               (session_id,))
        return [bytes(data) for (data,) in rows]

    @_history_op
    def delete(self, session_id: str) -> bool:
        cur = self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        self.db.execute("DELETE FROM events WHERE session_id = ?", (session_id,))
        self._seq.pop(session_id, None)
        return cur.rowcount > 0
