"""How two runs differ, named as on the command line (a ``--resume`` of another run says each
option that differs with both values)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from .dataset_layout import IDENTITY
from .run_write import json_default

#: how the command line names the fields of :data:`IDENTITY`
_OPTION = {
    "preset": "--preset",
    "master_seed": "--seed",
    "deals": "--deals",
    "matches": "--matches",
    "chunk_size": "--chunk-size",
    "check": "--check",
    "version": "tranca-sim version",
}


def _value(value) -> str:
    """A value as typed on the command line: ``true``/``false``, ``3``, ``0.25``, ``none``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float | str):
        return str(value)
    return json.dumps(value, default=json_default, sort_keys=True)


def _side_differences(flag: str, mine, theirs) -> list[tuple[str, str, str]]:
    """How one side's strategy entry (run metadata) differs: its strategy as the user writes it,
    or, for the same text, the parameter values, strategy file or other field that differ."""
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return [(flag, _value((mine or {}).get("label") if isinstance(mine, dict) else mine), _value(theirs))]

    def label(x: dict) -> str:
        return str(x.get("label") or x.get("text") or x.get("name"))

    if label(mine) != label(theirs):
        return [(flag, repr(label(mine)), repr(label(theirs)))]
    out = []
    names_m, names_t = mine.get("param_names") or [], theirs.get("param_names") or []
    vals_m, vals_t = mine.get("params") or [], theirs.get("params") or []
    if names_m == names_t and len(vals_m) == len(vals_t):
        for name, a, b in zip(names_m, vals_m, vals_t):
            if a != b:  # the same text, other values: defaults that changed (tuned's file)
                out.append((f"{flag} {label(mine)}: parameter {name}", _value(a), _value(b)))
    for key in sorted(set(mine) | set(theirs)):
        if key in ("label", "params", "side") or mine.get(key) == theirs.get(key):
            continue
        what = {"sha256": "its strategy file's sha256", "param_names": "its parameters"}.get(key, key)
        a, b = _value(mine.get(key)), _value(theirs.get(key))
        if key == "sha256":
            a, b = a[:12], b[:12]
        out.append((f"{flag} {label(mine)}: {what}", a, b))
    return out or [(flag, repr(label(mine)), repr(label(theirs)))]


def identity_differences(mine: Mapping, theirs: Mapping) -> list[tuple[str, str, str]]:
    """What makes run identity ``mine`` (this run, :func:`identity`) another run than ``theirs``
    (a dataset's), each as ``(option, this run's value, the dataset's value)`` named as on the
    command line: ``("--seed", "8", "7")``, ``("--rule max_wilds", "1", "2")``,
    ``("--side-b", "'passive'", "'random'")``; a rule or strategy parameter is named alone, not
    as the whole rule set or strategy entry.  Empty when they are the same run."""
    out: list[tuple[str, str, str]] = []
    for key in IDENTITY:
        a, b = mine.get(key), theirs.get(key)
        if a == b:
            continue
        if key == "rules" and isinstance(a, dict) and isinstance(b, dict):
            if mine.get("preset") != theirs.get("preset"):
                continue  # named as --preset; its rules differ with it
            for name in sorted(set(a) | set(b)):
                if name not in ("name", "description") and a.get(name) != b.get(name):
                    out.append((f"--rule {name}", _value(a.get(name)), _value(b.get(name))))
        elif key == "strategies" and isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                out.append(("sides", str(len(a)), str(len(b))))
                continue
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    out += _side_differences(f"--side-{'abc'[i]}", x, y)
        else:
            out.append((_OPTION.get(key, key), _value(a), _value(b)))
    return out
