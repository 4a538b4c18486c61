"""The batch engine: a kernel over a range of independent deals, run on threads, and its Python wrappers.

Validation and seeding happen in Python; the work happens in
:func:`_simulate_nb` (``@njit(cache=True, nogil=True)``, one range of deals), which
:func:`in_threads` runs on ``numba.get_num_threads()`` Python threads, each taking blocks of
deals in turn (the kernel releases the GIL).  Issue 9: a ``prange`` kernel (``parallel=True``) is
two more levels of numba's compile (the loop body's function and the kernel each link and
re-optimise the whole turn), about a quarter of the first compile; threads over a plain kernel
play the same deals at the same speed.  Deal ``i`` of a
run uses the streams of :mod:`tranca_sim.engine.rng` keyed by ``(master_seed, i)``:
its cards and every choice depend only on the rules, the strategies, the
master seed and ``i`` -- never on the thread count or the chunking.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from .. import schema as S
from ..rules import R_FIRST_MELD_FROM, R_FIRST_MELD_MIN, R_N_JOKERS, R_N_SEATS, R_N_SIDES, Rules
from .cards import N_KINDS, parse
from .contract import N_PARAMS, SeatStrategy, plugged
from .deal import play_deal, setup_deal
from .jit import njit
from .obs import PUB_LEN
from .play_facts import meld_facts
from .rng import STREAM_SEAT0, STREAM_SHUFFLE, randbelow, seed_stream
from .state import (
    MS_DIRECT,
    MS_INDIRECT,
    MS_STOCK,
    SC_DEAL_IN_MATCH,
    SC_EM_CIMA,
    SC_ERRORS,
    SC_FIRST_SEAT,
    SC_LOG_ON,
    SC_MELD_FULL,
    SC_OUT_SEAT,
    SC_OVER,
    SC_TURN,
    SE_ILLEGAL,
    SE_INIT_BLACK3,
    SE_INIT_JOKERS,
    SE_INIT_RED3,
    SE_INIT_WILDS,
    SS_B3_GUARD,
    SS_B3_LOCKS,
    SS_FEEDS,
    SS_FIRST_CANASTA,
    SS_SECOND_MELDS,
    SS_WILD_TURNS,
    SS_CAPTURES,
    SS_MATCH_SCORE,
    SS_MELD_MIN,
    SS_MORTO,
    SS_MORTO_SEAT,
    SS_MORTO_TURN,
    SS_N_MELDS,
    SS_PILE_CARDS,
    SS_WILD_LOCKS,
    State,
    new_state,
    new_state_nb,
)
from .turn import score_deal

BLOCK = 64  # deals a thread takes at a time are a multiple of this
MAX_SEED = 2**63 - 1


@njit(cache=True)
def _pack_counts(rp):
    """``int64[2, N_KINDS]``: the pack's count of each kind, and a scratch row for the checks."""
    pack = np.zeros((2, N_KINDS), np.int64)
    pack[0, :52] = 2
    pack[0, 52] = rp[R_N_JOKERS]
    return pack


@njit(cache=True, _nrt=False)
def _shuffle_into(rng, pack_n, deck, phys):
    """:func:`shuffle_deck` with the scratch ``phys`` (``int64[>= pack_n]``) given: no allocation."""
    for i in range(pack_n):
        phys[i] = i
    for i in range(pack_n - 1, 0, -1):
        j = randbelow(rng, i + 1)
        t = phys[i]
        phys[i] = phys[j]
        phys[j] = t
    for i in range(pack_n):
        c = phys[i]
        deck[i] = 52 if c >= 104 else c % 52


@njit(cache=True)
def shuffle_deck(rng, pack_n, deck):
    """Fisher-Yates shuffle of the physical cards ``0..pack_n-1`` into kinds ``deck[:pack_n]``."""
    _shuffle_into(rng, pack_n, deck, np.empty(pack_n, np.int64))


