"""The numba engine: one deal's state as fixed-shape arrays, and the kernels that play it.

Modules, in the order a deal uses them:

- :mod:`.cards` -- card kinds and notation (``KH``, ``10D``, ``2C``, ``JK``); plain numpy.
- :mod:`.rng` -- the counter-based per-deal random streams (splitmix64 -> xoshiro256**).
- :mod:`.state` -- one deal's arrays (hands, mortos, stock, pile, melds, counters) and
  the names of their slots.
- :mod:`.contract` and :mod:`.obs` -- the plug-in contract: what a strategy receives and returns
  (the parameter row's width, the switches the strategies plug in) and what a player may see
  (:data:`~.obs.Obs`) with the action encoding.  The engine imports no strategy module.
- :mod:`.melds` -- meld legality, new melds, extensions, canastas, the legal-action lists.
- :mod:`.runs`, :mod:`.run_options`, :mod:`.run_index` -- same-suit runs: listing, laying, the
  switches of E15 and E21, and each side's runs indexed by the cards they take (for the listing).
- :mod:`.turn` -- the phases of a turn (red 3s, draw, pile capture, morto, discard,
  going out) and the deal's score.
- :mod:`.observe` -- the player's :data:`~.obs.Obs` built from the state.
- :mod:`.deal` -- deal setup and the turn loop that asks the strategies.
- :mod:`.kernel` -- the batch kernel (a range of deals, run on threads) and its Python wrappers
  (:func:`simulate_chunk`, :func:`play_deck`, :func:`play_position`, :func:`deck_of`).
- :mod:`.match` -- matches deal after deal to the target (:func:`simulate_match_chunk`).
- :mod:`.opening` -- the minimum first meld of a deal (004 variation, E25).
- :mod:`.positions` -- hand-made positions for rule tests.
- :mod:`.log` -- deal logs (every action of chosen deals) written beside a run.

Importing this package does not load numba: the kernel API below is imported
on first use, so ``tranca_sim.engine.cards`` stays cheap for the referee and
the CLI.

Inlining (issue 9, benchmarks/LOG.md "Engine speed"): numba passes the deal's
``State`` (twelve arrays, about 0.9 KB of array structs) by value to every
function that is not inlined.  The small functions of the turn that take the
``State`` -- ``state.log_event``, the canasta and going-out tests and the set
checks of :mod:`.melds`, the card moves, the draw and meld listings of sets, the
laying, the pile, discard and observation functions -- are compiled with
``forceinline=True`` (LLVM ``alwaysinline``) into :func:`.deal.play_turn`, which is
IR-inlined into :func:`.deal.play_deal`, its only caller, so the ``State`` is passed once a deal
(to ``play_deal``, a library of its own) instead of once a turn.  The big ones (the run listing of :mod:`.runs` and
:mod:`.run_options`, the first-meld check of :mod:`.opening`, the search player's rollouts,
the kernels) are not marked: each is compiled once, not copied into every
caller, so the first compile stays affordable.  A new function that takes the
``State`` and runs every turn should follow the same rule.

The first compile (issue 9, benchmarks/LOG.md "The first compile made smaller"): numba
optimises and generates the machine code of a function's whole call tree again for every function
that is compiled on its own (a library), so the levels above :func:`.deal.play_turn` are kept
few: ``kernel._play_one`` is inlined into the kernels at numba's IR level (``inline="always"``, no
library of their own) and calls :func:`.deal.play_deal`, the one library holding the turn, the batch and match kernels are plain
``nogil`` functions over a range run on threads (:func:`.kernel.in_threads`; a ``prange`` loop is
two more libraries), and ``state.log_event`` is IR-inlined too (as an LLVM-inlined function it
compiled once per combination of argument types, about a fifth of the compile).  Use
``inline="always"`` for thin functions between the kernels and ``play_deal``, and for
``play_turn`` only because ``play_deal`` is its one caller; never for the big listings (their
copies would multiply the compile).  The batch kernel ``kernel._simulate_nb`` (the only kernel a
first ``simulate`` compiles) IR-inlines ``play_deal`` itself (``kernel._play_deal_inline``, with
``_nrt=False`` and its scratch arrays allocated in Python), so a first run optimises the turn once
instead of in ``play_deal``'s library and again in the kernel that links it; the match,
stacked-deck and position kernels link the ``play_deal`` library.  Every kernel module decorates
with :func:`.jit.njit`, numba's ``njit`` without the C-ABI (``cfunc``) wrapper numba would
otherwise build, optimise and generate beside every compiled function.
"""

from __future__ import annotations

_KERNEL_API = ("deck_of", "play_deck", "play_position", "simulate_chunk")

__all__ = ["deck_of", "play_deck", "play_position", "simulate_chunk", "simulate_match_chunk"]


def __getattr__(name: str):
    if name in _KERNEL_API:
        from . import kernel

        return getattr(kernel, name)
    if name == "simulate_match_chunk":
        from . import match

        return match.simulate_match_chunk
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
