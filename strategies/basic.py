"""``basic``: a sensible heuristic player, and every tip of the rule guides as one of its parameters.

The baseline (all defaults) takes the pile when it can use the top card and
the pile holds at least ``take_pile_min`` cards, lays every natural it can
(extensions first, then new melds of three naturals), starts melds with two
naturals and a wild, puts a wild on a meld only to complete a canasta or to
empty its hand (morto or going out) and on a clean canasta only when nothing
else empties the hand, goes out as soon as it may, never
discards a wild unless it holds nothing else, and discards its least useful
card (singletons before pairs, low before high).  With an open pile it takes a pile of
two cards or more, and a one-card pile only when it can meld that card at once (no
pointless swaps, so it never stalls a deal; E13, E14).  Under a minimum first meld (004
variation, E25) it chooses among the openings the engine lists and, once it has started one,
finishes it (:func:`tranca_sim.engine.obs.must_meld_on`).  Every tip is **off** in the
baseline; each tip parameter switches on exactly one tip of the seeds and
leaves everything else as in the baseline.  ``TIPS`` below lists, for each
tip, the setting that follows it and the baseline's setting (machine
readable, for the experiment runner); docs/strategies.md explains each one,
and says which is the morto-timing sweep.

Tips (seed ``000_95ec226e9cdd732e.txt`` "Tips and Strategy", bullets 1-6;
seed ``004_083ae37bb3863d19.txt`` "Tips to play better", bullets 1-6):

``morto_stock`` (000 tip 1, 004 tip 5; *late* morto)
    The morto gives the side eleven new cards but starts the clock; waiting
    keeps flexibility.  With ``morto_stock = K`` the player, while its side's
    morto waits and the stock holds more than K cards, never melds its hand
    below two cards (so neither a meld nor its discard empties the hand and
    takes the morto).  108 (default) = never holds back: the baseline's
    earliest pickup.  The morto-timing sweep parameter.
``morto_melds`` (000 tip 1; *late*, by progress)
    N > 0: as ``morto_stock``, holding back while the side has fewer than N
    melds on the table.  0 = off.
``morto_rush`` (000 tip 1, 004 tip 5; *early*)
    1: while the side's morto waits, empty the hand as fast as possible: once
    no new meld is left to start (a wild with a pair lays three cards), put
    the remaining wilds on any meld; ignore every holding tip.  0 = off.
``black3_lock`` (000 tip 2)
    Lock the pile with a black 3 when the card on top would complete (or let
    the next player capture with) an opposing meld.  1: black 3s are kept as
    defensive cards, and discarded exactly when the card the player would
    otherwise discard fits an opposing meld (the next player could take the
    pile by extending it, or complete a canasta with it) or is of a rank the
    next player took from the pile.  0 (baseline): a black 3 is ordinary junk,
    discarded like a lone five-point card.
``clean_patience`` (000 tip 3)
    A clean canasta (200) is worth delaying a turn for over a dirty one
    (100).  N > 0: no wild goes on a clean meld of ``canasta_size - 2`` or
    more cards (5-6 in Tranca) until it has gone N of the side's turns without
    growing (``MH_GREW``); 0 = off.
``keep_clean`` (000 tip 3, 004 tip 2)
    1: never put a wild on the side's last clean meld (while it has no clean
    canasta): at least one meld stays free of wilds.  0 = off.
``wild_reserve`` (000 tip 4)
    Keep one wild as a meld starter for when the pile is locked, and spend it
    only when close to going out.  1: the player's last wild is not put on a
    meld, nor used to take the pile, except to start a new meld while the pile
    is locked, or when close to emptying the hand: it may empty it (to take
    the morto, or to go out) and holds at most 4 cards.  Read strictly
    ("going out" only), the reserved wild can never be played before the
    morto, so the seat holding it cannot empty its first hand at all
    (docs/strategies.md, "What the tips measure").  0 = off.
``red3_pace`` (000 tip 5)
    Red 3s are +100 each with a canasta, -100 without.  1: while the side has
    red 3s and no canasta it hurries to a canasta (takes any usable pile,
    lays everything, dirty canastas welcome); while the side may go out and
    the opponents hold red 3s without a canasta (each still -100 for them;
    they cannot go out), it holds back from going out as long as the stock
    has more than 10 cards.  0 = off.
``partner`` (000 tip 6)
    1: never open a second meld of a rank the side already has (extend it
    instead, feeding the partner's meld) and, in discards, keep cards of the
    side's meld ranks.  0 (baseline): the player looks only at its own hand:
    three naturals of a rank become a new meld even when the side has one of
    that rank, and discards ignore the side's melds.
``long_meld`` (004 tip 1)
    One long meld is worth more than several short ones.  N > 0: no new meld
    while the side has N or more melds that are not yet canastas; 0 = off.
``pile_fit`` (004 tip 3)
    Look at the pile before drawing: every card taken that is not melded
    counts against you.  f > 0: a pile of 5 or more cards is taken only if at
    least a share f of its cards fit (a wild, a card of a rank the side has
    melded, or a card that makes three of its rank with the hand and the
    pile).  0 = off.
``safe_discard`` (004 tip 4)
    Avoid discarding a card that fits the opponents' melds or that they
    picked up.  1: a rank the opponents have melded counts +60 towards
    keeping the card, a rank either opponent took from the pile +30 (more
    than a pair is worth: the player breaks a pair rather than feed them).
    0 = off.
``endgame_lay`` (004 tip 6)
    Near the end, lay down what you can.  1: when the stock has 10 cards or
    fewer, or an opponent side may go out and one of its players holds 3 cards
    or fewer, the player lays every legal meld including wild extensions and
    ignores every holding tip.  0 = off.

Face-up mortos (seed 000 "Common Variations", "Tranca Aberta": the mortos are
dealt face up and both sides know what is waiting; preset ``tranca-aberta``).
Face-down mortos are never in ``obs`` (zeros), so in every other preset these
switches have no effect (strategies/basic_aberta.py):

``morto_seen`` (default 1)
    1: once the opponents have taken their face-up morto, a rank of which it
    held two or more naturals counts +30 towards keeping a card of that rank
    in the discard (as a rank an opponent took from the pile does under
    ``safe_discard``): one of them may hold the pair and take the pile with
    it.  0 = ignore the face-up mortos in the discard.
``aberta_rush`` (default 0)
    1: while the side's own morto waits face up and is strong (2 or more
    wilds, or 3 or more cards that fit: wilds plus naturals of ranks the side
    has a meld of), empty the first hand as fast as possible, exactly as
    ``morto_rush=1`` does; a weak morto changes nothing.  Off by default: it
    costs points (docs/strategies.md, "Face-up mortos").

Other parameters: ``take_pile_min`` (the pile is taken only if it holds at
least this many cards; in presets with runs where going out needs a clean
canasta, ``buraco``, ``tranca-br`` and ``tranca-sp``, ``run_pile_min`` takes its
place, default 1: a pile as small as one card is taken when its top card can be
melded, since the one card a clean run needs is rarely drawn; measured in
docs/strategies.md), ``run_pile_share`` (open pile, runs only: the pile is taken
only when its top card fits the side's runs or the hand and at least this share
of its cards fit, default 0.25; wilds fit where ``max_wilds`` is above 0), ``run_clean_first``
(runs and a clean canasta to go out, default 1: while the side has no clean canasta no wild goes
on one of its clean runs and no run is started with a wild, unless it empties the hand for the
morto), ``out_pile_max`` (runs and a clean canasta to go out, default 1: a player whose side may
go out and who holds 3 cards or fewer takes a pile of at most this many cards; 108 = any; both
measured in docs/strategies.md), ``go_out`` (1 go out as soon as allowed; 0 hold while
other moves exist), ``wild_melds`` (start melds with two naturals and a
wild).  Handicaps, for testing that the baseline is competent:
``never_pile`` (never takes the pile while the stock has cards),
``never_wild`` (never melds a wild), ``never_out`` (never goes out: keeps two
cards while the side may go out).  ``redraw`` (default 1): at the first
player's redraw of seed 003 (rule ``first_player_redraw``) throw back a drawn card that fits
nothing in the hand (strategies/basic_redraw.py); 0 always keeps it.
"""