@njit(cache=True, _nrt=False)
def record(st, rp, out_side, out_deal):
    """Score the finished deal in ``st`` and fill the output rows: ``out_side`` one per side
    (``int32[n_sides, OS_LEN]``), ``out_deal`` the deal's.  A solo player's side has no
    partner: its ``hand1`` facts are -1."""
    score_deal(st, rp, out_side)
    n_sides = rp[R_N_SIDES]
    partners = rp[R_N_SEATS] // n_sides
    for side in range(n_sides):
        o = out_side[side]
        o[S.OS_MORTO_TAKEN] = (
            1 if st.ss[side, SS_MORTO] == MS_DIRECT or st.ss[side, SS_MORTO] == MS_INDIRECT else 0
        )
        o[S.OS_MORTO_TURN] = st.ss[side, SS_MORTO_TURN]
        o[S.OS_MORTO_DIRECT] = 1 if st.ss[side, SS_MORTO] == MS_DIRECT else 0
        o[S.OS_MORTO_SEAT] = st.ss[side, SS_MORTO_SEAT]
        o[S.OS_MORTO_STOCK] = 1 if st.ss[side, SS_MORTO] == MS_STOCK else 0
        o[S.OS_PILE_CAPTURES] = st.ss[side, SS_CAPTURES]
        o[S.OS_PILE_CARDS] = st.ss[side, SS_PILE_CARDS]
        o[S.OS_BLACK3_LOCKS] = st.ss[side, SS_B3_LOCKS]
        o[S.OS_WILD_LOCKS] = st.ss[side, SS_WILD_LOCKS]
        o[S.OS_N_MELDS] = st.ss[side, SS_N_MELDS]
        cards, three, clean = meld_facts(st, side)
        o[S.OS_MELD_CARDS] = cards
        o[S.OS_THREE_CARD_MELDS] = three
        o[S.OS_CLEAN_MELDS] = clean
        o[S.OS_FIRST_CANASTA_TURN] = st.ss[side, SS_FIRST_CANASTA]
        o[S.OS_WILD_TURNS] = st.ss[side, SS_WILD_TURNS]
        o[S.OS_FEEDING_DISCARDS] = st.ss[side, SS_FEEDS]
        o[S.OS_BLACK3_GUARD_LOCKS] = st.ss[side, SS_B3_GUARD]
        o[S.OS_SECOND_MELDS] = st.ss[side, SS_SECOND_MELDS]
        illegal = 0
        for j in range(2):
            base = S.OS_HAND0_WILDS + 4 * j
            if j >= partners:
                for q in range(4):
                    o[base + q] = -1
                continue
            seat = side + n_sides * j
            o[base] = st.se[seat, SE_INIT_WILDS]
            o[base + 1] = st.se[seat, SE_INIT_JOKERS]
            o[base + 2] = st.se[seat, SE_INIT_RED3]
            o[base + 3] = st.se[seat, SE_INIT_BLACK3]
            illegal += st.se[seat, SE_ILLEGAL]
        o[S.OS_ILLEGAL] = illegal
    out_deal[S.OD_FIRST_SEAT] = st.sc[SC_FIRST_SEAT]
    out_deal[S.OD_END_REASON] = st.sc[SC_OVER]
    out_deal[S.OD_OUT_SEAT] = st.sc[SC_OUT_SEAT]
    out_deal[S.OD_N_TURNS] = st.sc[SC_TURN]
    out_deal[S.OD_EM_CIMA] = st.sc[SC_EM_CIMA]
    out_deal[S.OD_ERRORS] = st.sc[SC_ERRORS]
    out_deal[S.OD_MELD_FULL] = st.sc[SC_MELD_FULL]


@njit(cache=True, _nrt=False)
def set_match_facts(st, rp, mscore, deal_in_match):
    """Write the match facts of the deal just set up into ``st``: each side's match score before it
    (``mscore``, ``int64[n_sides]``), the deal number in the match, and each side's minimum first
    meld (004 Variations "Minimum points to lay down", E25: ``first_meld_min`` card points once the
    side's match score is at least ``R_FIRST_MELD_FROM``)."""
    st.sc[SC_DEAL_IN_MATCH] = deal_in_match
    for side in range(min(mscore.shape[0], st.ss.shape[0])):
        st.ss[side, SS_MATCH_SCORE] = mscore[side]
        need = 0
        if rp[R_FIRST_MELD_MIN] > 0 and mscore[side] >= rp[R_FIRST_MELD_FROM]:
            need = rp[R_FIRST_MELD_MIN]
        st.ss[side, SS_MELD_MIN] = need


@njit(cache=True, inline="always")  # issue 9: no library (no re-optimised level) of its own
def _play_one(
    st, rp, sids, prm, master_seed, d, deck, first_seat, rngs, acts, pub, hidden, pack, check, scr, acts2,
    mscore, deal_in_match,
):  # fmt: skip
    for seat in range(rp[R_N_SEATS]):
        seed_stream(rngs[seat], master_seed, d, STREAM_SEAT0 + seat)
    setup_deal(st, rp, deck, deck.shape[0], first_seat)
    set_match_facts(st, rp, mscore, deal_in_match)
    play_deal(st, rp, sids, prm, rngs, acts, pub, hidden, pack, check, scr, acts2)


