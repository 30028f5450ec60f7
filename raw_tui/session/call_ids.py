"""The session's own key for every model tool call (docs/decisions.md).

A provider's call ids are the provider's: some number calls per response (`call_0`,
`read_file:0`), the scripted model numbers them from `call_1` on every replay, and a model
may send one id twice in one response. Everything raw-tui keys by a call — chat rows,
approvals, forms, history, ACP tool calls, the ids sent back to the provider — uses the
`call_id` given here instead: the provider's id while it is new in the session, else that id
with a `-N` suffix. What goes back to the provider is that key, so a request never carries
one id for two calls.
"""

from __future__ import annotations

import re
from typing import Iterable

MAX_ID = 40  # the shortest limit a provider puts on a call id (OpenAI Chat Completions)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")  # our own fixed pattern: Anthropic's id alphabet


class CallIds:
    """Call ids seen in one session; `key(provider_id)` gives a call's unique key."""

    def __init__(self, seen: Iterable[str] = ()) -> None:
        self._seen: set[str] = set(seen)

    def key(self, provider_id: str) -> str:
        """`provider_id` when it is new in the session, else a fresh `BASE-N` (N from 2;
        BASE the provider's id in the alphabet every provider accepts, cut to fit)."""
        if provider_id and provider_id not in self._seen:
            self._seen.add(provider_id)
            return provider_id
        base = _UNSAFE.sub("_", provider_id) or "call"
        n = 2
        while True:
            suffix = f"-{n}"
            candidate = base[:MAX_ID - len(suffix)] + suffix
            if candidate not in self._seen:
                self._seen.add(candidate)
                return candidate
            n += 1

    def note(self, call_id: str) -> None:
        """A key used outside `key` (a panel action's call): never given again."""
        self._seen.add(call_id)