from collections import namedtuple

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from strategies.basic_aberta import morto_strong, opp_morto_pairs
from strategies.basic_redraw import card_useful
from tranca_sim.engine.cards import JOKER
from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import is_black3, is_wild, n_naturals, n_twos
from tranca_sim.engine.obs import (
    A_BLACK3,
    A_CAP_EXT,
    A_CAP_NEW,
    A_CAP_OPEN,
    A_CAP_RUN,
    A_EXT,
    A_NEW,
    A_RUN_EXT,
    A_RUN_NEW,
    A_RUN_SWAP,
    A_STOCK,
    C_NAT,
    CAPNEW_2NAT,
    NEW_3NAT,
    RUN_3NAT,
    PUB_CAN_EMPTY,
    PUB_CANASTAS,
    PUB_CLEAN,
    PUB_HAND_N,
    PUB_LOCKED,
    PUB_MELD_MIN,
    PUB_MORTO,
    PUB_N_MELDS,
    PUB_N_SEATS,
    PUB_N_SIDES,
    PUB_NO_DISCARD,
    PUB_PILE_N,
    PUB_PILE_TOP,
    PUB_RED3,
    PUB_REDRAW_CARD,
    PUB_SEAT,
    PUB_SIDE,
    PUB_STOCK_N,
    PUB_TURN,
    act_type,
    act_x,
    act_y,
    must_meld_on,
    next_seat,
    seat_side,
)
from tranca_sim.engine.runs import hand_bits
from tranca_sim.engine.state import (
    MH_GREW,
    MH_HI,
    MH_LO,
    MH_N,
    MH_RANK,
    MH_SUIT,
    MH_TYPE,
    MH_WILD,
    MS_STOCK,
    MS_WAITING,
    MT_BLACK3,
    MT_RUN,
    MT_SET,
)
from tranca_sim.rules import (
    R_CANASTA_SIZE,
    R_GO_OUT_CLEAN,
    R_MAX_WILDS,
    R_MELD_RUNS,
    R_MELD_SETS,
    R_MORTO_SIZE,
    R_MORTO_STOCK_TAKEN,
    R_MORTOS_FACE_UP,
    R_SEVERAL_RUNS,
    R_STOCK_OUT,
    R_THREES_SPECIAL,
    R_VALUES,
)

NAME = "basic"
DOC = "heuristic player; every rule-guide tip is a parameter (all off by default)"
# (name, default, doc, lowest, highest, kind); kind: "switch" (0/1), "int" or "real"
PARAMS = (
    ("take_pile_min", 3.0, "take the pile only if it holds at least this many cards", 0, 108, "int"),
    (
        "wild_reserve",
        0.0,
        "000 tip 4: keep the last wild unless starting a meld on a locked pile or close to going out",
        0,
        1,
        "switch",
    ),
    (
        "clean_patience",
        0.0,
        "000 tip 3: side turns to wait for a natural before a wild on a clean 5-6 card meld",
        0,
        50,
        "int",
    ),
    (
        "black3_lock",
        0.0,
        "000 tip 2: keep black 3s; discard one when the other discard would feed an opposing meld",
        0,
        1,
        "switch",
    ),
    ("safe_discard", 0.0, "004 tip 4: avoid discarding ranks the opponents melded or took", 0, 1, "switch"),
    ("go_out", 1.0, "go out as soon as allowed (0: hold while other moves exist)", 0, 1, "switch"),
    ("wild_melds", 1.0, "start melds with two naturals and a wild", 0, 1, "switch"),
    (
        "morto_stock",
        108.0,
        "000 tip 1 (late): hold the morto while the stock has more cards than this",
        0,
        108,
        "int",
    ),
    ("morto_melds", 0.0, "000 tip 1 (late): hold the morto until the side has this many melds", 0, 24, "int"),
    (
        "morto_rush",
        0.0,
        "000 tip 1 / 004 tip 5 (early): empty the first hand as fast as possible",
        0,
        1,
        "switch",
    ),
    ("keep_clean", 0.0, "000 tip 3 / 004 tip 2: never dirty the side's last clean meld", 0, 1, "switch"),
    (
        "red3_pace",
        0.0,
        "000 tip 5: hurry to a canasta with red 3s; hold going out while opponents' red 3s are unpaid",
        0,
        1,
        "switch",
    ),
    ("partner", 0.0, "000 tip 6: no second meld of a side rank; feed the side's melds", 0, 1, "switch"),
    ("long_meld", 0.0, "004 tip 1: no new meld while the side has this many unfinished melds", 0, 24, "int"),
    ("pile_fit", 0.0, "004 tip 3: take a pile of 5+ cards only if this share of it fits", 0, 1, "real"),
    ("endgame_lay", 0.0, "004 tip 6: near the end of the deal lay down everything", 0, 1, "switch"),
    ("never_pile", 0.0, "handicap: never take the pile while the stock has cards", 0, 1, "switch"),
    ("never_wild", 0.0, "handicap: never meld a wild", 0, 1, "switch"),
    ("never_out", 0.0, "handicap: never go out", 0, 1, "switch"),
    (
        "morto_seen",
        1.0,
        "000 Tranca Aberta: keep ranks the opponents' face-up morto brought in pairs (no effect face down)",
        0,
        1,
        "switch",
    ),
    (
        "aberta_rush",
        0.0,
        "000 Tranca Aberta: empty the first hand fast while the own face-up morto is strong",
        0,
        1,
        "switch",
    ),
    (
        "redraw",
        1.0,
        "003 first-player redraw: throw back a drawn card that fits nothing in the hand (0: always keep)",
        0,
        1,
        "switch",
    ),
    (
        "run_pile_min",
        1.0,
        "runs and a clean canasta to go out: take the pile only if it holds this many cards (for take_pile_min)",
        0,
        108,
        "int",
    ),
    (
        "run_pile_share",
        0.25,
        "open pile, runs only: take the pile only if this share of its cards fits the side's runs or hand",
        0,
        1,
        "real",
    ),
    (
        "run_clean_first",
        1.0,
        "runs and a clean canasta to go out: no wild on a clean run while the side has no clean canasta",
        0,
        1,
        "switch",
    ),
    (
        "out_pile_max",
        1.0,
        "runs and a clean canasta to go out: a player of a side that may go out holding 3 cards or fewer takes a pile of at most this many cards (108: any)",
        0,
        108,
        "int",
    ),
)
# The tuner's search space (``tranca-sim tune``, tranca_sim/lab/tune.py, strategies/search.py):
# ``(parameter, lowest, highest[, rule])`` or ``(parameter, (value, ...)[, rule])``, the kind (switch,
# int, real) taken from PARAMS; a range narrower than the parameter's own where the rest plays the
# same or is a handicap; ``rule``: searched only when that rule option of the preset is on. The
# handicaps (never_pile, never_wild, never_out) are not searched.
SEARCH = (
    ("take_pile_min", 1, 8),
    ("wild_reserve", 0, 1),
    ("clean_patience", 0, 4),
    ("black3_lock", 0, 1),
    ("safe_discard", 0, 1),
    ("go_out", 0, 1),
    ("wild_melds", 0, 1),
    ("morto_stock", (108, 40, 35, 30, 25, 20, 15, 10, 5, 0)),  # MORTO_SWEEP's grid; 108: never holds
    ("morto_melds", 0, 6),
    ("morto_rush", 0, 1),
    ("keep_clean", 0, 1),
    ("red3_pace", 0, 1),
    ("partner", 0, 1),
    ("long_meld", 0, 8),
    ("pile_fit", 0.0, 1.0),
    ("endgame_lay", 0, 1),
    ("morto_seen", 0, 1, "mortos_face_up"),
    ("aberta_rush", 0, 1, "mortos_face_up"),
    ("redraw", 0, 1, "first_player_redraw"),
    ("run_pile_min", 1, 8, "go_out_needs_clean"),
    ("run_pile_share", 0.0, 1.0, "meld_runs"),
    ("run_clean_first", 0, 1, "go_out_needs_clean"),
    ("out_pile_max", 0, 8, "go_out_needs_clean"),
)
P_TAKE_PILE_MIN = 0
P_WILD_RESERVE = 1
P_CLEAN_PATIENCE = 2
P_BLACK3_LOCK = 3
P_SAFE_DISCARD = 4
P_GO_OUT = 5
P_WILD_MELDS = 6
P_MORTO_STOCK = 7
P_MORTO_MELDS = 8
P_MORTO_RUSH = 9
P_KEEP_CLEAN = 10
P_RED3_PACE = 11
P_PARTNER = 12
P_LONG_MELD = 13
P_PILE_FIT = 14
P_ENDGAME_LAY = 15
P_NEVER_PILE = 16
P_NEVER_WILD = 17
P_NEVER_OUT = 18
P_MORTO_SEEN = 19
P_ABERTA_RUSH = 20
P_REDRAW = 21
P_RUN_PILE_MIN = 22
P_RUN_PILE_SHARE = 23
P_RUN_CLEAN_FIRST = 24
P_OUT_PILE_MAX = 25

