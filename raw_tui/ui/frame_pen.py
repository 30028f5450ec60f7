"""Pens: SGR parameters taken apart, so that a change of style writes only what changed.

A `Pen` holds a style's attribute codes and colors; `sgr_change` is the shortest SGR from one
pen to another; a blank cell that shows only its background is reduced to that
(`blank_background`, `settled_blank`), so that two blanks that look the same are the same cell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .frame_cells import Cell

# SGR attribute codes as Rich writes them (Textual's SGR_STYLES), each with the code that
# turns it off and what else that code turns off
OFF_CODE = {"1": "22", "2": "22", "3": "23", "4": "24", "21": "24", "5": "25", "6": "25",
            "7": "27", "8": "28", "9": "29", "51": "54", "52": "54", "53": "55"}
TURNS_OFF = {"22": ("1", "2"), "23": ("3",), "24": ("4", "21"), "25": ("5", "6"), "27": ("7",),
             "28": ("8",), "29": ("9",), "54": ("51", "52"), "55": ("53",)}
DEFAULT_COLOR = ("39", "49", "59")  # foreground, background, underline
UNSEEN_ON_BLANK = frozenset(("1", "2", "3"))  # bold, dim, italic: a blank looks the same


class Pen:
    """SGR parameters taken apart: attribute codes and colors (foreground, background,
    underline), so that a change of style writes only what changed."""

    __slots__ = ("attrs", "colors", "seen_on_blank")

    def __init__(self, attrs: tuple[str, ...], colors: tuple[str, str, str]) -> None:
        self.attrs = attrs
        self.colors = colors
        # what shows on a blank cell beyond its background (reverse shows the foreground)
        self.seen_on_blank = any(code not in UNSEEN_ON_BLANK for code in attrs)


_pens: dict[str, Pen | None] = {}


def pen(sgr: str) -> Pen | None:
    """The `Pen` of SGR parameters; None: parameters this does not take apart (a change to
    them is written whole, after a reset)."""
    got = _pens.get(sgr, False)
    if got is not False:
        return got  # type: ignore[return-value]
    attrs: list[str] = []
    colors = ["", "", ""]
    codes = sgr.split(";") if sgr else []
    parsed: Pen | None = None
    i = 0
    try:
        while i < len(codes):
            code = codes[i]
            if code in OFF_CODE:
                attrs.append(code)
                i += 1
                continue
            number = int(code)
            slot = 0 if 30 <= number <= 39 or 90 <= number <= 97 else \
                1 if 40 <= number <= 49 or 100 <= number <= 107 else \
                2 if number in (58, 59) else -1
            if slot < 0:
                raise ValueError(code)
            if number in (38, 48, 58):
                size = {"5": 3, "2": 5}[codes[i + 1]]
                colors[slot] = ";".join(codes[i:i + size])
                i += size
            else:
                colors[slot] = "" if number in (39, 49, 59) else code
                i += 1
        parsed = Pen(tuple(attrs), (colors[0], colors[1], colors[2]))
    except (ValueError, KeyError, IndexError):
        parsed = None
    if len(_pens) > 4096:
        _pens.clear()
    _pens[sgr] = parsed
    return parsed


def sgr_change(old: str | None, new: str) -> str:
    """The SGR parameters that turn the pen `old` (None: not known) into `new`: only what
    differs, or a reset and all of `new` where that is shorter."""
    whole = f"0;{new}" if new else "0"
    was, will = (pen(old) if old is not None else None), pen(new)
    if was is None or will is None:
        return whole
    codes: list[str] = []
    off: set[str] = set()
    for code in was.attrs:
        if code not in will.attrs and OFF_CODE[code] not in codes:
            codes.append(OFF_CODE[code])
            off.update(TURNS_OFF[OFF_CODE[code]])
    codes += [code for code in will.attrs if code not in was.attrs or code in off]
    for default, a, b in zip(DEFAULT_COLOR, was.colors, will.colors):
        if a != b:
            codes.append(b or default)
    delta = ";".join(codes)
    return delta if len(delta) < len(whole) else whole


_blank_bg: dict[str, str | None] = {}


def blank_background(cell: Cell) -> str | None:
    """For a blank cell that shows nothing but its background (a space, no link, no
    underline, reverse...), the SGR of that background ("": the default one); else None."""
    if cell[0] != " " or cell[2]:
        return None
    sgr = cell[1]
    got = _blank_bg.get(sgr, False)
    if got is False:
        parsed = pen(sgr)
        got = None if parsed is None or parsed.seen_on_blank else parsed.colors[1]
        if len(_blank_bg) > 4096:
            _blank_bg.clear()
        _blank_bg[sgr] = got
    return got  # type: ignore[return-value]


_settled: dict[tuple[str, str], Cell] = {}


def settled_blank(sgr: str, link: str) -> Cell:
    """A blank cell of this style: just its background where nothing else of the style
    shows on a blank (its foreground, bold, italic). It looks the same, and two blanks
    that look the same are then the same cell: a change of foreground under a space is
    not a change to write."""
    got = _settled.get((sgr, link))
    if got is None:
        cell = (" ", sgr, link)
        background = blank_background(cell)
        got = cell if background is None else (" ", background, "")
        if len(_settled) > 4096:
            _settled.clear()
        _settled[(sgr, link)] = got
    return got
