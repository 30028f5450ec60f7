"""The wall between the engine and its clients (docs/ui.md, docs/sessions.md): all a client
may import. The event Structs and the bus (`bus`), the command Structs and the `SessionApi`
facade (`commands`), the client transports (`client`), the error codes (`errors`), the glyphs
(`glyphs`) and the text helpers they use (`redact`, `termsafe`). Nothing here imports the
engine or a client (`.importlinter`)."""