# For each tip: (parameter, value that follows the tip, baseline's value, seed tip, one line).
TIPS = (
    (
        "morto_stock",
        "20",
        "108",
        "000 tip 1; 004 tip 5",
        "late morto: hold the morto until the stock has 20 cards or fewer",
    ),
    ("morto_melds", "3", "0", "000 tip 1", "late morto: hold the morto until the side has 3 melds"),
    ("morto_rush", "1", "0", "000 tip 1; 004 tip 5", "early morto: empty the first hand as fast as possible"),
    (
        "black3_lock",
        "1",
        "0",
        "000 tip 2",
        "discard a black 3 when the other discard would feed an opposing meld",
    ),
    (
        "clean_patience",
        "2",
        "0",
        "000 tip 3",
        "wait 2 side turns for a natural before dirtying a clean 5-6 card meld",
    ),
    ("keep_clean", "1", "0", "000 tip 3; 004 tip 2", "never put a wild on the side's last clean meld"),
    (
        "wild_reserve",
        "1",
        "0",
        "000 tip 4",
        "keep one wild for a locked pile; spend it only close to going out",
    ),
    (
        "red3_pace",
        "1",
        "0",
        "000 tip 5",
        "red 3s set the pace: hurry without a canasta, hold while opponents' are unpaid",
    ),
    ("partner", "1", "0", "000 tip 6", "no second meld of a rank the side has; feed the side's melds"),
    ("long_meld", "2", "0", "004 tip 1", "one long meld over several short ones: at most 2 unfinished melds"),
    ("pile_fit", "0.5", "0", "004 tip 3", "take a pile of 5+ cards only if half of it fits"),
    (
        "safe_discard",
        "1",
        "0",
        "004 tip 4",
        "avoid discarding cards that fit the opponents' melds or that they took",
    ),
    ("endgame_lay", "1", "0", "004 tip 6", "near the end of the deal lay down everything"),
)
MORTO_SWEEP = ("morto_stock", (108, 40, 35, 30, 25, 20, 15, 10, 5, 0))  # earliest ... latest

PILE_BIG = 5  # pile_fit: a "big" pile has at least this many cards
CLOSE_HAND = 4  # wild_reserve: "close" = the player may empty its hand (morto or going out), <= 4 cards
END_STOCK = 10  # endgame_lay, red3_pace: "near the end" = the stock has <= 10 cards
END_HAND = 3  # endgame_lay: an opponent who may go out holds <= 3 cards
OUT_HAND = 3  # out_pile_max: a player "about to go out" holds <= 3 cards before its draw


@njit(cache=True, inline="always")
def _wilds(hand):
    return n_twos(hand) + hand[JOKER]


@njit(cache=True, inline="always")
def _may_go_out(obs, side):
    """Has ``side`` taken its morto and made the canasta the rules ask for going out?"""
    ms = obs.pub[PUB_MORTO + side]
    if ms == MS_WAITING or (ms == MS_STOCK and obs.rp[R_MORTO_STOCK_TAKEN] == 0):
        return False  # E23: a morto that became the stock was never taken
    if obs.rp[R_GO_OUT_CLEAN] != 0:
        return obs.pub[PUB_CLEAN + side] > 0
    return obs.pub[PUB_CANASTAS + side] > 0


@njit(cache=True, inline="always")
def _set_ranks(obs, side):
    """Bit ``r`` set: ``side`` has a same-rank meld of rank ``r``."""
    bits = 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] == MT_SET:
            bits |= 1 << obs.mh[side, m, MH_RANK]
    return bits


