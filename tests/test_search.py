"""The search player (strategies/pimc.py, strategies/pimc_search.py): it never peeks, it answers
only legal choices, it is deterministic, its rollouts play as the engine does, and it runs end to
end through the CLI (refusing presets it does not support)."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from tranca_sim.cli import main
from tranca_sim.engine import play_deck, simulate_chunk
from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.kernel import _pack_counts, deck_of
from tranca_sim.engine.melds import list_draw_actions
from tranca_sim.engine.obs import PUB_HAND_N, PUB_SEAT, PUB_STOCK_N, Obs, may_discard
from tranca_sim.engine.state import (
    MS_WAITING,
    PACK_MAX,
    SC_DECK_N,
    SC_OVER,
    SC_PILE_N,
    SC_SEAT,
    SC_STOCK_PTR,
    SS_FIRST_CANASTA,
    SS_INDIRECT_SEAT,
    SS_MORTO,
    new_state,
)
from tranca_sim.engine.turn import count_errors, place_red3s
from tranca_sim.rules import get_preset
from tranca_sim.strategies import N_PARAMS, StrategyError, resolve
from tranca_sim.strategies import pimc as S
from tranca_sim.strategies.pimc_positions import observe, rollout_deal, to_discard
from tranca_sim.strategies.pimc_search import (
    POLICY_PRM,
    sample_world,
)

SMALL = "search:worlds=2,turns=4"


def _mid_deal(tranca, deal, turns):
    """A dealt position ``turns`` turns into deal ``deal`` (seed 3), at a discard decision."""
    rp = tranca.to_array()
    st = new_state()
    deck = np.array(deck_of(tranca, 3, deal), np.int16)
    rollout_deal(st, rp, deck, deal % 4, POLICY_PRM[0].copy(), turns)
    assert st.sc[SC_OVER] == 0
    assert to_discard(st, rp, POLICY_PRM[0].copy())
    return st, rp


def _hide_differently(st, rng):
    """A copy of ``st`` whose hidden cards differ: two opponents swap cards (hand sizes kept), the
    waiting mortos swap cards with the stock, and the stock is reshuffled."""
    other = st._replace(**{f: getattr(st, f).copy() for f in st._fields})
    me = int(st.sc[SC_SEAT])
    a, b = (me + 1) % 4, (me + 2) % 4
    for _ in range(3):
        ka = rng.choice(np.flatnonzero(other.hand[a]))
        kb = rng.choice(np.flatnonzero(other.hand[b]))
        other.hand[a, ka] -= 1
        other.hand[b, ka] += 1
        other.hand[b, kb] -= 1
        other.hand[a, kb] += 1
    lo, hi = int(st.sc[SC_STOCK_PTR]), int(st.sc[SC_DECK_N])
    stock = other.deck[lo:hi]
    for side in range(2):
        if other.ss[side, SS_MORTO] == MS_WAITING and hi > lo:
            k = rng.choice(np.flatnonzero(other.morto[side]))
            j = rng.integers(0, hi - lo)
            other.morto[side, k] -= 1
            other.morto[side, stock[j]] += 1
            stock[j] = k
    rng.shuffle(stock)
    return other


def test_never_peeks(tranca):
    """Two deals that differ only in hidden cards (other hands, mortos, stock order), the same
    observation and the same random stream: the same draw and the same discard."""
    gen = np.random.default_rng(0)
    prm = resolve("search:worlds=3,turns=6").params
    checked = 0
    for deal, turns in ((1, 6), (2, 10), (5, 14)):
        st, rp = _mid_deal(tranca, deal, turns)
        other = _hide_differently(st, gen)
        me = int(st.sc[SC_SEAT])
        assert not (np.array_equal(st.hand, other.hand) and np.array_equal(st.deck, other.deck))
        assert np.array_equal(st.hand[me], other.hand[me])
        o1, o2 = observe(st, rp, me), observe(other, rp, me)
        for f in Obs._fields:
            assert np.array_equal(getattr(o1, f), getattr(o2, f)), f
        answers = []
        for o in (o1, o2):
            rng = np.array([1, 2, 3, deal], np.uint64)
            answers.append(S.choose_discard(prm, o, rng))
        assert answers[0] == answers[1]
        assert may_discard(o1, answers[0])
        checked += 1
    assert checked == 3


def test_never_peeks_at_the_draw(tranca):
    """The same at the draw, at the start of a turn where the pile may be taken (more than one
    legal draw), the hidden cards swapped as above."""
    gen = np.random.default_rng(1)
    prm = resolve("search:worlds=3,turns=6").params
    searched = 0
    for deal in range(12):
        rp = tranca.to_array()
        st = new_state()
        rollout_deal(st, rp, np.array(deck_of(tranca, 3, deal), np.int16), deal % 4, POLICY_PRM[0].copy(), 9)
        me = int(st.sc[SC_SEAT])
        if st.sc[SC_OVER] != 0 or st.ss[me & 1, SS_INDIRECT_SEAT] == me:
            continue
        place_red3s(st, rp, me)
        acts = np.zeros(512, np.int32)
        n = list_draw_actions(st, rp, me, acts)
        if n < 2:
            continue
        other = _hide_differently(st, gen)
        answers = [
            S.choose_draw(prm, observe(x, rp, me), acts, n, np.array([4, 5, 6, deal], np.uint64))
            for x in (st, other)
        ]
        assert answers[0] == answers[1] and 0 <= answers[0] < n
        searched += 1
    assert searched >= 1


def test_sampled_world_is_a_whole_consistent_deal(tranca):
    """Every sampled world holds the pack exactly once, keeps what the player sees (its hand, the
    pile, the melds) and the hand, morto and stock sizes, and differs between worlds."""
    st, rp = _mid_deal(tranca, 4, 12)
    me = int(st.sc[SC_SEAT])
    obs = observe(st, rp, me)
    pack = _pack_counts(rp)
    hands = []
    for w in range(4):
        world = new_state()
        rng = np.array([7, 7, 7, w], np.uint64)
        sample_world(obs, rng, world, np.zeros(N_KINDS, np.int64), np.zeros(PACK_MAX, np.int16))
        assert count_errors(world, rp, pack) == 0
        assert np.array_equal(world.hand[me], st.hand[me])
        pn = world.sc[SC_PILE_N]
        assert pn == st.sc[SC_PILE_N] and np.array_equal(world.pile[:pn], st.pile[:pn])
        assert np.array_equal(world.mc, st.mc) and np.array_equal(world.mh, st.mh)
        for s in range(4):
            assert world.hand[s].sum() == obs.pub[PUB_HAND_N + s]
        assert world.sc[SC_DECK_N] - world.sc[SC_STOCK_PTR] == obs.pub[PUB_STOCK_N]
        assert obs.pub[PUB_SEAT] == me
        hands.append(world.hand[(me + 1) % 4].copy())
    assert any(not np.array_equal(hands[0], h) for h in hands[1:])


def test_cards_taken_from_the_pile_stay_with_the_taker(tranca):
    """A card a seat took from the pile and seen nowhere else is placed in that seat's hand."""
    st, rp = _mid_deal(tranca, 4, 12)
    me = int(st.sc[SC_SEAT])
    s = (me + 1) % 4
    # say seat s took one card of a kind that is hidden somewhere (in s's hand or elsewhere)
    hidden = st.deck[st.sc[SC_STOCK_PTR] : st.sc[SC_DECK_N]]
    k = int(hidden[0])
    st.taken[s, k] = 1
    obs = observe(st, rp, me)
    for w in range(3):
        world = new_state()
        sample_world(
            obs, np.array([5, w, 1, 1], np.uint64), world, np.zeros(N_KINDS, np.int64),
            np.zeros(PACK_MAX, np.int16),
        )  # fmt: skip
        assert world.hand[s, k] >= 1


