"""textual-serve's driver (a browser tab), reading keys with ui/keys.py's parser: xterm.js
sends ESC CR for Alt+Enter."""

from __future__ import annotations

from textual.drivers import web_driver
from textual.drivers.web_driver import WebDriver

from .keys import KeyParser
from .textual_private import use_key_parser

use_key_parser(web_driver, KeyParser)


class BrowserDriver(WebDriver):
    pass