#: :func:`.deal.play_deal` IR-inlined into the batch kernel (issue 9, first compile): a first run's
#: kernel holds the whole deal in its one library, so the turn is optimised and turned into machine
#: code once (not in ``play_deal``'s library and again in the kernel that links it).  The other
#: kernels (match, stacked deck, position) link the ``play_deal`` library.
_play_deal_inline = njit(cache=True, _nrt=False, inline="always")(play_deal.py_func)


# nogil: threads play ranges side by side, a run writes while it plays.  _nrt=False: no reference
# counting in the inlined turn (as in play_deal's own library); the scratch arrays come from
# _kernel_scratch, allocated in Python once a block.
@njit(cache=True, nogil=True, _nrt=False)
def _simulate_nb(
    rp, sids, prm, master_seed, start, lo, hi, check, out_side, out_deal,
    st, scr, deck, phys, srng, rngs, acts, acts2, pub, hidden, pack, mscore,
):  # fmt: skip
    """Deals ``start + lo .. start + hi - 1`` into rows ``lo .. hi - 1`` of the outputs; the other
    arguments are scratch space (:func:`_kernel_scratch`)."""
    pack_n = 104 + rp[R_N_JOKERS]
    n_seats = rp[R_N_SEATS]
    for i in range(lo, hi):
        d = start + i
        seed_stream(srng, master_seed, d, STREAM_SHUFFLE)
        _shuffle_into(srng, pack_n, deck, phys)
        for seat in range(n_seats):  # _play_one, with the inlined play_deal
            seed_stream(rngs[seat], master_seed, d, STREAM_SEAT0 + seat)
        setup_deal(st, rp, deck, pack_n, d % n_seats)
        set_match_facts(st, rp, mscore, 0)
        _play_deal_inline(st, rp, sids, prm, rngs, acts, pub, hidden, pack, check, scr, acts2)
        record(st, rp, out_side[i], out_deal[i])


def _kernel_scratch(rules: Rules) -> tuple:
    """The scratch arguments of :func:`_simulate_nb` for one thread's block, zeroed: the deal's and
    the scratch ``State`` (no action log), the deck, the shuffle's, the streams', the listings',
    the observation's and the invariant check's arrays, the match scores (all 0)."""
    n_sides, pack_n = rules.n_sides, rules.pack_size
    pack = np.zeros((2, N_KINDS), np.int64)
    pack[0, :52] = 2
    pack[0, 52] = rules.n_jokers
    return (
        new_state_nb.py_func(1, n_sides), new_state_nb.py_func(1, n_sides), np.zeros(pack_n, np.int16),
        np.zeros(pack_n, np.int64), np.zeros(4, np.uint64), np.zeros((4, 4), np.uint64),
        np.zeros(512, np.int32), np.zeros(512, np.int32), np.zeros(PUB_LEN, np.int32),
        np.zeros((n_sides, N_KINDS), np.int16), pack, np.zeros(n_sides, np.int64),
    )  # fmt: skip


#: the name (prefix) of the threads that run kernels: the CLI leaves with ``os._exit`` after an
#: interrupt while one is still alive (a user strategy's endless loop never gives it back)
KERNEL_THREAD = "tranca-sim-kernel"


def _wait(pool: ThreadPoolExecutor, futures) -> list:
    """The futures' results in order; ``pool`` shut down after them.  An exception of a call is
    raised after the running calls ended (the calls not started are dropped).  Ctrl-C or a
    termination (a ``BaseException`` raised by the signal's handler while this thread waits, which
    it does in an interruptible lock) is raised at once: the running calls are left to end on
    their own, or never (a user strategy that never returns: the GIL is released, so the caller
    unwinds, and the CLI ends the process, tranca_sim.cli.main)."""
    try:
        out = [f.result() for f in futures]
    except Exception:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return out


