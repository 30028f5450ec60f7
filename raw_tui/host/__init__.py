"""The session host (docs/host.md): a background process that owns one session (engine,
history, hooks, panels) and serves it to clients over a Unix socket.

- `protocol`: the frames (msgspec Structs, one JSON object a line) and their limits.
- `paths`: the socket directory, socket names, probing and stale-socket cleanup.
- `server`: `SessionHost`, the socket server around a `Session` (snapshot, live stream with
  sequence numbers, commands, idle timeout, ending).
- `process`: the host process's entry point (`python -m raw_tui.host`).
- `launch`: starting a host detached from the terminal and waiting until it is ready.
- `client`: `HostClient`, the session facade over the socket (what a UI attaches with).
"""
