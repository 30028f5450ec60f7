"""The host's wire protocol: one JSON object per line, each a msgspec Struct tagged by
`frame`, decoded strictly (unknown fields, wrong types and unknown frames are errors).

A client opens with `attach` (or `probe`); the host answers with one `snapshot` and then
streams `event` frames numbered by `seq` (1, 2, 3, … over the host's life; the snapshot says
the last `seq` it covers, so an event is never lost or doubled between the two). Commands go
in as `command` frames with a client-chosen `id`; each gets one `reply` with that id. `page`
asks for older chat events. `detach` ends the connection; the host carries on. The host
sends `bye` before it closes a connection itself (refused, bad frame, session ended).
"""

from __future__ import annotations

from typing import Union

import msgspec

from ..protocol import bus as ev
from ..protocol.commands import AnyCommand, Reply, SavedSession, SessionInfo, UiSettings

PROTOCOL_VERSION = 2  # 2: `event` frames may join streamed text (`first`)
MAX_FRAME_BYTES = 4 * 1024 * 1024  # one line from a client; longer closes that client
HANDSHAKE_TIMEOUT_S = 10.0  # a client must say attach/probe within this
SNAPSHOT_EVENTS = 500  # chat events in a snapshot; older ones come by `page`
MAX_PAGE_EVENTS = 2000
MAX_CLIENT_BUFFER = 64 * 1024 * 1024  # bytes queued for a client that does not read


class Frame(msgspec.Struct, tag_field="frame", forbid_unknown_fields=True, omit_defaults=True,
            kw_only=True):
    pass


# client -> host -------------------------------------------------------------------------------

class Attach(Frame, tag="attach"):
    version: int
    history: int = SNAPSHOT_EVENTS  # at most this many chat events in the snapshot


class Probe(Frame, tag="probe"):
    """Ask for the session's status without attaching (`sessions list`)."""

    version: int


class CommandFrame(Frame, tag="command"):
    id: int
    command: AnyCommand


class Page(Frame, tag="page"):
    """Chat events older than `before` (a seq), at most `limit` of them."""

    id: int
    before: int
    limit: int = SNAPSHOT_EVENTS


class Detach(Frame, tag="detach"):
    pass


ClientFrame = Union[Attach, Probe, CommandFrame, Page, Detach]


# host -> client -------------------------------------------------------------------------------

class Snapshot(Frame, tag="snapshot"):
    """The session as it is at `seq`: replay `events` (chat history, oldest first; there are
    older ones when `first_seq` > 1), then show `panels`, `approvals`, `questions`, `turn`
    and the assistant text being streamed, then apply live events with seq > `seq`."""

    version: int
    seq: int
    info: SessionInfo
    events: list[ev.AnyEvent]
    first_seq: int  # seq of events[0] (or seq + 1 when there are none)
    panels: list[ev.PanelState]
    approvals: list[ev.ApprovalRequest]
    questions: list[ev.InteractionRequest]
    turn: ev.TurnState
    streaming: str = ""  # assistant text of the reply being streamed now
    ui: UiSettings = UiSettings()  # the config's `ui` section, for the client's options
    saved: list[SavedSession] = []  # the other saved sessions of the directory, at attach
    clients: int = 1  # clients attached, this one included


class EventFrame(Frame, tag="event"):
    """Event `seq`; or, with `first`, the `assistant_delta` events `first`..`seq` of one turn
    as one (their texts joined): streamed text crosses as a few frames, not one a token."""

    seq: int
    event: ev.AnyEvent
    first: int = 0


class ReplyFrame(Frame, tag="reply"):
    id: int
    reply: Reply


class PageFrame(Frame, tag="page"):
    id: int
    first_seq: int
    events: list[ev.AnyEvent]


class Status(Frame, tag="status"):
    version: int
    session_id: str
    cwd: str
    agent: str
    state: str  # running | waiting for approval | waiting for a question | idle
    clients: int
    pid: int


class Bye(Frame, tag="bye"):
    reason: str  # ended | refused | bad_frame | version | too_slow
    message: str = ""


HostFrame = Union[Snapshot, EventFrame, ReplyFrame, PageFrame, Status, Bye]

_encoder = msgspec.json.Encoder()
_client_decoder = msgspec.json.Decoder(ClientFrame)
_host_decoder = msgspec.json.Decoder(HostFrame)


def encode(frame: Frame) -> bytes:
    """One frame as one line."""
    return _encoder.encode(frame) + b"\n"


def decode_client(line: bytes) -> Frame:
    return _client_decoder.decode(line)


def decode_host(line: bytes) -> Frame:
    return _host_decoder.decode(line)