def off_main_thread(call: Callable[[], object]):
    """``call()`` (a nogil kernel's call) on a helper thread when the caller is the main thread,
    which waits for it and so still runs Python's signal handlers (Ctrl-C, SIGTERM) while the
    kernel plays; elsewhere ``call()`` directly.  Its result, or its exception."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=KERNEL_THREAD)
    return _wait(pool, [pool.submit(call)])[0]


def in_threads(play_range: Callable[[int, int], None], count: int, block: int = BLOCK) -> None:
    """Call ``play_range(lo, hi)`` over ``0 .. count - 1`` in blocks of ``block`` items on
    ``numba.get_num_threads()`` threads (the calling thread's numba thread count: ``--threads``,
    ``NUMBA_NUM_THREADS``), each thread taking the next block in turn; ``play_range`` must
    release the GIL (a ``nogil`` kernel) and write only its own rows.  An exception in a block is
    raised here.  Called from the main thread, one block too plays on a helper thread
    (:func:`off_main_thread`), so Ctrl-C and SIGTERM are seen while the kernel plays."""
    n = min(numba.get_num_threads(), (count + block - 1) // block)
    if n <= 1:
        off_main_thread(lambda: play_range(0, count))
        return
    blocks = [(lo, min(count, lo + block)) for lo in range(0, count, block)]
    pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix=KERNEL_THREAD)
    # on an error the blocks not started are dropped and the running ones end; on Ctrl-C or a
    # termination the caller leaves at once (_wait)
    _wait(pool, [pool.submit(play_range, lo, hi) for lo, hi in blocks])


@njit(cache=True, nogil=True)  # nogil: played off the main thread (play_deck)
def _play_stacked_nb(
    st, rp, sids, prm, master_seed, d, deck, first_seat, check, out_side, out_deal, mscore, dm
):
    rngs = np.zeros((4, 4), np.uint64)
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((rp[R_N_SIDES], N_KINDS), np.int16)
    pack = _pack_counts(rp)
    scr = new_state_nb(1, rp[R_N_SIDES])
    acts2 = np.zeros(512, np.int32)
    _play_one(
        st, rp, sids, prm, master_seed, d, deck, first_seat, rngs, acts, pub, hidden, pack, check, scr, acts2,
        mscore, dm,
    )  # fmt: skip
    record(st, rp, out_side, out_deal)


@njit(cache=True)
def _play_position_nb(st, rp, sids, prm, master_seed, d, check, pack, out_side, out_deal):
    rngs = np.zeros((4, 4), np.uint64)
    for seat in range(rp[R_N_SEATS]):
        seed_stream(rngs[seat], master_seed, d, STREAM_SEAT0 + seat)
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((rp[R_N_SIDES], N_KINDS), np.int16)
    scr = new_state_nb(1, rp[R_N_SIDES])
    acts2 = np.zeros(512, np.int32)
    play_deal(st, rp, sids, prm, rngs, acts, pub, hidden, pack, check, scr, acts2)
    record(st, rp, out_side, out_deal)


@njit(cache=True)
def _deal_deck_nb(rp, master_seed, d):
    pack_n = 104 + rp[R_N_JOKERS]
    deck = np.zeros(pack_n, np.int16)
    srng = np.zeros(4, np.uint64)
    seed_stream(srng, master_seed, d, STREAM_SHUFFLE)
    shuffle_deck(srng, pack_n, deck)
    return deck


# ---- Python side -------------------------------------------------------------------


def _seat_arrays(strategies, rules: Rules) -> tuple[np.ndarray, np.ndarray, list[SeatStrategy]]:
    """Strategy id and parameter row per seat (``int64[4]``, ``float64[4, N_PARAMS]``) from one
    strategy per side (``rules.n_sides``: 2, or 3 in tranca-3p); rows past the table's seats are
    unused.  A single name or spec plays every side; with three sides, two strategies mean that
    side C plays side B's (as the CLI's ``--side-c`` default)."""
    n_sides = rules.n_sides
    plug = plugged()
    if isinstance(strategies, (str, plug.spec_type)):
        strategies = (strategies,) * n_sides
    specs = [plug.resolve(s, preset=rules.name) for s in strategies]  # preset: defaults of `tuned`
    if n_sides == 3 and len(specs) == 2:
        specs.append(specs[1])
    if len(specs) != n_sides:
        raise ValueError(f"give one strategy per side ({n_sides} for {rules.name}), got {len(specs)}")
    plug.check_rules(specs, rules)
    sids = np.zeros(4, dtype=np.int64)
    prm = np.zeros((4, N_PARAMS), dtype=np.float64)
    for s in range(rules.n_seats):
        sids[s] = specs[rules.side_of(s)].sid
        prm[s] = specs[rules.side_of(s)].params
    return sids, prm, specs


def _check_seed(master_seed: int) -> int:
    if not isinstance(master_seed, (int, np.integer)) or not 0 <= int(master_seed) <= MAX_SEED:
        raise ValueError(f"seed must be an integer in 0..2**63-1, got {master_seed!r}")
    return int(master_seed)


def columns_from_outputs(out_side: np.ndarray, out_deal: np.ndarray, start: int) -> dict[str, np.ndarray]:
    """Named columns (length ``n_sides * n_deals``, deal-major) from the kernel outputs
    ``out_side int32[n_deals, n_sides, OS_LEN]`` (2 sides, or 3 in tranca-3p) and
    ``out_deal int32[n_deals, OD_LEN]``.  ``won``: the side scored strictly more than every
    other side."""
    n, ns = out_side.shape[0], out_side.shape[1]
    flat = out_side.reshape(ns * n, S.OS_LEN)
    cols: dict[str, np.ndarray] = {
        "deal_index": np.repeat(np.arange(start, start + n, dtype=np.int64), ns),
        "side": np.tile(np.arange(ns, dtype=np.int8), n),
    }
    for name, slot in S.SIDE_SLOTS.items():
        cols[name] = flat[:, slot].copy()
    score = out_side[:, :, S.OS_SCORE]
    won = np.ones((n, ns), dtype=bool)
    for a in range(ns):
        for b in range(ns):
            if a != b:
                won[:, a] &= score[:, a] > score[:, b]
    cols["won"] = won.reshape(-1)
    for name, slot in S.DEAL_SLOTS.items():
        cols[name] = np.repeat(out_deal[:, slot], ns)
    cols["end_reason"] = np.repeat(out_deal[:, S.OD_END_REASON].astype(np.int8), ns)
    cols["invariant_errors"] = np.repeat(out_deal[:, S.OD_ERRORS], ns)
    cols["meld_full"] = np.repeat(out_deal[:, S.OD_MELD_FULL], ns)
    cols["illegal_choices"] = flat[:, S.OS_ILLEGAL].copy()
    return cols


def simulate_chunk(
    rules: Rules,
    strategies: Sequence[str | SeatStrategy] | str,
    master_seed: int,
    start: int,
    count: int,
    check: bool = False,
) -> dict[str, np.ndarray]:
    """Play deals ``start .. start+count-1`` of a run in parallel.

    Parameters
    ----------
    rules : Rules
        The rule set (validated here).
    strategies : (side A, side B) or (side A, side B, side C)
        Strategy names/specs (``"basic"``, ``"basic:wild_reserve=1"``), one per
        side (``rules.n_sides``); in partnerships side A plays seats 0 and 2,
        side B seats 1 and 3; a solo player's side is its seat.  One string =
        every side; two for three sides = side C plays side B's strategy.
    master_seed : int
        0 .. 2**63-1.
    start, count : int
        First deal index (>= 0) and number of deals (>= 1).
    check : bool
        Run the invariant checks after every action (slower); violations are
        counted in the ``invariant_errors`` column.

    Returns
    -------
    dict of numpy arrays, each of length ``n_sides * count`` (row ``n_sides*i``
    is side A of deal ``start + i``, the next row side B, then side C in tranca-3p): the per-row columns of
    :data:`tranca_sim.schema.COLUMNS` except the run-level ones (preset,
    master_seed, strategy, strategy_params, version), plus
    ``invariant_errors`` and ``meld_full`` (diagnostics, 0 in a sound run)
    and ``illegal_choices`` (per side: the strategy's answers outside the
    legal choices, each replaced by the first legal choice; 0 for the
    built-in strategies).
    ``end_reason`` is ``int8`` codes into :data:`tranca_sim.engine.state.END_REASONS`.

    Raises
    ------
    RulesError, StrategyError, ValueError
        For bad rules, strategies, seed, start or count.
    """
    rp = rules.to_array()
    sids, prm, _ = _seat_arrays(strategies, rules)
    seed = _check_seed(master_seed)
    if int(count) < 1 or int(start) < 0:
        raise ValueError(f"need start >= 0 and count >= 1, got start={start}, count={count}")
    out_side = np.zeros((count, rules.n_sides, S.OS_LEN), dtype=np.int32)
    out_deal = np.zeros((count, S.OD_LEN), dtype=np.int32)
    args = (rp, sids, prm, np.uint64(seed), np.int64(start))
    in_threads(
        lambda lo, hi: _simulate_nb(*args, np.int64(lo), np.int64(hi), bool(check), out_side, out_deal, *_kernel_scratch(rules)),
        int(count),
        BLOCK * 4,
    )  # fmt: skip
    return columns_from_outputs(out_side, out_deal, int(start))


def deck_of(rules: Rules, master_seed: int, deal_index: int) -> list[int]:
    """The shuffled pack of deal ``deal_index`` as card kinds, position 0 = top."""
    return [
        int(k)
        for k in _deal_deck_nb(rules.to_array(), np.uint64(_check_seed(master_seed)), np.int64(deal_index))
    ]


def _as_deck(rules: Rules, deck) -> np.ndarray:
    kinds = [
        parse(c) if isinstance(c, str) else int(c) for c in (deck.split() if isinstance(deck, str) else deck)
    ]
    arr = np.array(kinds, dtype=np.int16)
    want = np.zeros(N_KINDS, dtype=np.int64)
    want[:52] = 2
    want[52] = rules.n_jokers
    got = np.bincount(arr.astype(np.int64), minlength=N_KINDS)[:N_KINDS] if len(arr) else np.zeros(N_KINDS)
    if len(arr) != rules.pack_size or (got != want).any():
        raise ValueError(
            f"a stacked deck for {rules.name} must hold the {rules.pack_size}-card pack exactly once "
            f"(got {len(arr)} cards)"
        )
    return arr


def play_deck(
    rules: Rules,
    deck,
    strategies=("basic", "basic"),
    first_seat: int = 0,
    master_seed: int = 0,
    deal_index: int = 0,
    check: bool = True,
    log: bool = False,
    match_scores=None,
    deal_in_match: int = 0,
) -> tuple[State, dict[str, np.ndarray]]:
    """Play one deal from a stacked deck (card kinds or notations, position 0 = top).

    ``match_scores`` (one int per side, default zeros) are the sides' match scores before the
    deal and ``deal_in_match`` its number in the match: strategies see them, and they set each
    side's minimum first meld (E25, :func:`set_match_facts`).

    Returns the final :data:`State` and the output rows (one per side) as columns
    (see :func:`simulate_chunk`).  Used by the rule tests, and with ``log``
    (the action log recorded in ``State.log``) by :mod:`tranca_sim.engine.log`.

    Raises
    ------
    ValueError
        If ``deck`` is not exactly the preset's pack.
    """
    rp = rules.to_array()
    arr = _as_deck(rules, deck)
    sids, prm, _ = _seat_arrays(strategies, rules)
    st = new_state(rules.n_sides)
    st.sc[SC_LOG_ON] = 1 if log else 0
    out_side = np.zeros((1, rules.n_sides, S.OS_LEN), dtype=np.int32)
    out_deal = np.zeros((1, S.OD_LEN), dtype=np.int32)
    mscore = np.zeros(st.ss.shape[0], dtype=np.int64)
    if match_scores is not None:
        mscore[: len(match_scores)] = np.asarray(match_scores, dtype=np.int64)
    seed = np.uint64(_check_seed(master_seed))
    off_main_thread(lambda: _play_stacked_nb(
        st, rp, sids, prm, seed, np.int64(deal_index), arr,
        np.int64(first_seat), bool(check), out_side[0], out_deal[0], mscore, np.int64(deal_in_match),
    ))  # fmt: skip
    return st, columns_from_outputs(out_side, out_deal, deal_index)


def play_position(
    rules: Rules,
    st: State,
    strategies=("basic", "basic"),
    master_seed: int = 0,
    deal_index: int = 0,
    check: bool = True,
) -> dict[str, np.ndarray]:
    """Play on from a hand-made position ``st`` (modified in place) to the end of the deal.

    The invariant checks (``check``) compare with the cards the position
    starts with, so a position need not hold the whole pack.  Returns the
    output rows (one per side) as columns (see :func:`simulate_chunk`).
    """
    from .positions import counts

    rp = rules.to_array()
    pack = np.zeros((2, N_KINDS), dtype=np.int64)
    pack[0] = counts(st)
    sids, prm, _ = _seat_arrays(strategies, rules)
    if st.ss.shape[0] != rules.n_sides:
        raise ValueError(f"the position has {st.ss.shape[0]} sides, {rules.name} plays {rules.n_sides}")
    out_side = np.zeros((1, rules.n_sides, S.OS_LEN), dtype=np.int32)
    out_deal = np.zeros((1, S.OD_LEN), dtype=np.int32)
    _play_position_nb(
        st, rp, sids, prm, np.uint64(_check_seed(master_seed)), np.int64(deal_index), bool(check), pack,
        out_side[0], out_deal[0],
    )  # fmt: skip
    return columns_from_outputs(out_side, out_deal, deal_index)


__all__ = ["deck_of", "play_deck", "play_position", "simulate_chunk"]
