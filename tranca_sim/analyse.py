"""The position analyser: every legal choice of a decision ranked by what it is worth.

Method (determinised Monte Carlo rollouts, as the search player's, :mod:`tranca_sim.strategies.pimc_search`):
worlds are sampled from what the seat to move knows (the hidden cards dealt again uniformly,
consistent with its observation: its hand, the melds, the pile, the red 3s, the hand sizes, the
morto states, the stock size and the cards it saw taken from the pile); in each world every legal
choice is played, the rest of the turn and the deal to its end by the rollout policy (by default
``tuned`` where the preset has its parameter file, ``basic`` elsewhere) for all seats, on the same
worlds and the same rollout streams.  Each
choice gets its mean points (the player's side minus the other, at the end of the deal) and its
probability of winning the deal (more points than the other side; a tie counts half), each with a
95% interval over the worlds.  Those intervals measure the sampling error of the estimate under
the rollout policy, not the policy's own error.

Anytime: worlds are added in batches until the best choice is separated from every other (the
paired difference's 95% confidence sequence, Bonferroni-corrected over the other choices, above
0: an interval valid at any stop, however often it is looked at) or the time is up.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
import numpy as np

from ._plural import plural
from .position import SIDES, Position, cards_text
from .position_state import legal_choices, observation, to_state
from .stats_sequences import cs_half_width, cs_rho2

PHASE_CODES = {"draw": 0, "meld": 1, "discard": 2}  # tranca_sim.strategies.pimc_search PH_DRAW, PH_MELD, PH_DISCARD
MIN_WORLDS = 16
_Z = 1.959963984540054
#: worlds near which the stop's confidence sequence is tightest (fixed before any world is played)
CS_WORLDS = 500

_FEATURES = (  # (outcome column, words): what differs in the outcomes, for the 'why' line
    (1, "we go out"),
    (2, "they go out"),
    (3, "we take our morto"),
    (4, "they take their morto"),
    (5, "they take the pile"),
    (6, "we take the pile"),
)


class AnalyseError(ValueError):
    """A position the analyser cannot analyse (a rule set the worlds cannot model, no choice)."""


@dataclass
class Choice:
    """One legal choice and what the worlds said of it."""

    code: int
    words: str
    points: float = 0.0
    points_ci: tuple[float, float] = (0.0, 0.0)
    win: float = 0.0
    win_ci: tuple[float, float] = (0.0, 0.0)
    rates: dict[str, float] = field(default_factory=dict)
    why: str = ""


@dataclass
class Analysis:
    position: Position
    choices: list[Choice]  # best first
    worlds: int
    seconds: float
    stopped: str  # "separated", "time", "worlds", "one choice" or "interrupted"
    policy: str
    outcomes: np.ndarray | None = None  # [world, choice (in ``codes`` order), column]
    codes: list[int] = field(default_factory=list)
    gap: Gap | None = None  # the best against the next best, world by world


@dataclass
class Gap:
    """The best choice's points minus the next best's (``other``), world by world on the same
    worlds: the mean and the interval the separation test uses (a confidence sequence, valid at
    any stop; 95% for the ``compared`` other choices together, Bonferroni), so a separated best
    has ``lo`` above 0."""

    other: str
    mean: float
    lo: float
    hi: float
    compared: int


def check_position(pos: Position) -> None:
    """Refuse a rule set the search's worlds cannot model (:class:`AnalyseError`)."""
    check_rules_supported(pos.rules)


def check_rules_supported(rules) -> None:
    """Refuse the :class:`~tranca_sim.rules.Rules` the search's worlds cannot model
    (:class:`AnalyseError`)."""
    from tranca_sim.strategies import StrategyError
    from tranca_sim.strategies.pimc import check_rules

    try:
        check_rules(rules)
    except StrategyError as e:
        raise AnalyseError(f"the analyser plays out the search player's worlds: {e}") from None


def analyser_cached() -> bool:
    """Whether the analyser's kernel is in numba's disk cache (loaded, not compiled: the command
    line says "compiling the analyser" otherwise)."""
    from .analyse_kernel import play_worlds
    from .run import kernel_cached

    return kernel_cached(play_worlds)


def policy_row(name: str, preset: str | None = None) -> np.ndarray:
    """The ``basic`` parameter row of rollout policy ``name`` under ``preset``: ``basic``'s
    defaults, or ``tuned``'s values for the preset (:func:`tranca_sim.strategies.tuned.params_row`:
    a preset without its own file plays ``tranca``'s values, with a warning)."""
    from tranca_sim.strategies import tuned
    from tranca_sim.strategies.pimc_search import POLICY_NAMES, POLICY_PRM

    if name not in POLICY_NAMES:
        raise AnalyseError(f"rollout policy {name!r} is not one of {', '.join(POLICY_NAMES)}")
    if name == "tuned":
        return tuned.params_row(preset)
    return POLICY_PRM[POLICY_NAMES.index(name)].copy()