@njit(cache=True, inline="always")
def stock_left(obs):
    """Cards still to be drawn: the stock, and with ``stock_out = 1`` (004) the untaken mortos
    that will become the stock."""
    n = obs.pub[PUB_STOCK_N]
    if obs.rp[R_STOCK_OUT] != 0:
        for sd in range(2):
            if obs.pub[PUB_MORTO + sd] == MS_WAITING:
                n += obs.rp[R_MORTO_SIZE]
    return n


@njit(cache=True, inline="always")
def _near_end(obs, side):
    """004 tip 6 "near the end of the round": few stock cards, or an opponent about to go out."""
    if stock_left(obs) <= END_STOCK:
        return True
    for s in range(obs.pub[PUB_N_SEATS]):
        o = seat_side(obs, s)
        if o != side and obs.pub[PUB_HAND_N + s] <= END_HAND and _may_go_out(obs, o):
            return True
    return False


@njit(cache=True, inline="always")
def _opp_red3_unpaid(obs, side):
    """An opposing side holds red 3s without a canasta (each still -100 for it, 000 Gameplay 5)."""
    for o in range(obs.pub[PUB_N_SIDES]):
        if o != side and obs.pub[PUB_RED3 + o] > 0 and obs.pub[PUB_CANASTAS + o] == 0:
            return True
    return False


@njit(cache=True, inline="always")
def _red3_hurry(prm, obs, side):
    return prm[P_RED3_PACE] != 0.0 and obs.pub[PUB_RED3 + side] > 0 and obs.pub[PUB_CANASTAS + side] == 0


@njit(cache=True, _nrt=False)
def pile_fit_share(obs):
    """Share of the pile's cards that fit (004 tip 3): wilds, ranks the side has melded, and
    ranks of which hand and pile together hold three or more naturals.  0.0 for an empty pile."""
    pn = obs.pub[PUB_PILE_N]
    if pn == 0:
        return 0.0
    side = obs.pub[PUB_SIDE]
    own = _set_ranks(obs, side)
    special = obs.rp[R_THREES_SPECIAL] != 0
    cnt = 0  # 4 bits per rank: naturals of that rank in the pile
    for i in range(pn):
        k = obs.pile[i]
        if not is_wild(k):
            cnt += 1 << (4 * (k % 13 + 1))
    fit = 0
    for i in range(pn):
        k = obs.pile[i]
        if is_wild(k):
            fit += 1
        elif special and is_black3(k):
            continue
        else:
            r = k % 13 + 1
            if own & (1 << r) or n_naturals(obs.hand, r) + ((cnt >> (4 * r)) & 15) >= 3:
                fit += 1
    return fit / pn


@njit(cache=True, _nrt=False, forceinline=True)
def _open_pile_fits_runs(prm, obs):
    """Runs only (``meld_sets`` off, open ``buraco``): every card taken that is not melded counts
    against the side and keeps its hand from emptying (004 tip 3), so the open pile is taken
    only when its top card fits the side's runs or the hand (:func:`_run_keep` above 0) and at least the
    share ``run_pile_share`` of its cards do (wilds fit where ``max_wilds`` is above 0)."""
    pn = obs.pub[PUB_PILE_N]
    t = obs.pub[PUB_PILE_TOP]
    side = obs.pub[PUB_SIDE]
    wilds_play = obs.rp[R_MAX_WILDS] > 0  # max_wilds = 0: a 2 is only the natural of its own place
    if t < 0:
        return False
    fm, run_ends, held = _run_fit_mask(obs, side, wilds_play)
    if not (fm >> t) & 1:  # (wilds_play and is_wild(t)) or _run_keep(obs, side, t) > 0
        return False
    if pn == 1:
        # as with sets: a one-card pile only when its card is melded this turn (no swaps, E13)
        hn = obs.pub[PUB_HAND_N + obs.pub[PUB_SEAT]]
        room = obs.pub[PUB_CAN_EMPTY] != 0
        if is_wild(t) or not (hn >= 4 or room):
            return False
        # the natural t can be melded at once in a run: onto an end of one of the side's runs of its
        # suit that no run covers (the fit mask's run ends: _run_keep 50 or more; the hand's
        # neighbours add at most 46), or with two naturals of its suit from the hand (t-2 t-1, t-1 t+1
        # or t+1 t+2; the ace high above the K, low below the 2), read from the hand's bits
        if (run_ends >> t) & 1:
            return True
        up1, dn1, up2, dn2 = _nb_planes(held)  # rank r + 1 held, r - 1, r + 2, r - 2 (none for the ace)
        return ((((dn2 & dn1) | (dn1 & up1) | (up1 & up2)) >> t) & 1) != 0
    fit = 0
    for i in range(pn):
        fit += (fm >> obs.pile[i]) & 1  # _run_keep of the card above 0, or a wild where wilds play
    return fit >= prm[P_RUN_PILE_SHARE] * pn


@njit(cache=True, _nrt=False, forceinline=True)
def _open_pile_useful(prm, obs):
    """An open pile of two cards or more is always worth taking; a one-card pile only when its
    card can be melded this turn (onto a side set of its rank, or with two naturals from the hand)
    while keeping two cards (E6).  Taking a one-card pile only to swap a card would make no
    progress: two such players could pass cards round the table while the stock never shrinks."""
    if obs.rp[R_MELD_SETS] == 0:
        return _open_pile_fits_runs(prm, obs)
    if obs.pub[PUB_PILE_N] >= 2:
        return True
    t = obs.pub[PUB_PILE_TOP]
    if t < 0 or is_wild(t) or is_black3(t):
        return False
    r = t % 13 + 1
    side = obs.pub[PUB_SIDE]
    hn = obs.pub[PUB_HAND_N + obs.pub[PUB_SEAT]]
    room = obs.pub[PUB_CAN_EMPTY] != 0
    if (hn >= 2 or room) and _set_ranks(obs, side) & (1 << r):
        return True
    return (hn >= 4 or room) and n_naturals(obs.hand, r) >= 2


# issue 9: a strategy call passes every array of its arguments as a struct of 7-11 words (the whole
# Obs, prm, acts and rng: about 86 words for choose_meld); the engine's turn spent about 6% of its
# time pushing them.  choose_draw, choose_meld and choose_discard are thin wrappers, compiled inline
# into their caller (the engine's turn), that pass the choice only the arrays it reads, as a smaller
# namedtuple (the helpers below take it as they take the Obs: they read only these fields).
MeldView = namedtuple("MeldView", ["hand", "pub", "mh", "rp"])
DiscardView = namedtuple("DiscardView", ["hand", "pub", "mh", "taken", "rp"])
DrawView = namedtuple("DrawView", ["hand", "pub", "pile", "mh", "rp"])


@njit(cache=True, _nrt=False, forceinline=True)
def choose_draw(prm, obs, acts, n, rng):
    # Most draws list the stock alone: this small function (compiled inline into the engine's
    # turn) answers those at once, without the call of the whole choice; the others pass the
    # choice only the arrays it reads (DrawView, as choose_meld does).
    if n == 1:
        return 0  # the stock alone, or (stock exhausted) the one capture: what _choose_draw picks
    return _choose_draw(prm, DrawView(obs.hand, obs.pub, obs.pile, obs.mh, obs.rp), acts, n)


