"""Who may use `raw-tui serve`: only whoever holds the URL it printed (docs/decisions.md).

The printed URL carries a fresh random token (128 bits). A request with it gets a cookie
(`HttpOnly; SameSite=Strict`, a second random secret, never the token) and a redirect to the
same URL without the token. Every request needs that cookie; every request needs a `Host` of
`127.0.0.1:PORT` or `localhost:PORT` (DNS rebinding: a hostile name that resolves here
carries its own name); a websocket upgrade also needs an `Origin` of `http://` + that host (a
hostile page's cross-site websocket carries its own origin), as does any request that sends
an `Origin`. Anything else is answered 403 and logged, one line on stderr with what was sent
escaped; the request reaches no handler, so no tab's app starts and no key reaches a session.
"""

from __future__ import annotations

import hmac
import secrets
import sys
from typing import Awaitable, Callable, TextIO
from urllib.parse import urlencode

from aiohttp import web

from ..protocol.termsafe import escape_controls

TOKEN_BYTES = 16  # 128 bits, for the token and for the cookie's secret
TOKEN_PARAM = "token"
LOGGED_CHARS = 200  # of a refused request's path, Host or Origin


class Guard:
    """The token, the cookie and the checks of one `serve` on one port."""

    def __init__(self, port: int, *, log: TextIO | None = None) -> None:
        self.port = port
        self.token = secrets.token_urlsafe(TOKEN_BYTES)
        self._secret = secrets.token_urlsafe(TOKEN_BYTES)
        self.cookie = f"raw-tui-{port}"  # cookies ignore ports: one serve's is not another's
        self.hosts = frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})
        self._log = log

    @property
    def url(self) -> str:
        """The URL to open (printed once, never logged again)."""
        return f"http://127.0.0.1:{self.port}/?{TOKEN_PARAM}={self.token}"

    @web.middleware
    async def middleware(self, request: web.Request,
                         handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                         ) -> web.StreamResponse:
        host = request.headers.get("Host", "")
        if host not in self.hosts:
            return self._refuse(request, "foreign Host")
        origin = request.headers.get("Origin")
        # any upgrade at all (`websocket, foo` too), or the websocket's path, needs the Origin
        upgrade = bool(request.headers.get("Upgrade")) or \
            "upgrade" in request.headers.get("Connection", "").lower() or \
            request.path.rstrip("/").endswith("/ws")
        if (upgrade or origin is not None) and origin != f"http://{host}":
            return self._refuse(request, "no Origin" if origin is None else "foreign Origin")
        token = request.query.get(TOKEN_PARAM)
        if token is not None:
            if upgrade or not hmac.compare_digest(token.encode(), self.token.encode()):
                return self._refuse(request, "wrong token")
            return self._admit(request)
        cookie = request.cookies.get(self.cookie, "")
        if not hmac.compare_digest(cookie.encode(), self._secret.encode()):
            return self._refuse(request, "no cookie" if not cookie else "wrong cookie")
        return await handler(request)

    def _admit(self, request: web.Request) -> web.StreamResponse:
        """The token's request: the cookie, and the same URL without the token."""
        rest = [(k, v) for k, v in request.query.items() if k != TOKEN_PARAM]
        path = "/" + request.path.lstrip("/")  # `//host/` would leave the machine
        response = web.HTTPSeeOther(path + (f"?{urlencode(rest)}" if rest else ""))
        response.set_cookie(self.cookie, self._secret, path="/", httponly=True,
                            samesite="Strict")
        response.headers["Cache-Control"] = "no-store"
        return response

    def _refuse(self, request: web.Request, why: str) -> web.StreamResponse:
        def shown(text: str) -> str:
            text = text if len(text) <= LOGGED_CHARS else text[:LOGGED_CHARS] + "..."
            return escape_controls(text, keep_lines=False)

        path = request.path  # never the query: it may hold a token (a wrong one, or ours)
        print(f"raw-tui: serve: refused {shown(request.method)} {shown(path)} from "
              f"{request.remote}: {why} (Host {shown(request.headers.get('Host', '-'))}, "
              f"Origin {shown(request.headers.get('Origin', '-'))})",
              file=self._log or sys.stderr, flush=True)
        return web.Response(status=403, text="403: open the URL raw-tui serve printed\n",
                            headers={"Cache-Control": "no-store"})
