"""Reading what the app shows, through Textual's public API: the SVG screenshot
(`app.export_screenshot()`) turned back into lines of text."""

from __future__ import annotations

import html
import re

CHAR_WIDTH = 0.61 * 20  # Rich's export_svg: font size 20, cells 0.61 of it wide
LINE_HEIGHT = 1.22 * 20
_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>')


def screen_text(app) -> str:
    """The text on the terminal right now (the active screen, modal included)."""
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    for x, y, text in _TEXT.findall(app.export_screenshot(simplify=True)):
        row = round((float(y) - LINE_HEIGHT) / LINE_HEIGHT)  # y is the text's baseline
        col = round(float(x) / CHAR_WIDTH)
        if 0 <= row < height:
            for offset, char in enumerate(html.unescape(text).replace("\xa0", " ")):
                if 0 <= col + offset < width:
                    rows[row][col + offset] = char
    return "\n".join("".join(row).rstrip() for row in rows)


def flat(text: str) -> str:
    return " ".join(text.split())