@njit(cache=True, _nrt=False)
def _choose_draw(prm, obs, acts, n):
    side = obs.pub[PUB_SIDE]
    seat = obs.pub[PUB_SEAT]
    wild_ok = prm[P_NEVER_WILD] == 0.0
    if wild_ok and prm[P_WILD_RESERVE] != 0.0:
        close = obs.pub[PUB_CAN_EMPTY] != 0 and obs.pub[PUB_HAND_N + seat] <= CLOSE_HAND
        wild_ok = _wilds(obs.hand) >= 2 or close
    stock = -1
    best = -1
    best_score = -1
    for i in range(n):
        t = act_type(acts[i])
        if t == A_STOCK:
            stock = i
            continue
        s = 0
        if t == A_CAP_EXT:
            s = 3
        elif t == A_CAP_OPEN:
            s = 3 if _open_pile_useful(prm, obs) else 0
        elif t == A_CAP_NEW:
            s = 2 if act_y(acts[i]) == CAPNEW_2NAT else (1 if wild_ok else 0)
        elif t == A_CAP_RUN:
            s = 2 if act_y(acts[i]) == 0 else (1 if wild_ok else 0)
        if s > best_score:
            best_score = s
            best = i
    if stock < 0:
        return best  # stock exhausted: a capture is the only draw
    if best < 0 or best_score <= 0 or prm[P_NEVER_PILE] != 0.0:
        return stock
    pn = obs.pub[PUB_PILE_N]
    clean_runs = obs.rp[R_MELD_RUNS] != 0 and obs.rp[R_GO_OUT_CLEAN] != 0
    pmin = prm[P_RUN_PILE_MIN] if clean_runs else prm[P_TAKE_PILE_MIN]
    if obs.pub[PUB_N_SIDES] == 3 and pmin > 1.0:
        # tranca-3p: 41 stock cards for three solo players who each need their own canasta; the
        # pile is the other source of cards, so any usable pile is taken (docs/strategies.md)
        pmin = 1.0
    if pn < pmin and not _red3_hurry(prm, obs, side):
        return stock
    if (
        clean_runs
        and pn > prm[P_OUT_PILE_MAX]
        and obs.pub[PUB_HAND_N + seat] <= OUT_HAND
        and _may_go_out(obs, side)
    ):
        return stock  # out_pile_max: about to go out, a big pile would only refill the hand
    if prm[P_PILE_FIT] > 0.0 and pn >= PILE_BIG and pile_fit_share(obs) < prm[P_PILE_FIT]:
        return stock
    return best


@njit(cache=True, _nrt=False, forceinline=True)
def choose_meld(prm, obs, acts, n, rng):
    side = obs.pub[PUB_SIDE]
    # aberta_rush: the side's face-up morto (the one choice of the meld that reads the mortos)
    rush = prm[P_ABERTA_RUSH] != 0.0 and obs.pub[PUB_MORTO + side] == MS_WAITING and morto_strong(obs, side)
    best = _choose_meld(prm, MeldView(obs.hand, obs.pub, obs.mh, obs.rp), acts, n, rush)
    if best < 0 and obs.pub[PUB_MELD_MIN] > 0 and must_meld_on(obs):
        best = 0  # E25: a first meld short of the minimum is finished (the first listed action leads there)
    return best


@njit(cache=True, _nrt=False)
def _choose_meld(prm, obs, acts, n, rush):
    """:func:`choose_meld` on a :data:`MeldView` ``obs``; ``rush``: aberta_rush holds (the side's
    face-up morto is strong).  -1 when no action scores above 0."""
    side = obs.pub[PUB_SIDE]
    seat = obs.pub[PUB_SEAT]
    hn = obs.pub[PUB_HAND_N + seat]
    cs = obs.rp[R_CANASTA_SIZE]
    wilds = _wilds(obs.hand)
    morto_waiting = obs.pub[PUB_MORTO + side] == MS_WAITING
    may_empty = obs.pub[PUB_CAN_EMPTY] != 0
    can_out = _may_go_out(obs, side)
    n_melds = obs.pub[PUB_N_MELDS + side]
    stock_n = stock_left(obs)
    # ---- tips that lay everything ----
    lay_all = (prm[P_MORTO_RUSH] != 0.0 and morto_waiting) or _red3_hurry(prm, obs, side)
    if rush:
        lay_all = True  # Tranca Aberta: the side's face-up morto is worth hurrying for
    if prm[P_ENDGAME_LAY] != 0.0 and _near_end(obs, side):
        lay_all = True
    # ---- tips that hold back: cards that must stay in hand after a meld ----
    hold = 0
    if morto_waiting and not lay_all:
        if stock_n > prm[P_MORTO_STOCK] or n_melds < prm[P_MORTO_MELDS]:
            hold = 2
    if can_out:
        if prm[P_NEVER_OUT] != 0.0 or (
            prm[P_RED3_PACE] != 0.0 and _opp_red3_unpaid(obs, side) and stock_n > END_STOCK
        ):
            hold = 2
    close = may_empty and hn <= CLOSE_HAND  # wild_reserve: close to emptying the hand
    locked = obs.pub[PUB_LOCKED] != 0
    own = -1  # _set_ranks(obs, side), read by new melds only: computed at the first one
    n_clean = 0  # read by keep_clean only
    n_open = 0  # read by long_meld only
    for m in range(n_melds if prm[P_KEEP_CLEAN] != 0.0 or prm[P_LONG_MELD] > 0.0 else 0):
        if obs.mh[side, m, MH_TYPE] != MT_BLACK3:
            if obs.mh[side, m, MH_WILD] == 0:
                n_clean += 1
            if obs.mh[side, m, MH_N] < cs:
                n_open += 1
    turn = obs.pub[PUB_TURN]
    never_wild = prm[P_NEVER_WILD] != 0.0
    clean_runs = obs.rp[R_MELD_RUNS] != 0 and obs.rp[R_GO_OUT_CLEAN] != 0
    no_clean = clean_runs and obs.pub[PUB_CLEAN + side] == 0 and prm[P_RUN_CLEAN_FIRST] != 0.0
    reserve = prm[P_WILD_RESERVE] != 0.0 and wilds <= 1
    # what is the same for every listed action, read once (the loop below reads only the action
    # and, for an extension, its meld's row):
    empty_now = hn <= 2 and may_empty  # the meld may empty the hand (morto or going out)
    ext_ok = hn - 1 >= hold  # one card laid keeps the hand the holding tips ask for
    new_ok = hn - 3 >= hold and not (prm[P_LONG_MELD] > 0.0 and n_open >= prm[P_LONG_MELD] and not lay_all)
    # (long_meld: grow the melds on the table first)
    partner = prm[P_PARTNER] != 0.0
    new_wild = 0  # a new meld of two naturals and a wild (wild_melds; wild_reserve)
    if prm[P_WILD_MELDS] != 0.0 and not never_wild and not (reserve and not (close or locked)):
        new_wild = 10
    run_new_wild = new_wild
    if no_clean and not (hn <= 3 and may_empty):
        run_new_wild = 0  # run_clean_first: the naturals wait for a clean run
    black3 = 100 if prm[P_GO_OUT] != 0.0 and hold <= 0 else 0
    last_of_all = prm[P_GO_OUT] == 0.0 and may_empty and not morto_waiting and hn <= 2
    patience = prm[P_CLEAN_PATIENCE]
    keep_clean = prm[P_KEEP_CLEAN] != 0.0 and n_clean <= 1 and obs.pub[PUB_CLEAN + side] == 0
    reserve_wait = reserve and not close
    best = -1
    best_score = 0
    for i in range(n):
        a = acts[np.uint64(i)]  # unsigned: no wraparound test of a negative index (issue 9)
        t = act_type(a)
        x = act_x(a)
        y = act_y(a)
        s = 0
        if t == A_RUN_EXT or t == A_EXT:
            size = obs.mh[side, x, MH_N]
            if (y if t == A_EXT else y % 4) == C_NAT:
                s = 60 if size + 1 == cs else 50
            elif not never_wild:
                clean = obs.mh[side, x, MH_WILD] == 0
                if size + 1 >= cs and size < cs:
                    s = 30  # completes a canasta
                elif empty_now:
                    s = 20  # empties the hand: morto or going out
                elif lay_all:
                    s = 5  # after new melds: a wild starting a meld with a pair lays 3 cards, on a meld 1
                if clean and size >= cs and s > 0:
                    s = 2 if empty_now else 0  # a clean canasta stays clean unless nothing else empties the hand
                if s > 0 and not lay_all:
                    waited = (turn - obs.mh[side, x, MH_GREW]) // 2
                    if clean and size >= cs - 2 and size < cs and waited < patience:
                        s = 0  # clean_patience: wait for a natural
                    if clean and keep_clean:
                        s = 0  # keep_clean: the last clean meld stays clean
                    if reserve_wait:
                        s = 0  # wild_reserve: the last wild waits
                    if clean and t == A_RUN_EXT and no_clean and not empty_now:
                        s = 0  # run_clean_first: the side's clean runs stay candidates for the clean canasta
            if not ext_ok:
                s = 0
        elif t == A_RUN_NEW:
            s = (40 if y == RUN_3NAT else run_new_wild) if new_ok else 0
        elif t == A_NEW:
            if own < 0:
                own = _set_ranks(obs, side)
            second = (own & (1 << x)) != 0
            if y == NEW_3NAT:  # three naturals
                s = 55 if second and not partner else 40
            else:
                s = new_wild
            if (second and partner) or not new_ok:
                s = 0  # partner: extend the side's meld instead
        elif t == A_BLACK3:
            s = black3
        else:  # A_RUN_SWAP, run_wild_moves (E21): one natural more on the run, as an extension
            s = (60 if obs.mh[side, x, MH_N] + 1 == cs else 50) if ext_ok else 0
        if s > 0 and last_of_all and t != A_BLACK3:
            s = 1  # holding: still plays, but last of all
        if s > best_score:
            best_score = s
            best = i
    return best


