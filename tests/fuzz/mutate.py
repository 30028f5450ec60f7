"""Mutations, for the long fuzz run (`scripts/fuzz 100000`): inputs made from the ones
hypothesis made, by small structural changes, as a mutating fuzzer makes them.

Hypothesis spends most of a run making its inputs (85% of the time here); a mutation costs
a few microseconds. A long run therefore checks a corpus hypothesis made, then mutations of
it: keys dropped or added, values swapped for others of the corpus or for hostile ones,
strings cut, doubled and salted with control and surrogate characters, JSON text changed as
JSON. A mutant keeps its input's shape at the top (text stays text, bytes stay bytes, a pair
stays a pair of the same kinds), so every mutant is an input its target reads; inside, any
JSON value may become any other, as a hostile file would have it.
"""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

HOSTILE = ["", "\x00", "\x1b[2J", "\x1b]52;c;eA==\x07", "\x9b", "\u202e", "\ud800", "\udfff",
           "\u2028", "𝄞", "\r\n", "\n", "\t", '"', "\\", "{", "}", "[", "]", ",", ":", "../",
           "*", "(a+)+$", "A" * 300, "1e999", "-0", "NaN", "null", "true"]
NUMBERS = [0, -1, 1, 2, 63, 64, 65, 255, 2 ** 31, 2 ** 53 + 1, 2 ** 63, 2 ** 64, -2 ** 63,
           10 ** 30, 0.5, -0.0, 1e300, float("inf"), float("-inf"), float("nan")]
POOL_LIMIT = 20_000  # parts of the corpus kept to splice in


JSON = (dict, list, str, int, float, bool, type(None))


def parts(value: Any, pool: list[Any]) -> None:
    """Every JSON value inside `value` (not `value` itself, nor a pair or bytes of an input's
    top), into `pool`."""
    stack = list(value) if isinstance(value, (list, tuple)) else \
        list(value.values()) if isinstance(value, dict) else []
    while stack and len(pool) < POOL_LIMIT:
        item = stack.pop()
        if not isinstance(item, JSON):
            continue
        pool.append(item)
        if isinstance(item, dict):
            pool.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def mutate_text(text: str, rng: random.Random, pool: list[Any]) -> str:
    if text and rng.random() < 0.35:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if data is not None:
            changed = mutate_json(data, rng, pool)
            try:
                return json.dumps(changed, ensure_ascii=rng.random() < 0.5,
                                  indent=rng.choice([None, None, 2]))
            except (TypeError, ValueError, RecursionError):
                return text
        lines = text.split("\n")
        if len(lines) > 1:  # JSON lines, an event stream: change one line
            at = rng.randrange(len(lines))
            lines[at] = mutate_text(lines[at], rng, pool)
            return "\n".join(lines)
    kind = rng.randrange(6)
    at = rng.randrange(len(text) + 1)
    if kind == 0:
        return text[:at] + rng.choice(HOSTILE) + text[at:]
    if kind == 1 and text:
        end = rng.randrange(at, len(text) + 1)
        return text[:at] + text[end:]
    if kind == 2 and text:
        end = rng.randrange(at, len(text) + 1)
        return text[:end] + text[at:end] * rng.randint(1, 3) + text[end:]
    if kind == 3:
        return text[:at] + chr(rng.choice([rng.randrange(32), rng.randrange(0x80, 0xa0),
                                           rng.randrange(0x110000)])) + text[at + 1:]
    if kind == 4:
        return text[:at]
    words = [p for p in rng.sample(pool, min(len(pool), 8)) if isinstance(p, str)]
    return text[:at] + (rng.choice(words) if words else "") + text[at:]


def scalar(rng: random.Random, pool: list[Any]) -> Any:
    choice = rng.randrange(4)
    if choice == 0:
        return rng.choice(NUMBERS)
    if choice == 1:
        return rng.choice([None, True, False, "", 0])
    if choice == 2:
        return rng.choice(HOSTILE)
    return rng.choice(pool) if pool else None


