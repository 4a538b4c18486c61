"""The plug-in contract: what the engine and a strategy agree on, so the engine never imports a strategy.

What a strategy receives and returns:

- its parameter row, ``float64[N_PARAMS]`` (:data:`N_PARAMS`; a strategy uses the first
  ``len(PARAMS)`` slots);
- an observation, :data:`tranca_sim.engine.obs.Obs` (only what the player may see), and the
  legal actions encoded as in :mod:`tranca_sim.engine.obs` (``A_STOCK``, ``A_PILE``, ...:
  the observation's fields and the action codes are that module's part of this contract);
- its own random stream, ``uint64[4]``;

and it answers through four numba functions, each switched over the seats' strategy ids::

    choose_draw(sid, prm, obs, acts, n, rng) -> int     # index into acts[:n]
    choose_meld(sid, prm, obs, acts, n, rng) -> int     # index into acts[:n], or -1 to stop melding
    choose_discard(sid, prm, obs, rng) -> int           # a card kind the seat may discard
    choose_redraw(sid, prm, obs, rng) -> int            # 1 throw the first card back, 0 keep it

The strategies plug themselves in (:func:`plug`, done by the ``tranca_sim.strategies`` package when it is
imported) with a :class:`Plug`: the switches above (built by the package's generated dispatch,
its composition root) and the way from a strategy's name to its id and parameter row.  The engine
asks for them through :func:`plugged`, which imports the installed strategy package
(:data:`DEFAULT_PLUG`) when nothing was plugged yet.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

N_PARAMS = 32  # width of a parameter row; a strategy uses the first len(PARAMS)

DEFAULT_PLUG = "tranca_sim.strategies"  # the package that plugs itself in when the engine asks first


class SeatStrategy(Protocol):
    """What the engine takes from a resolved strategy: its id in the switches and its row."""

    name: str
    params: np.ndarray  # float64[N_PARAMS]

    @property
    def sid(self) -> int: ...


@dataclass(frozen=True)
class Plug:
    """The strategies as the engine sees them.

    ``engine_dispatch()`` returns the four switches (module docstring), called once when
    :mod:`tranca_sim.engine.deal` is imported; ``resolve(name_or_spec, preset=None)`` returns a
    :class:`SeatStrategy`; ``check_rules(specs, rules)`` raises for a strategy that cannot play
    ``rules``; ``spec_type`` is the class of a resolved strategy (a spec passes through
    ``resolve`` unchanged).
    """

    engine_dispatch: Callable[[], tuple[Any, Any, Any, Any]]
    resolve: Callable[..., SeatStrategy]
    check_rules: Callable[[list, Any], None]
    spec_type: type


_plug: Plug | None = None


def plug(p: Plug) -> None:
    """Plug the strategies in (the ``tranca_sim.strategies`` package does it when it is imported)."""
    global _plug
    _plug = p


def plugged() -> Plug:
    """The plugged strategies; imports :data:`DEFAULT_PLUG` first if nothing was plugged."""
    if _plug is None:
        importlib.import_module(DEFAULT_PLUG)
    if _plug is None:
        raise RuntimeError(f"no strategies plugged into the engine ({DEFAULT_PLUG!r} did not plug itself in)")
    return _plug