@njit(cache=True, inline="always")
def _neighbours_keep(obs, s, r):
    """The run value of rank ``r`` (1-13) of suit ``s`` from its suit neighbours in the hand:
    +15 for each next to it, +8 for each one further (the ace next to the king: Q-K-A)."""
    keep = 0
    for d in (-2, -1, 1, 2):
        q = r + d
        if q == 0:
            q = 13  # the ace next to the king (Q-K-A)
        elif q == 14 or q == 15:
            q -= 13
        if q < 1 or q > 13 or q == r:
            continue
        if obs.hand[s * 13 + q - 1] > 0:
            keep += 15 if d == -1 or d == 1 else 8
    return keep


@njit(cache=True, _nrt=False, forceinline=True)
def _run_keep(obs, side, k):
    """Where runs are melded: how much a natural ``k`` is worth keeping for runs.  Its suit
    neighbours in the hand (+15 next to it, +8 one further) and the side's runs it extends
    (+50: it goes on the table next turn).  A card whose place a run of the side already holds
    can join no run while ``several_runs_per_suit`` is off (E19: no second run of the suit):
    -40 where runs are the only melds (it can never be melded), else 0 (a set may take it)."""
    s = k // 13
    r = k % 13 + 1
    keep = 0
    several = obs.rp[R_SEVERAL_RUNS] != 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] == MT_RUN and obs.mh[side, m, MH_SUIT] == s:
            lo = obs.mh[side, m, MH_LO]
            hi = obs.mh[side, m, MH_HI]
            if lo - 1 == r or hi + 1 == r or (r == 1 and (hi == 13 or lo == 2)):
                keep += 50
            elif not several and (lo <= r <= hi if r != 1 else (lo == 1 and hi == 14)):
                return -40 if obs.rp[R_MELD_SETS] == 0 else 0
    return keep + _neighbours_keep(obs, s, r)


@njit(cache=True, _nrt=False)
def _extends_run(obs, side, k):
    """The natural ``k`` goes on an end of one of ``side``'s runs of its suit."""
    s = k // 13
    r = k % 13 + 1
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] == MT_RUN and obs.mh[side, m, MH_SUIT] == s:
            lo = obs.mh[side, m, MH_LO]
            hi = obs.mh[side, m, MH_HI]
            if lo - 1 == r or hi + 1 == r or (r == 1 and (hi == 13 or lo == 2)):
                return True
    return False


@njit(cache=True, inline="always")
def _run_ext_mask(obs, side):
    """Bit ``k`` set for each natural ``k`` that goes on an end of one of ``side``'s runs (the
    answers of :func:`_extends_run` for every kind at once, from one pass over the side's melds):
    below the low end (the low ace below a run from the 2), above the high end (the high ace above
    the K)."""
    mask = 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] != MT_RUN:
            continue
        lo = obs.mh[side, m, MH_LO]
        hi = obs.mh[side, m, MH_HI]
        e = 0  # bit r - 1: rank r
        if lo >= 2:
            e |= 1 << (lo - 2)  # rank lo - 1 (lo = 2: the low ace)
        if hi <= 12:
            e |= 1 << hi  # rank hi + 1
        elif hi == 13:
            e |= 1  # the high ace above the K
        mask |= e << (13 * obs.mh[side, m, MH_SUIT])
    return mask


