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

``morto_stock`` (000 tip 1; *late* morto: "picking up late keeps defensive flexibility")
    The morto gives the side eleven new cards but starts the clock; waiting
    keeps flexibility.  With ``morto_stock = K`` the player, while its side's
    morto waits and the stock holds more than K cards, never melds its hand
    below two cards (so neither a meld nor its discard empties the hand and
    takes the morto).  108 (default) = never holds back: the baseline's
    earliest pickup.  The morto-timing sweep parameter.
``morto_melds`` (000 tip 1; *late*, by progress)
    N > 0: as ``morto_stock``, holding back while the side has fewer than N
    melds on the table.  0 = off.
``morto_rush`` (000 tip 1 *early*, 004 tip 5 "Reaching the morto early is a big advantage")
    Three readings of "reach the morto early", side by side; the check (``CHECKS``: the morto
    taken earlier and at least as often) keeps the first: 1 = while the side's morto waits, take
    no pile of more than 3 cards (a big pile refills the hand the morto needs emptied); 2 = take
    every usable pile (take_pile_min ignored); 3 = lay everything, putting the wilds on any meld
    (the encoding before issue 22).  2 and 3 reach the morto *later* and less often than the
    baseline (docs/strategies.md, "What the tips measure").  0 = off.
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
    "Knowing how many [red 3s] have been drawn helps judge the pace of the hand."  N > 0: once
    N or more red 3s have been seen on the table and the side has no canasta yet (the canasta
    turns each of them from -100 into +100), the pace quickens: any pile the player can use is
    taken (take_pile_min ignored).  Which red 3s count is a reading: every side's (``red3_own =
    0``, the text's "how many have been drawn") or the side's own (``red3_own = 1``).  0 = off.
``partner`` (000 tip 6)
    1: never open a second meld of a rank the side already has (extend it
    instead, feeding the partner's meld) and, in discards, keep cards of the
    side's meld ranks.  0 (baseline): neutral: a second meld of a rank the side
    has scores as a fresh one (40; ``second_meld = 1`` prefers it, 55, as the
    baseline did before issue 22), and discards ignore the side's melds.
``long_meld`` (004 tip 1)
    One long meld is worth more than several three-card melds: a preference of
    weight w.  A new meld's score (40 three naturals, 10 with a wild) loses
    10 w points for each of the side's melds that is not yet a canasta, and is
    held when nothing is left; a meld that empties the hand is never held.
    0 = off; sweepable (experiments/long-meld.toml).
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
    ``morto_rush=3`` does (lays everything, wilds on any meld); a weak morto changes nothing.  Off by default: it
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

from tranca_sim.engine.jit import njit
from tranca_sim.engine.obs import PUB_MELD_MIN, PUB_MORTO, PUB_REDRAW_CARD, PUB_SIDE, must_meld_on
from tranca_sim.engine.state import MS_WAITING
from tranca_sim.rules import R_MORTOS_FACE_UP
from tranca_sim.strategies.basic_aberta import morto_strong, opp_morto_pairs
from tranca_sim.strategies.basic_discard import DiscardView, _choose_discard
from tranca_sim.strategies.basic_draw import DrawView, _choose_draw
from tranca_sim.strategies.basic_meld import MeldView, _choose_meld
from tranca_sim.strategies.basic_params import (
    CHECKED_PRESETS,
    CHECKS,
    MORTO_SWEEP,
    NO_CHANGE,
    P_ABERTA_RUSH,
    P_BLACK3_LOCK,
    P_MORTO_SEEN,
    P_REDRAW,
    PARAMS,
    SEARCH,
    TIPS,
)
from tranca_sim.strategies.basic_redraw import card_useful

# The module is split by concern: the parameters, tips and checks (basic_params), what is read off
# the table (basic_table), the runs' keep values (basic_runs), the draw (basic_draw), the melds
# (basic_meld), the discard (basic_discard); here are the four functions the engine calls.
__all__ = [
    "CHECKED_PRESETS",
    "CHECKS",
    "DOC",
    "MORTO_SWEEP",
    "NAME",
    "NO_CHANGE",
    "PARAMS",
    "SEARCH",
    "TIPS",
    "choose_discard",
    "choose_draw",
    "choose_meld",
    "choose_redraw",
]

NAME = "basic"
DOC = "heuristic player; every rule-guide tip is a parameter (all off by default)"


@njit(cache=True, _nrt=False, forceinline=True)
def choose_draw(prm, obs, acts, n, rng):
    # Most draws list the stock alone: this small function (compiled inline into the engine's
    # turn) answers those at once, without the call of the whole choice; the others pass the
    # choice only the arrays it reads (DrawView, as choose_meld does).
    if n == 1:
        return 0  # the stock alone, or (stock exhausted) the one capture: what _choose_draw picks
    return _choose_draw(prm, DrawView(obs.hand, obs.pub, obs.pile, obs.mh, obs.rp), acts, n)


@njit(cache=True, _nrt=False, forceinline=True)
def choose_meld(prm, obs, acts, n, rng):
    side = obs.pub[PUB_SIDE]
    # aberta_rush: the side's face-up morto (the one choice of the meld that reads the mortos)
    rush = prm[P_ABERTA_RUSH] != 0.0 and obs.pub[PUB_MORTO + side] == MS_WAITING and morto_strong(obs, side)
    best = _choose_meld(prm, MeldView(obs.hand, obs.pub, obs.mh, obs.rp), acts, n, rush)
    if best < 0 and obs.pub[PUB_MELD_MIN] > 0 and must_meld_on(obs):
        best = 0  # E25: a first meld short of the minimum is finished (the first listed action leads there)
    return best


@njit(cache=True, _nrt=False, forceinline=True)
def choose_discard(prm, obs, rng):
    seen_pairs = 0  # opp_morto_pairs is 0 with the mortos face down: no call then
    if prm[P_MORTO_SEEN] != 0.0 and obs.rp[R_MORTOS_FACE_UP] != 0:
        seen_pairs = opp_morto_pairs(obs, obs.pub[PUB_SIDE])
    return _choose_discard(prm, DiscardView(obs.hand, obs.pub, obs.mh, obs.taken, obs.rp), seen_pairs)


@njit(cache=True, _nrt=False)
def choose_redraw(prm, obs, rng):
    """003 first-player redraw (strategies/basic_redraw.py): 1 throws the drawn card back and draws
    again when it fits nothing in the hand (``redraw=1``, the default); 0 keeps it."""
    if prm[P_REDRAW] == 0.0:
        return 0
    k = obs.pub[PUB_REDRAW_CARD]
    return 0 if card_useful(obs, k, prm[P_BLACK3_LOCK] != 0.0) else 1