def test_rollouts_play_as_the_engine(tranca):
    """The search's copy of the turn (rollout_turn) plays whole deals exactly as the engine's
    play_turn: same final hands, melds and scores for basic against basic."""
    rp = tranca.to_array()
    for d in range(12):
        deck = deck_of(tranca, 9, d)
        ref, _cols = play_deck(tranca, deck, ("basic", "basic"), first_seat=d % 4, check=False)
        st = new_state()
        rollout_deal(st, rp, np.array(deck, np.int16), d % 4, POLICY_PRM[0].copy(), 0)
        pn = ref.sc[SC_PILE_N]
        assert pn == st.sc[SC_PILE_N] and np.array_equal(ref.pile[:pn], st.pile[:pn]), d
        for f in ("hand", "mc", "mh", "red3", "taken"):
            assert np.array_equal(getattr(ref, f), getattr(st, f)), (d, f)
        # the side's game state; the slots from SS_FIRST_CANASTA on are the play facts the engine
        # counts for the run file's check columns (engine/play_facts.py), which no choice reads and
        # a rollout, writing no run file, does not keep
        assert np.array_equal(ref.ss[:, :SS_FIRST_CANASTA], st.ss[:, :SS_FIRST_CANASTA]), (d, "ss")
        assert ref.sc[SC_OVER] == st.sc[SC_OVER]