# The hand's and the runs' bits for all four suits at once, in 52-bit masks (bit 13 s + r - 1: rank r of
# suit s, as runs.hand_bits): one word per question, and a kind's answer one shift away, where a
# table per suit cost an indirect jump (a switch over the suit) at each read.
_SUIT_ACE = 1 | (1 << 13) | (1 << 26) | (1 << 39)  # bit 0 of each suit: the ace
_SUIT_KING = _SUIT_ACE << 12  # bit 12 of each suit: the king
_LOW11 = 0x7FF * _SUIT_ACE  # bits 0-10 of each suit
_LOW2 = 3 * _SUIT_ACE  # bits 0-1 of each suit
_HIGH11 = 0x1FFC * _SUIT_ACE  # bits 2-12 of each suit
_ALL52 = (1 << 52) - 1
_NO_KEY = 1 << 40  # _choose_discard: above every keep * 64 + k
_NATURALS = _ALL52 & ~(2 * _SUIT_ACE)  # every kind but the 2s and the joker


@njit(cache=True, inline="always")
def _values_below_32(rp):
    """Every suited kind's card value (``R_VALUES``) is 0-31: one OR over the 52 values."""
    v = 0
    for k in range(52):
        v |= rp[R_VALUES + k]
    return 0 <= v < 32


@njit(cache=True, inline="always")
def _nb_planes(held):
    """:func:`_neighbours_keep`'s four neighbours for every kind at once, from the hand's
    :func:`~tranca_sim.engine.runs.hand_bits` ``held`` (52 bits; the joker's bit is ignored): bit ``k`` (kind ``k`` of rank r) of ``up1``
    set when the hand holds rank r + 1 of its suit, ``dn1`` rank r - 1 (both +15 in
    :func:`_neighbours_keep`), ``up2`` rank r + 2, ``dn2`` rank r - 2 (both +8); the ace next to the
    king both ways, Q-K-A and A-2-3, but not Q-A (``dn2`` of the ace is 0)."""
    h = held & _ALL52
    up1 = ((h >> 1) & ~_SUIT_KING) | ((h & _SUIT_ACE) << 12)
    dn1 = ((h << 1) & _ALL52 & ~_SUIT_ACE) | ((h & _SUIT_KING) >> 12)
    up2 = ((h >> 2) & _LOW11) | ((h & _LOW2) << 11)
    dn2 = ((h << 2) & _HIGH11) | ((h & _SUIT_KING) >> 11)
    return up1, dn1, up2, dn2


@njit(cache=True, inline="always")
def _run_planes(obs, side):
    """``side``'s runs read once for many cards (the answers of :func:`_run_keep` without a pass
    over the melds per card), as 52-bit masks: the count of the runs that take the natural ``k`` at
    an end (r = 1 the ace, below the 2 or above the K) as four bit planes ``c0``-``c3`` (bit ``k`` of ``c_j``: bit j of the count; a count
    stays below 16: a rank ends at most the runs a suit's 26 cards can make), and ``cover``, bit
    ``k`` set when a run holds the place of ``k`` (the ace: an A..A run), computed only without
    ``several_runs_per_suit`` (E19), its readers' only case."""
    several = obs.rp[R_SEVERAL_RUNS] != 0
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    cover = 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] != MT_RUN:
            continue
        lo = obs.mh[side, m, MH_LO]
        hi = obs.mh[side, m, MH_HI]
        e = 0
        if lo >= 2:
            e |= 1 << (lo - 2)  # rank lo - 1 (lo = 2: the low ace)
        if hi <= 12:
            e |= 1 << hi  # rank hi + 1
        elif hi == 13 and lo != 2:
            e |= 1  # the high ace above the K (lo = 2 counted it already)
        sh = 13 * obs.mh[side, m, MH_SUIT]
        e <<= sh
        carry = c0 & e  # the count plus one where e is set, bit plane by bit plane
        c0 ^= e
        e = c1 & carry
        c1 ^= carry
        carry = c2 & e
        c2 ^= e
        c3 ^= carry
        if not several:
            c = ((1 << (hi if hi < 13 else 13)) - 1) & ~((1 << ((lo if lo > 2 else 2) - 1)) - 1)  # no min/max calls
            if lo == 1 and hi == 14:
                c |= 1
            cover |= c << sh
    return c0, c1, c2, c3, cover


@njit(cache=True, inline="always")
def _run_keep_planes(c0, c1, c2, c3, up1, dn1, up2, dn2, k):
    """:func:`_run_keep` of the natural ``k`` whose place no run covers, from :func:`_run_planes`
    and :func:`_nb_planes`: 50 for each run it extends, +15 / +8 for each neighbour in the hand."""
    ext = ((c0 >> k) & 1) + 2 * ((c1 >> k) & 1) + 4 * ((c2 >> k) & 1) + 8 * ((c3 >> k) & 1)
    return 50 * ext + 15 * (((up1 >> k) & 1) + ((dn1 >> k) & 1)) + 8 * (((up2 >> k) & 1) + ((dn2 >> k) & 1))


@njit(cache=True, inline="always")
def _run_fit_mask(obs, side, wilds_play):
    """Bit ``k`` set for each kind ``k`` that fits ``side``'s runs or the hand (:func:`_run_keep`
    above 0), and for the wilds when ``wilds_play`` (2s and the joker); a pile
    of cards is then counted with one shift a card.  Without ``wilds_play`` a 2 is the natural of
    its place and the joker fits nothing.  Returns that mask, the naturals that go on an end of
    one of the side's runs and whose place no run covers (:func:`_run_keep` 50 or more), and the
    hand's :func:`~tranca_sim.engine.runs.hand_bits`."""
    several = obs.rp[R_SEVERAL_RUNS] != 0
    ends = 0  # bit 13 s + r - 1: a run of suit s takes rank r at an end
    cover = 0  # bit 13 s + r - 1: a run of suit s holds the place of rank r (read without several runs)
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] != MT_RUN:
            continue
        lo = obs.mh[side, m, MH_LO]
        hi = obs.mh[side, m, MH_HI]
        e = 0
        if lo >= 2:
            e |= 1 << (lo - 2)  # rank lo - 1 (lo = 2: the low ace)
        if hi <= 12:
            e |= 1 << hi  # rank hi + 1
        elif hi == 13:
            e |= 1  # the high ace above the K
        sh = 13 * obs.mh[side, m, MH_SUIT]
        ends |= e << sh
        if not several:  # the covered places keep no card out with several runs per suit (E19)
            c = ((1 << (hi if hi < 13 else 13)) - 1) & ~((1 << ((lo if lo > 2 else 2) - 1)) - 1)  # no min/max calls
            if lo == 1 and hi == 14:
                c |= 1
            cover |= c << sh
    held = hand_bits(obs.hand)
    up1, dn1, up2, dn2 = _nb_planes(held)
    fm = (up1 | dn1 | up2 | dn2 | ends) & ~cover  # a neighbour in the hand or a run end, not covered
    if wilds_play:
        fm |= (1 << 1) | (1 << 14) | (1 << 27) | (1 << 40) | (1 << JOKER)
    return fm, ends & ~cover, held


