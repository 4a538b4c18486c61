"""The search player (strategies/pimc.py, strategies/pimc_search.py): it never peeks, it answers
only legal choices, it is deterministic, its rollouts play as the engine does, and it runs end to
end through the CLI, in every preset (refusing only the option it does not model)."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from tranca_sim.cli import main
from tranca_sim.engine import play_deck, simulate_chunk
from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.kernel import _pack_counts, deck_of
from tranca_sim.engine.melds import list_draw_actions
from tranca_sim.engine.obs import PUB_HAND_N, PUB_STOCK_N, Obs, may_discard
from tranca_sim.engine.runs import list_run_captures
from tranca_sim.engine.state import (
    MS_STOCK,
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
    SS_MORTO_AT,
    new_state,
)
from tranca_sim.engine.turn import count_errors, place_red3s
from tranca_sim.rules import PRESETS, get_preset
from tranca_sim.strategies import N_PARAMS, StrategyError, check_rules, resolve
from tranca_sim.strategies import pimc as S
from tranca_sim.strategies.pimc_positions import observe, peeking_discard, rollout_deal, to_discard
from tranca_sim.strategies.pimc_search import (
    POLICY_PRM,
    sample_world,
)

SMALL = "search:worlds=2,turns=4"
ALL_PRESETS = tuple(PRESETS)  # every preset: the search player plays them all (issue 23 item 2)


def _mid_deal(rules, deal, turns):
    """A dealt position ``turns`` turns into deal ``deal`` (seed 3) of ``rules``, at a discard
    decision, or None when the deal ends first or the hand holds one card."""
    rp = rules.to_array()
    st = new_state(rules.n_sides)
    deck = np.array(deck_of(rules, 3, deal), np.int16)
    rollout_deal(st, rp, deck, deal % rules.n_seats, POLICY_PRM[0].copy(), turns)
    if st.sc[SC_OVER] != 0 or not to_discard(st, rp, POLICY_PRM[0].copy()):
        return None
    return st, rp


def _positions(rules, n, turns=(6, 10, 14, 8, 12, 16, 18, 20)):
    """The first ``n`` discard decisions of deals 1, 2, ... (``turns`` turns into each) whose
    stock still holds cards (so there is a stock to re-deal)."""
    out = []
    for deal in range(1, 40):
        pos = _mid_deal(rules, deal, turns[deal % len(turns)])
        if pos is not None and pos[0].sc[SC_DECK_N] - pos[0].sc[SC_STOCK_PTR] >= 4:
            out.append((deal, *pos))
        if len(out) == n:
            return out
    raise AssertionError(f"{rules.name}: fewer than {n} positions")


def _hide_differently(st, rules, rng):
    """A copy of ``st`` whose hidden cards differ and whose every visible fact is the same: two
    other seats swap cards (at two players the other seat swaps with the stock), each waiting
    face-down morto swaps a card with the stock (in its count and in its place in the deck, where
    an untaken morto becoming the stock draws from), and the stock is reshuffled.  No red 3 moves
    into a hand."""
    other = st._replace(**{f: getattr(st, f).copy() for f in st._fields})
    me = int(st.sc[SC_SEAT])
    lo, hi = int(st.sc[SC_STOCK_PTR]), int(st.sc[SC_DECK_N])
    stock = other.deck[lo:hi]
    plain = [j for j in range(hi - lo) if int(stock[j]) not in (15, 28)]  # no red 3 into a hand
    seats = [(me + j) % rules.n_seats for j in range(1, rules.n_seats)]
    for _ in range(3):
        a = seats[0]
        ka = rng.choice(np.flatnonzero(other.hand[a]))
        other.hand[a, ka] -= 1
        if len(seats) >= 2:
            b = seats[1]
            kb = rng.choice(np.flatnonzero(other.hand[b]))
            other.hand[b, kb] -= 1
            other.hand[b, ka] += 1
            other.hand[a, kb] += 1
        else:
            j = plain[rng.integers(0, len(plain))]
            other.hand[a, stock[j]] += 1
            stock[j] = ka
    for side in range(rules.n_sides):
        if other.ss[side, SS_MORTO] == MS_WAITING and not rules.mortos_face_up:
            at = int(other.ss[side, SS_MORTO_AT])
            i = at + int(rng.integers(0, rules.morto_size))
            k = other.deck[i]
            j = int(rng.integers(0, hi - lo))
            other.morto[side, k] -= 1
            other.morto[side, stock[j]] += 1
            other.deck[i] = stock[j]
            stock[j] = k
    rng.shuffle(stock)
    return other


def _same_obs(st, other, rp, me):
    o1, o2 = observe(st, rp, me), observe(other, rp, me)
    for f in Obs._fields:
        assert np.array_equal(getattr(o1, f), getattr(o2, f)), f
    return o1, o2


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_never_peeks(preset):
    """In every preset: two deals that differ only in hidden cards (other hands, mortos, stock
    order), the same observation and the same random stream give the same discard; the control,
    the same search given the true deal as its every world (a player that peeks), changes its
    discard in at least one of the positions, so the positions can tell a peeking player."""
    rules = get_preset(preset)
    gen = np.random.default_rng(0)
    prm = resolve("search:worlds=3,turns=6").params
    peek_changed = 0
    for deal, st, rp in _positions(rules, 4):
        other = _hide_differently(st, rules, gen)
        me = int(st.sc[SC_SEAT])
        assert not (np.array_equal(st.hand, other.hand) and np.array_equal(st.deck, other.deck))
        o1, o2 = _same_obs(st, other, rp, me)
        answers = [S.choose_discard(prm, o, np.array([1, 2, 3, deal], np.uint64)) for o in (o1, o2)]
        assert answers[0] == answers[1]
        assert may_discard(o1, answers[0])
        peeks = [peeking_discard(x, rp, 3, 6, np.uint64(deal)) for x in (st, other)]
        assert may_discard(o1, peeks[0]) and may_discard(o1, peeks[1])
        peek_changed += peeks[0] != peeks[1]
    assert peek_changed >= 1


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_never_peeks_at_the_draw(preset):
    """The same at the draw, at the start of a turn with more than one legal draw (the pile may
    be taken), the hidden cards re-dealt as above."""
    rules = get_preset(preset)
    gen = np.random.default_rng(1)
    prm = resolve("search:worlds=3,turns=6").params
    searched = 0
    for deal in range(24):
        rp = rules.to_array()
        st = new_state(rules.n_sides)
        deck = np.array(deck_of(rules, 3, deal), np.int16)
        rollout_deal(st, rp, deck, deal % rules.n_seats, POLICY_PRM[0].copy(), 9)
        me = int(st.sc[SC_SEAT])
        side = rules.side_of(me)
        if st.sc[SC_OVER] != 0 or st.ss[side, SS_INDIRECT_SEAT] == me:
            continue
        if st.sc[SC_DECK_N] - st.sc[SC_STOCK_PTR] < 4:
            continue
        place_red3s(st, rp, me)
        acts = np.zeros(512, np.int32)
        n = list_draw_actions(st, rp, me, acts)
        if rules.meld_runs:
            n = list_run_captures(st, rp, me, acts, n)
        if n < 2:
            continue
        other = _hide_differently(st, rules, gen)
        _same_obs(st, other, rp, me)
        answers = [
            S.choose_draw(prm, observe(x, rp, me), acts, n, np.array([4, 5, 6, deal], np.uint64))
            for x in (st, other)
        ]
        assert answers[0] == answers[1] and 0 <= answers[0] < n
        searched += 1
        if searched == 3:
            break
    assert searched >= 1


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_sampled_world_is_a_whole_consistent_deal(preset):
    """In every preset, every sampled world holds the pack of the rules exactly once (104 cards
    and the preset's jokers), keeps what the player sees (its hand, the pile, the melds) and every
    hand, morto and stock size of the table (2, 3 or 4 hands, one morto a side), puts each waiting
    morto's cards in the deck where an untaken morto becoming the stock is drawn from, and its
    hidden cards (other hands and stock) differ between worlds."""
    rules = get_preset(preset)
    _, st, rp = _positions(rules, 1, turns=(12,))[0]
    me = int(st.sc[SC_SEAT])
    obs = observe(st, rp, me)
    pack = _pack_counts(rp)
    assert pack[0].sum() == 104 + rules.n_jokers
    hands = []
    for w in range(4):
        world = new_state(3)
        rng = np.array([7, 7, 7, w], np.uint64)
        sample_world(obs, rng, world, np.zeros(N_KINDS, np.int64), np.zeros(PACK_MAX, np.int16))
        assert count_errors(world, rp, pack) == 0
        assert np.array_equal(world.hand[me], st.hand[me])
        pn = world.sc[SC_PILE_N]
        assert pn == st.sc[SC_PILE_N] and np.array_equal(world.pile[:pn], st.pile[:pn])
        ns = rules.n_sides
        assert np.array_equal(world.mc[:ns], st.mc) and np.array_equal(world.mh[:ns], st.mh)
        for s in range(4):
            assert world.hand[s].sum() == (obs.pub[PUB_HAND_N + s] if s < rules.n_seats else 0)
        assert world.sc[SC_DECK_N] - world.sc[SC_STOCK_PTR] == obs.pub[PUB_STOCK_N]
        for side in range(ns):
            assert world.ss[side, SS_MORTO] == st.ss[side, SS_MORTO]
            if st.ss[side, SS_MORTO] == MS_WAITING:
                assert world.morto[side].sum() == rules.morto_size
                at = int(world.ss[side, SS_MORTO_AT])
                in_deck = np.bincount(world.deck[at : at + rules.morto_size], minlength=N_KINDS)
                assert np.array_equal(in_deck, world.morto[side])
            else:
                assert world.morto[side].sum() == 0
        hidden = [world.hand[(me + j) % rules.n_seats] for j in range(1, rules.n_seats)]
        hands.append(np.concatenate([*hidden, world.deck[: world.sc[SC_DECK_N]]]))
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


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_rollouts_play_as_the_engine(preset):
    """In every preset, the search's copy of the turn (rollout_turn) plays whole deals exactly as
    the engine's play_turn: same final hands, melds and scores for basic against basic (the
    stock running out included: at least one deal of open buraco has a morto become the stock)."""
    rules = get_preset(preset)
    rp = rules.to_array()
    stocked = 0
    for d in range(8):
        deck = deck_of(rules, 9, d)
        ref, _cols = play_deck(rules, deck, ("basic", "basic"), first_seat=d % rules.n_seats, check=False)
        st = new_state(rules.n_sides)
        rollout_deal(st, rp, np.array(deck, np.int16), d % rules.n_seats, POLICY_PRM[0].copy(), 0)
        pn = ref.sc[SC_PILE_N]
        assert pn == st.sc[SC_PILE_N] and np.array_equal(ref.pile[:pn], st.pile[:pn]), d
        for f in ("hand", "mc", "mh", "red3", "taken"):
            assert np.array_equal(getattr(ref, f), getattr(st, f)), (d, f)
        # the side's game state; the slots from SS_FIRST_CANASTA on are the play facts the engine
        # counts for the run file's check columns (engine/play_facts.py), which no choice reads and
        # a rollout, writing no run file, does not keep
        assert np.array_equal(ref.ss[:, :SS_FIRST_CANASTA], st.ss[:, :SS_FIRST_CANASTA]), (d, "ss")
        assert ref.sc[SC_OVER] == st.sc[SC_OVER]
        stocked += int((st.ss[:, SS_MORTO] == MS_STOCK).any())
    if rules.name == "buraco":  # open buraco runs its stock out in about a quarter of deals
        assert stocked >= 1


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_legal_deterministic_and_checked(preset):
    """In every preset, search against basic (draw, discard and meld choices searched, and 003's
    redraw): no answer outside the legal choices, no broken invariant, the same deals again with
    the same seed, and play that differs from basic's."""
    rules = get_preset(preset)
    sides = (SMALL + ",melds=1", "basic")
    a = simulate_chunk(rules, sides, 21, 0, 6, check=True)
    b = simulate_chunk(rules, sides, 21, 0, 6, check=False)
    assert a["illegal_choices"].sum() == 0
    assert a["invariant_errors"].sum() == 0
    for col in ("score", "n_turns", "pile_captures", "went_out"):
        assert np.array_equal(a[col], b[col]), col
    c = simulate_chunk(rules, ("basic", "basic"), 21, 0, 6)
    assert not np.array_equal(a["score"], c["score"])  # it does play differently from basic