def default_policy(preset: str | None = None) -> str:
    """``tuned`` under a preset with its own parameter file (``strategies/tuned/<preset>.toml``),
    else ``basic``: ``tuned`` elsewhere plays ``tranca``'s values, which can lose to ``basic``."""
    from tranca_sim.strategies import tuned
    from tranca_sim.strategies.pimc_search import POLICY_NAMES

    return "tuned" if "tuned" in POLICY_NAMES and preset in tuned.presets() else "basic"


def play_out(
    pos: Position, codes, worlds: int, w0: int = 0, key: int = 0, policy: str | None = None, st=None,
    threads: int = 1,
):  # fmt: skip
    """The outcomes ``float64[worlds, len(codes), N_OUT]`` of each choice on worlds ``w0..``
    (:mod:`tranca_sim.analyse_kernel`); ``st`` a stand-in state of ``pos`` (default
    :func:`~tranca_sim.position_state.to_state`), of which only the observation is read.  With
    ``threads`` > 1 the worlds are shared out between threads; world ``w`` is the same whoever
    plays it, so the outcomes do not depend on ``threads``."""
    from .analyse_kernel import N_OUT, play_worlds
    from .engine.state import new_state

    obs = observation(pos, st)
    res = np.zeros((worlds, len(codes), N_OUT), np.float64)
    prm = policy_row(policy or default_policy(pos.rules.name), pos.rules.name)
    cands = np.asarray(codes, np.int32)
    phase = PHASE_CODES[pos.phase]
    cuts = np.linspace(0, worlds, max(1, min(threads, worlds)) + 1).astype(int)

    def part(j):
        a, b = int(cuts[j]), int(cuts[j + 1])
        base, scratch = new_state(pos.rules.n_sides), new_state(pos.rules.n_sides)
        play_worlds(phase, obs, cands, prm, np.uint64(key), w0 + a, w0 + b, base, scratch, res[a:b])

    if len(cuts) <= 2:
        part(0)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(cuts) - 1) as ex:
            list(ex.map(part, range(len(cuts) - 1)))
    return res


def points_text(x: float, signed: bool = False) -> str:
    """Points rounded to a whole number, ``+`` before a positive one when ``signed``; a number that
    rounds to zero is ``0``, never ``-0`` nor ``+0``."""
    t = f"{x:+.0f}" if signed else f"{x:.0f}"
    return "0" if t in ("-0", "+0") else t


def above_0_text(x: float) -> str:
    """A bound above 0 signed, with the decimals it needs not to read as 0 (``+0.3``, ``+0.04``;
    "just above 0" below 0.005): beside "above 0" a bound printed "0" reads as a contradiction."""
    t = points_text(x, True)
    if t != "0":
        return t
    for d in (1, 2):
        t = f"{x:+.{d}f}"
        if float(t) > 0:
            return t
    return "just above 0"


def _mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    m = float(x.mean())
    se = float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else float("inf")
    return m, m - _Z * se, m + _Z * se


