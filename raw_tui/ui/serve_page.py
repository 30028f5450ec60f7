"""The page `raw-tui serve` answers on `/`: textual-serve's terminal (its xterm.css and
textual.js, served from its static folder) with its Roboto Mono fonts from that folder too,
so the page loads nothing from outside the machine; a Content-Security-Policy makes the
browser hold to that (`self` only: no outside fonts, scripts, images or connections, not in
a frame)."""

from __future__ import annotations

from html import escape

from aiohttp import web

TITLE = "raw-tui"

_PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="/static/css/xterm.css">
<script src="/static/js/textual.js"></script>
<style>
@font-face {{ font-family: "Roboto Mono"; font-style: normal; font-weight: 100 700;
  src: url("/static/fonts/RobotoMono-VariableFont_wght.ttf") format("truetype"); }}
@font-face {{ font-family: "Roboto Mono"; font-style: italic; font-weight: 100 700;
  src: url("/static/fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype"); }}
body {{ background: #0c181f; margin: 0; }}
.textual-terminal {{ width: 100vw; height: 100vh; }}
.closed {{ display: none; position: absolute; inset: 0; z-index: 10; align-items: center;
  justify-content: center; color: rgba(255, 255, 255, 0.95); background: #0c181f;
  font-family: "Roboto Mono", monospace; font-size: 16px; }}
body.-closed .closed {{ display: flex; }}
</style>
</head>
<body>
<div class="closed">Session ended. Reload the page to start again.</div>
<div id="terminal" class="textual-terminal" data-session-websocket-url="{websocket}"
  data-font-size="{font_size}"></div>
</body>
</html>
"""


def content_security_policy(host: str) -> str:
    return (f"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            f"font-src 'self'; img-src 'self' data:; connect-src 'self' ws://{host}; "
            f"frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


async def handle_index(request: web.Request) -> web.Response:
    """The page, for the host it was asked for (the guard admitted only ours)."""
    host = request.headers["Host"]
    try:
        font_size = max(6, min(64, int(request.query.get("fontsize", "16"))))
    except ValueError:
        font_size = 16
    page = _PAGE.format(title=escape(TITLE), websocket=escape(f"ws://{host}/ws"),
                        font_size=font_size)
    return web.Response(text=page, content_type="text/html", headers={
        "Content-Security-Policy": content_security_policy(host),
        "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer"})