def test_legal_deterministic_and_checked(tranca):
    """Search against basic (draw, discard and meld choices searched): no answer outside the legal
    choices, no broken invariant, and the same deals again with the same seed."""
    sides = (SMALL + ",melds=1", "basic")
    a = simulate_chunk(tranca, sides, 21, 0, 6, check=True)
    b = simulate_chunk(tranca, sides, 21, 0, 6, check=False)
    assert a["illegal_choices"].sum() == 0
    assert a["invariant_errors"].sum() == 0
    for col in ("score", "n_turns", "pile_captures", "went_out"):
        assert np.array_equal(a[col], b[col]), col
    c = simulate_chunk(tranca, ("basic", "basic"), 21, 0, 6)
    assert not np.array_equal(a["score"], c["score"])  # it does play differently from basic


def test_parameters_and_refused_presets():
    spec = resolve("search:worlds=16,turns=0,melds=1")
    assert spec.params[:3].tolist() == [16, 0, 1] and len(spec.params) == N_PARAMS
    with pytest.raises(StrategyError, match="whole number"):
        resolve("search:worlds=1.5")
    with pytest.raises(StrategyError, match="supports the presets"):
        simulate_chunk(get_preset("tranca-paulista"), ("search", "basic"), 1, 0, 1)
    with pytest.raises(StrategyError, match="stock_out=1"):
        simulate_chunk(get_preset("tranca").replace(stock_out=1), ("basic", "search"), 1, 0, 1)


@pytest.mark.parametrize("flag", ["--side-a", "--side-b"])
def test_a_refused_preset_names_its_flag(tmp_path, capsys, flag):
    from cli_call import call

    status, _, err = call(["simulate", "--preset", "buraco", flag, "search", "--deals", "2",
                           "--out", str(tmp_path / "r.parquet")], capsys)  # fmt: skip
    err = err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert err[0].startswith(f"tranca-sim: error: {flag}: strategy 'search' supports the presets")
    assert not (tmp_path / "r.parquet").exists()


def test_simulate_end_to_end(tmp_path, capsys):
    out = tmp_path / "s.parquet"
    status = main(["simulate", "--side-a", SMALL, "--side-b", "basic", "--deals", "4", "--seed", "2",
                   "--out", str(out)])  # fmt: skip
    assert status in (0, None)
    t = pq.read_table(out)
    assert t.num_rows == 8
    assert set(t.column("strategy").to_pylist()) == {"search", "basic"}
    capsys.readouterr()
    try:
        status = main(["simulate", "--preset", "tranca-paulista", "--side-a", "search", "--deals", "2",
                       "--out", str(tmp_path / "p.parquet")])  # fmt: skip
    except SystemExit as e:
        status = e.code
    assert status == 2
    assert not (tmp_path / "p.parquet").exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tranca-sim: error: ") and "tranca-paulista" in err[0]