def test_parameters_and_the_refused_option():
    """Its parameters are read as declared; every preset is played, also with an untaken morto
    becoming the stock in tranca; a minimum first meld (which its rollouts do not model) is refused."""
    spec = resolve("search:worlds=16,turns=0,melds=1")
    assert spec.params[:3].tolist() == [16, 0, 1] and len(spec.params) == N_PARAMS
    with pytest.raises(StrategyError, match="whole number"):
        resolve("search:worlds=1.5")
    for preset in ALL_PRESETS:
        check_rules([resolve("search")], get_preset(preset))
    out = simulate_chunk(get_preset("tranca").replace(stock_out=1), ("basic", SMALL), 1, 0, 2, check=True)
    assert out["invariant_errors"].sum() == 0 and out["illegal_choices"].sum() == 0
    with pytest.raises(StrategyError, match="first_meld_min"):
        simulate_chunk(get_preset("buraco").replace(first_meld_min=75), ("search", "basic"), 1, 0, 1)


@pytest.mark.parametrize("flag", ["--side-a", "--side-b"])
def test_a_refused_option_names_its_flag(tmp_path, capsys, flag):
    from cli_call import call

    status, _, err = call(["simulate", "--preset", "buraco", "--rule", "first_meld_min=75", flag, "search",
                           "--matches", "1", "--out", str(tmp_path / "r.parquet")], capsys)  # fmt: skip
    err = err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert err[0].startswith(f"tranca-sim: error: {flag}: strategy 'search' cannot play first_meld_min")
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
    out = tmp_path / "b.parquet"
    status = main(["simulate", "--preset", "buraco-fechado", "--side-a", "basic", "--side-b", SMALL,
                   "--deals", "2", "--seed", "2", "--out", str(out)])  # fmt: skip
    assert status in (0, None)
    assert set(pq.read_table(out).column("strategy").to_pylist()) == {"search", "basic"}