def mutate_json(value: Any, rng: random.Random, pool: list[Any], depth: int = 0) -> Any:
    """`value` (a JSON-like value) with one change, somewhere inside."""
    if depth > 40 or rng.random() < 0.15:
        return rng.choice(pool) if pool and rng.random() < 0.6 else scalar(rng, pool)
    if isinstance(value, dict):
        out = dict(value)
        kind = rng.randrange(4)
        if kind == 0 and out:
            del out[rng.choice(list(out))]
        elif kind == 1:
            keys = [p for p in rng.sample(pool, min(len(pool), 8)) if isinstance(p, str)]
            key = rng.choice(keys) if keys else rng.choice(HOSTILE)
            out[key] = rng.choice(pool) if pool else None
        elif out:
            key = rng.choice(list(out))
            out[key] = mutate_json(out[key], rng, pool, depth + 1)
        return out
    if isinstance(value, list):
        out = list(value)
        kind = rng.randrange(4)
        if kind == 0 and out:
            del out[rng.randrange(len(out))]
        elif kind == 1:
            out.insert(rng.randrange(len(out) + 1), rng.choice(pool) if pool else None)
        elif kind == 2 and out:
            at = rng.randrange(len(out))
            out[at:at] = [out[at]] * rng.randint(1, 40)
        elif out:
            at = rng.randrange(len(out))
            out[at] = mutate_json(out[at], rng, pool, depth + 1)
        return out
    if isinstance(value, str):
        return mutate_text(value, rng, pool)
    return scalar(rng, pool)


def mutate(value: Any, rng: random.Random, pool: list[Any]) -> Any:
    """`value` changed 1–4 times, its shape at the top kept."""
    for _ in range(rng.randint(1, 4)):
        value = mutate_top(value, rng, pool)
    return value


def mutate_top(value: Any, rng: random.Random, pool: list[Any]) -> Any:
    if isinstance(value, str):
        return mutate_text(value, rng, pool)
    if isinstance(value, bytes):
        if rng.random() < 0.2 and value:
            at = rng.randrange(len(value))
            return value[:at] + bytes([rng.randrange(256)]) + value[at + 1:]
        text = mutate_text(value.decode("utf-8", "surrogateescape"), rng, pool)
        try:  # bytes that were not UTF-8 come back as they were
            return text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate put in: as a UTF-8 decoder meets one
            return text.encode("utf-8", "surrogatepass")
    if isinstance(value, bool):
        return not value
    if isinstance(value, tuple) and value:  # each part keeps its kind
        at = rng.randrange(len(value))
        return value[:at] + (mutate_top(value[at], rng, pool),) + value[at + 1:]
    if isinstance(value, list):  # a list of inputs (frames, bodies): still a list of them
        out = list(value)
        kind = rng.randrange(4)
        if kind == 0 and out:
            del out[rng.randrange(len(out))]
        elif kind == 1 and out:
            at = rng.randrange(len(out))
            out.insert(at, out[at])
        elif out:
            at = rng.randrange(len(out))
            out[at] = mutate_part(out[at], rng, pool)
        return out
    if isinstance(value, dict):  # a dict stays a dict at the top
        out = mutate_json(value, rng, pool)
        return out if isinstance(out, dict) else value
    return value


def mutate_part(value: Any, rng: random.Random, pool: list[Any]) -> Any:
    """An element of a list input: bytes stay bytes, JSON changes as JSON."""
    if isinstance(value, (bytes, str, tuple, bool)):
        return mutate_top(value, rng, pool)
    return mutate_json(value, rng, pool, depth=1)


def mutants(corpus: list[Any], count: int, rng: random.Random) -> Iterator[Any]:
    """`count` mutations of members of `corpus`."""
    if not corpus:
        return
    pool: list[Any] = []
    for value in corpus:
        parts(value, pool)
    for _ in range(count):
        base = rng.choice(corpus)
        try:
            yield mutate(base, rng, pool)
        except RecursionError:  # a value nested past Python's own limit: use it as it is
            yield base