def _wilson(p: float, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    d = 1 + _Z**2 / n
    c = (p + _Z**2 / (2 * n)) / d
    h = _Z * math.sqrt(p * (1 - p) / n + _Z**2 / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def win_share(diff: np.ndarray) -> np.ndarray:
    """1 for a deal won (more points), 0.5 for a tie, 0 for a loss."""
    return (diff > 0) + 0.5 * (diff == 0)


def _cs_half(d: np.ndarray, compared: int) -> float:
    """Half-width of the paired difference ``d``'s confidence sequence (95% for ``compared``
    comparisons together, Bonferroni): it holds at every number of worlds at once, so the analyser
    may look after every batch and stop the first time it clears 0
    (:mod:`tranca_sim.stats_sequences`)."""
    alpha = 0.05 / max(1, compared)
    return cs_half_width(float(d.std(ddof=1)), len(d), cs_rho2(CS_WORLDS, alpha), alpha)


def separated(diff: np.ndarray, best: int) -> bool:
    """Whether choice ``best`` beats every other on the paired differences (``diff`` [world,
    choice]): each difference's confidence sequence (:func:`_cs_half`, valid however often it is
    looked at), Bonferroni-corrected over the others, above 0.  A choice with the same outcome as
    ``best`` in every world (two black 3s thrown alike) is the same choice in effect and does not
    hold the separation up."""
    k = diff.shape[1]
    if k < 2:
        return True
    for c in range(k):
        if c == best:
            continue
        d = diff[:, best] - diff[:, c]
        if float(d.std(ddof=1)) == 0.0:
            if d.mean() < 0:
                return False
            continue  # the same outcome in every world (3C and 3S thrown alike): no choice to make
        if d.mean() - _cs_half(d, k - 1) <= 0:
            return False
    return True


def next_best_gap(diff: np.ndarray, best: int) -> tuple[int, float, float, float] | None:
    """``(choice, mean, lo, hi)``: the best choice's points minus the next best's, world by world
    (``diff`` [world, choice]), with the interval :func:`separated` tests (the confidence sequence,
    corrected over the other choices).  The next best is the other choice with the highest mean that
    does not play out as the best in every world (such a twin is the same choice in effect); None if
    there is none."""
    k, n = diff.shape[1], diff.shape[0]
    others = [c for c in range(k) if c != best and np.any(diff[:, best] != diff[:, c])]
    if not others or n < 2:
        return None
    second = max(others, key=lambda c: float(diff[:, c].mean()))
    d = diff[:, best] - diff[:, second]
    m, h = float(d.mean()), _cs_half(d, k - 1)
    return second, m, m - h, m + h


def summarise(pos: Position, codes, words, res: np.ndarray) -> list[Choice]:
    """The choices, best first, with their intervals and their 'why'."""
    from .analyse_kernel import O_DIFF

    n = res.shape[0]
    out = []
    for c, code in enumerate(codes):
        d = res[:, c, O_DIFF]
        m, lo, hi = _mean_ci(d)
        w = float(win_share(d).mean())
        ch = Choice(int(code), words[c], m, (lo, hi), w, _wilson(w, n))
        # at the draw, taking the pile is the choice itself, not an outcome that explains it
        ch.rates = {
            name: float(res[:, c, col].mean())
            for col, name in _FEATURES
            if not (pos.phase == "draw" and name == "we take the pile")
        }
        out.append(ch)
    order = sorted(range(len(out)), key=lambda i: -out[i].points)
    ranked = [out[i] for i in order]
    for j, ch in enumerate(ranked):
        if len(ranked) == 1:
            ch.why = "the only legal choice"
            continue
        ref, label = (ranked[1], "next best") if j == 0 else (ranked[0], "best")
        ch.why = why_line(ch, ref, label)
    return ranked


def why_line(ch: Choice, ref: Choice, label: str) -> str:
    """What differs most between the outcomes of ``ch`` and ``ref``: the outcome whose rate
    differs by the most percentage points; "plays the same" when the outcomes and the points (as
    printed, whole) are the same."""
    name = max(ch.rates, key=lambda k: abs(ch.rates[k] - ref.rates[k]))
    a, b = ch.rates[name], ref.rates[name]
    if abs(a - b) < 0.02:
        if points_text(ch.points) == points_text(ref.points):
            return f"plays the same as the {label}"
        return f"the same outcomes as the {label} within 2 points of percentage; it differs in points"
    return f"{name} {a:.0%} ({label}: {b:.0%})"


def analyse(
    pos: Position,
    seconds: float = 5.0,
    max_worlds: int = 100_000,
    batch: int = 32,
    policy: str | None = None,
    key: int = 0,
    progress=None,
    st=None,
    threads: int = 2,
) -> Analysis:
    """Rank every legal choice of ``pos`` (see the module docstring).

    ``seconds``: the time after which no further batch starts (at least :data:`MIN_WORLDS`
    worlds are played); ``progress(worlds, seconds, best)`` is called after each batch; ``st``: a
    stand-in state of the position (a test passes another one: the answer must not change);
    ``threads``: threads playing each batch's worlds (the answer does not depend on it).

    Raises
    ------
    AnalyseError
        For a rule set the worlds cannot model or a position with no legal choice.
    KeyboardInterrupt
        Or another stop that is not an ``Exception`` (a termination): re-raised, with the ranking
        of the worlds played so far, ``stopped`` "interrupted", as its ``partial`` attribute when
        a batch was finished (so the command line can print it).
    """
    from .describe import describe_choices

    check_position(pos)
    if st is None:
        st = to_state(pos)
    codes = [int(c) for c in legal_choices(pos, st)]
    if not codes:
        if pos.phase == "draw":
            raise AnalyseError(f"seat {pos.seat} has no legal draw here (the deal ends: the stock is out)")
        raise AnalyseError(
            f"seat {pos.seat} has no card it may discard here: a last card is kept while its side may not go "
            "out, and a card just taken from a one-card pile is not thrown back"
        )
    words = describe_choices(pos, st, codes)
    policy = policy or default_policy(pos.rules.name)
    play_out(pos, codes, 0, 0, key, policy, st)  # compiled before the clock starts (a first run)
    t0 = time.perf_counter()
    parts: list[np.ndarray] = []
    try:
        stopped = _play_batches(pos, codes, words, parts, t0, seconds, max_worlds, batch, policy, key, progress, st,
                                threads)  # fmt: skip
    except BaseException as e:
        if not isinstance(e, Exception) and parts:  # Ctrl-C, a termination: what was played is kept
            e.partial = _analysis(pos, codes, words, parts, t0, "interrupted", policy)
        raise
    return _analysis(pos, codes, words, parts, t0, stopped, policy)


def _play_batches(pos, codes, words, parts, t0, seconds, max_worlds, batch, policy, key, progress, st, threads) -> str:
    """Play batches of worlds into ``parts`` until a stop; the stop's name (:class:`Analysis`)."""
    n = 0
    while n < max_worlds:
        k = min(batch, max_worlds - n)
        parts.append(play_out(pos, codes, k, n, key, policy, st, threads))
        n += k
        diff = np.concatenate(parts)[:, :, 0]
        best = int(np.argmax(diff.mean(axis=0)))
        elapsed = time.perf_counter() - t0
        if progress is not None:
            progress(n, elapsed, words[best], float(diff[:, best].mean()))
        if n >= MIN_WORLDS:
            if len(codes) == 1:
                return "one choice"
            if separated(diff, best):
                return "separated"
            if elapsed >= seconds:
                return "time"
    return "worlds"


def _analysis(pos, codes, words, parts, t0, stopped, policy) -> Analysis:
    """The :class:`Analysis` of the worlds played (``parts``, batches of outcomes)."""
    res = np.concatenate(parts)
    a = Analysis(pos, summarise(pos, codes, words, res), len(res), time.perf_counter() - t0, stopped, policy, res, codes)
    best = int(np.argmax(res[:, :, 0].mean(axis=0)))
    got = next_best_gap(res[:, :, 0], best)
    if got is not None:
        a.gap = Gap(words[got[0]], got[1], got[2], got[3], len(codes) - 1)
    return a


def format_analysis(a: Analysis) -> str:
    """The ranking as text: one line a choice, best first."""
    p = a.position
    side = p.rules.side_of(p.seat)
    other = "".join(SIDES[s] for s in range(p.rules.n_sides) if s != side)
    head = (
        f"seat {p.seat} ({SIDES[side]}) to {p.phase}, turn {p.turn}, {p.rules.name}; hand {cards_text(p.hand)}\n"
        f"{plural(a.worlds, 'world', fmt=',')} in {a.seconds:.1f} s, rollouts to the end of the deal by {a.policy}; "
        + {
            "separated": "stopped: the best choice is separated from the rest",
            "time": "stopped at the time limit: the best choice is not separated from every other",
            "worlds": "stopped at the most worlds asked",
            "one choice": "one legal choice",
            "interrupted": "INTERRUPTED: the ranking of the worlds played so far, before any stop",
        }[a.stopped]
    )
    rows = [("", "choice", f"points {SIDES[side]}-{other}", "win the deal", "why")]
    for i, c in enumerate(a.choices, 1):
        rows.append(
            (
                str(i),
                c.words,
                f"{points_text(c.points, True)} [{points_text(c.points_ci[0], True)}, {points_text(c.points_ci[1], True)}]",
                f"{c.win:.0%} [{c.win_ci[0]:.0%}, {c.win_ci[1]:.0%}]",
                c.why,
            )
        )
    widths = [max(len(r[j]) for r in rows) for j in range(4)]
    g = a.gap
    if g is not None:
        verdict = "above 0: the best is better" if g.lo > 0 else "not clear of 0: the two are not told apart yet"
        lo = above_0_text(g.lo) if g.lo > 0 else points_text(g.lo, True)
        head += (
            f"\nthe best minus the next best ({g.other}), world by world on the same worlds: {points_text(g.mean, True)} points "
            f"[{lo}, {points_text(g.hi, True)}] (valid at any stop), {verdict}"
        )
    lines = [head, ""]
    for r in rows:
        lines.append("  ".join(r[j].ljust(widths[j]) if j != 0 else r[j].rjust(widths[0]) for j in range(4)) + "  " + r[4])
    lines.append("")
    lines.append("points: mean over the worlds, the player's side minus the other, at the end of the deal; "
                 "[ ]: 95% interval of the sampling (the same worlds for every choice)")
    if g is not None:
        lines.append("the best minus the next best: its interval is a confidence sequence, 95% at every number "
                     "of worlds at once, so it stays valid however often the analyser looked before stopping")
    if g is not None and g.compared > 1:
        lines.append(f"the best minus the next best: its interval is widened for the {g.compared} choices "
                     "compared with the best, so that all of them hold together 95% of the time")
    return "\n".join(x.rstrip() for x in lines) + "\n"