@njit(cache=True, _nrt=False, forceinline=True)
def choose_discard(prm, obs, rng):
    seen_pairs = 0  # opp_morto_pairs is 0 with the mortos face down: no call then
    if prm[P_MORTO_SEEN] != 0.0 and obs.rp[R_MORTOS_FACE_UP] != 0:
        seen_pairs = opp_morto_pairs(obs, obs.pub[PUB_SIDE])
    return _choose_discard(prm, DiscardView(obs.hand, obs.pub, obs.mh, obs.taken, obs.rp), seen_pairs)


@njit(cache=True, _nrt=False)
def _choose_discard(prm, obs, seen_pairs):
    """:func:`choose_discard` on a :data:`DiscardView` ``obs``; ``seen_pairs``: the ranks of the
    opponents' face-up morto (``morto_seen``, :func:`~strategies.basic_aberta.opp_morto_pairs`)."""
    hand = obs.hand
    side = obs.pub[PUB_SIDE]
    seat = obs.pub[PUB_SEAT]
    n_seats = obs.pub[PUB_N_SEATS]
    nxt = next_seat(obs, seat)
    prv = seat - 1 if seat > 0 else n_seats - 1
    opp = seat_side(obs, nxt)  # the next player's side: the one that could take the pile
    own = _set_ranks(obs, side) if prm[P_PARTNER] != 0.0 else 0
    safe = prm[P_SAFE_DISCARD] != 0.0
    lock = prm[P_BLACK3_LOCK] != 0.0
    opp_ranks = _set_ranks(obs, opp) if safe or lock else 0  # read by safe_discard and black3_lock only
    runs = obs.rp[R_MELD_RUNS] != 0
    several = obs.rp[R_SEVERAL_RUNS] != 0
    covered_keep = -40 if obs.rp[R_MELD_SETS] == 0 else 0  # _run_keep of a card whose place a run holds
    c0, c1, c2, c3, cover = 0, 0, 0, 0, 0
    up1, dn1, up2, dn2 = 0, 0, 0, 0
    ext_opp = 0
    held = hand_bits(hand)  # bit k: the hand holds kind k (0-51)
    if runs:
        c0, c1, c2, c3, cover = _run_planes(obs, side)
        up1, dn1, up2, dn2 = _nb_planes(held)
        if safe:  # read by safe_discard only
            ext_opp = _run_ext_mask(obs, opp)
    # the lowest keep, the lowest kind among equal keeps (the kinds are visited lowest first): one
    # word keep * 64 + k, its minimum kept by a select instead of a branch per kind
    best_key = _NO_KEY
    b3 = -1
    wilds_meld = obs.rp[R_MAX_WILDS] > 0
    special = obs.rp[R_THREES_SPECIAL] != 0
    sets = obs.rp[R_MELD_SETS] != 0
    no_discard = obs.pub[PUB_NO_DISCARD]
    # the kinds in hand as bits (the naturals and 2s read by hand_bits, also the runs' neighbours
    # above; the joker), visited lowest first (the order of a loop over every kind): a branch per
    # kind on a hand of 11 kinds of 53 mispredicts
    present = held | ((((-np.int64(hand[JOKER])) >> 63) & 1) << JOKER)  # bit 52: hand[JOKER] > 0
    if no_discard >= 0:
        present &= ~(np.int64(1) << no_discard)  # may_discard
    if runs and several and not sets and not special and wilds_meld and own == 0 and seen_pairs == 0 and not safe:
        # open buraco's baseline: a natural's keep is -value // 5 plus its run keep, 0 for a lonely
        # natural (no run end, no suit neighbour in the hand) and 8 or more for any other; with card
        # values 0-31 a lonely natural keeps 0 or less and every other card 1 or more (a wild
        # 1000), so the discard is the lonely natural of the lowest keep, the lowest kind of equals
        lonely = present & _NATURALS & ~(up1 | dn1 | up2 | dn2 | c0 | c1 | c2 | c3)
        if lonely != 0 and _values_below_32(obs.rp):
            while lonely != 0:  # their run keep is 0
                k = trailing_zeros(lonely)
                lonely &= lonely - 1
                key = (-obs.rp[R_VALUES + k] // 5) * 64 + k
                best_key = key if key < best_key else best_key
            present = 0  # nothing else can keep less
    while present != 0:
        k = trailing_zeros(present)
        present &= present - 1
        q = k % 13
        wild = k == JOKER or q == 1  # is_wild(k)
        if wild and wilds_meld:
            keep = 1000
        elif wild:  # max_wilds = 0: no meld takes a wild
            if runs and k != JOKER and not special:
                if not several and (cover >> k) & 1:
                    keep = covered_keep - obs.rp[R_VALUES + k] // 5  # the natural of place 2
                else:
                    keep = _run_keep_planes(c0, c1, c2, c3, up1, dn1, up2, dn2, k) - obs.rp[R_VALUES + k] // 5
            else:
                keep = -1000 - obs.rp[R_VALUES + k]  # a dead card: only costs its value in hand
        elif is_black3(k) and special:
            b3 = k
            keep = 900 if lock else 19  # black3_lock: a defensive card; else junk like a lone 5
        else:
            r = q + 1
            if sets:
                keep = 20 * n_naturals(hand, r) - obs.rp[R_VALUES + k] // 5
            else:
                keep = -obs.rp[R_VALUES + k] // 5  # runs only: a pair of a rank is no meld
            if own & (1 << r):
                keep += 40
            if runs:
                if not several and (cover >> k) & 1:
                    keep += covered_keep  # _run_keep: its place is taken (E19)
                else:
                    keep += _run_keep_planes(c0, c1, c2, c3, up1, dn1, up2, dn2, k)
            if seen_pairs & (1 << r):
                keep += 30  # Tranca Aberta: their morto brought a pair of this rank (as if taken)
            if safe:
                if opp_ranks & (1 << r):
                    keep += 60  # the next player could take the pile with it
                if n_naturals(obs.taken[nxt], r) > 0 or n_naturals(obs.taken[prv], r) > 0:
                    keep += 30
                if (ext_opp >> k) & 1:  # _extends_run(obs, opp, k) (0 without runs)
                    keep += 60  # it goes on an end of one of their runs
        key = keep * 64 + k
        best_key = key if key < best_key else best_key
    best = -1 if best_key == _NO_KEY else best_key & 63
    if lock and b3 >= 0 and best != b3 and not is_wild(best):
        r = best % 13 + 1
        if opp_ranks & (1 << r) or n_naturals(obs.taken[nxt], r) > 0:
            return b3  # the other discard would feed an opposing meld: lock the pile
    return best


@njit(cache=True, _nrt=False)
def choose_redraw(prm, obs, rng):
    """003 first-player redraw (strategies/basic_redraw.py): 1 throws the drawn card back and draws
    again when it fits nothing in the hand (``redraw=1``, the default); 0 keeps it."""
    if prm[P_REDRAW] == 0.0:
        return 0
    k = obs.pub[PUB_REDRAW_CARD]
    return 0 if card_useful(obs, k, prm[P_BLACK3_LOCK] != 0.0) else 1
