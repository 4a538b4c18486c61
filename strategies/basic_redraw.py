"""``basic`` at the first player's redraw of seed 003 (rule ``first_player_redraw``).

Seed ``003_16d360cb3b2c0dc5.txt`` "O jogo": the first player, and only on the deal's first
turn, may draw a card and, "caso ela não seja útil para seu jogo", throw it on the pile and draw a
second card (VARIANTS 13; docs/rules.md E20).  :func:`card_useful` is basic's reading of "useful":

- a wild (a 2 or a joker) is kept: it starts or completes a meld;
- a natural is kept when the hand holds another natural of its rank (a pair towards a set) or,
  where runs are played (``R_MELD_RUNS``), a card of its suit within two places of it (4-5, 4-6:
  towards a run; the ace counts low and high);
- a black 3 (special 3s) is kept only with ``black3_lock=1`` (a stopper for later); to the
  baseline it is junk, as in the discard;
- anything else is thrown back.

The card itself is in ``obs.hand`` (it was drawn); ``obs.pub[PUB_REDRAW_CARD]`` names it.
"""

from tranca_sim.engine.cards import JOKER
from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import is_black3, is_wild, n_naturals
from tranca_sim.rules import R_MELD_RUNS, R_THREES_SPECIAL


@njit(cache=True, _nrt=False)
def card_useful(obs, k, keep_black3):
    """Is the drawn card ``k`` (a kind 0..52, in ``obs.hand`` ``int16[N_KINDS]``) worth keeping
    rather than throwing back for another (003 redraw)?  ``keep_black3``: a black 3 counts as
    useful (a stopper kept for later)."""
    if is_wild(k) or k == JOKER:
        return True
    special = obs.rp[R_THREES_SPECIAL] != 0
    if special and is_black3(k):
        return keep_black3
    r = k % 13 + 1
    if n_naturals(obs.hand, r) >= 2:
        return True
    if obs.rp[R_MELD_RUNS] != 0:
        s = k // 13
        for j in range(2 if r == 1 else 1):
            p = 14 if j == 1 else r  # the ace is low (1) and high (14)
            for d in (-2, -1, 1, 2):
                q = p + d
                if q < 1 or q > 14:
                    continue
                rr = 1 if q == 14 else q
                if rr == 2:
                    continue  # a 2 is wild in sets; as a run neighbour it counts only as a wild
                if obs.hand[s * 13 + rr - 1] > 0:
                    return True
    return False
