"""Deep-frozen JSON values: what the model sent, unchangeable after validation.

`FrozenDict` and `FrozenList` subclass `dict` and `list`, so JSON encoders, jsonschema and
`isinstance` checks see ordinary JSON values; every mutating method raises `TypeError`.
"""

from __future__ import annotations

from typing import Any


def _refuse(self, *args, **kwargs):
    raise TypeError(f"{type(self).__name__} is frozen: tool arguments and effects cannot change")


class FrozenDict(dict):
    __slots__ = ()
    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __hash__(self):  # type: ignore[override]
        return hash(tuple(sorted(self.items(), key=lambda kv: kv[0])))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (FrozenDict, (dict(self),))


class FrozenList(list):
    __slots__ = ()
    __setitem__ = __delitem__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __iadd__ = __imul__ = _refuse

    def __hash__(self):  # type: ignore[override]
        return hash(tuple(self))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (FrozenList, (list(self),))


def freeze(value: Any) -> Any:
    """A deep, frozen copy of a JSON value."""
    if isinstance(value, dict):
        return FrozenDict((k, freeze(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return FrozenList(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A deep, mutable copy (for code that must build on a frozen value)."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value
