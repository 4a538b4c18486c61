"""The strength ladder: a round robin of strategies on duplicate deals, rated on one scale.

>>> from tranca_sim.lab.ladder.ladder import run_ladder
>>> res = run_ladder("reports/ladder", decks=20000, slow_decks=300)   # doctest: +SKIP

Design. Every pair of players ``(i, j)`` plays the decks ``0 .. n - 1`` of one master seed
twice, sides swapped (run ``ab``: ``i`` on side A; run ``ba``: ``j`` on side A; same seed and
deal indices, so each player holds each hand once: :mod:`tranca_sim.lab.statistics.designs`). All pairs
play the same decks (common decks); a pair with a slow player (the ``search`` strategy, tens
of deals a second) plays only the first ``slow_decks`` of them. The unit is the deck (a deal
pair) and its value ``e`` the mean of its two score differences, points a deal.

Ratings and intervals: :mod:`tranca_sim.lab.ladder.rating` (Bradley-Terry on deck wins with choix,
Elo scale; least squares on points a deal; percentile bootstrap over decks). Output files:
:func:`tranca_sim.lab.ladder.ladder_report.write_outputs`.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ... import io as _io
from ...outlock import locked_output

#: (label, strategy text) of the default ladder: the built-in players and the search player at
#: a small and a large budget (docs/strategies.md "The search player")
DEFAULT_PLAYERS = (
    ("random", "random"),
    ("passive", "passive"),
    ("basic", "basic"),
    ("tuned", "tuned"),
    ("search small", "search:worlds=8,turns=12"),
    ("search large", "search:worlds=32,turns=0"),
)
#: strategies that play slowly: pairs with one of them play ``slow_decks``
SLOW_STRATEGIES = ("search",)


class LadderError(ValueError):
    """A bad ladder setting (one readable line)."""


@dataclass(frozen=True)
class Player:
    """One rung: ``label`` (shown in tables), ``strategy`` (its text), ``slow``."""

    label: str
    strategy: str
    slow: bool


def parse_player(text: str) -> tuple[str, str]:
    """``"LABEL=STRATEGY"`` or ``"STRATEGY"`` -> ``(label, strategy)``.

    A label is the part before the first ``=`` when that part holds no ``:`` (so
    ``basic:go_out=0`` is a strategy, ``no out=basic:go_out=0`` a label and a strategy).
    """
    head, eq, rest = text.partition("=")
    if eq and ":" not in head and head.strip() and rest.strip():
        return head.strip(), rest.strip()
    return text.strip(), text.strip()


def player_text(item) -> str:
    """A player as ``--player`` takes it: the text itself, or ``LABEL=STRATEGY`` for a
    ``(label, strategy)`` pair (just ``STRATEGY`` when the label is the strategy)."""
    if isinstance(item, str):
        return item
    label, text = item
    return str(text) if label == text else f"{label}={text}"


def make_players(items, preset: str, players_given: bool = True) -> list[Player]:
    """Resolve the player texts (:func:`parse_player`) under ``preset``; ``players_given`` False
    for the default list (an error then says how to choose others).

    Raises
    ------
    LadderError
        Fewer than 2 players, a label given twice, or a strategy that does not resolve or
        refuses the preset (the message names it).
    """
    from tranca_sim.strategies import StrategyError, check_rules, resolve

    from ...rules import get_preset

    rules = get_preset(preset)
    out: list[Player] = []
    for item in items:
        label, text = parse_player(item) if isinstance(item, str) else item
        try:
            spec = resolve(text, preset=preset)
            check_rules([spec], rules)
        except StrategyError as e:
            if players_given:
                raise LadderError(f"player {player_text(item)!r}: {e}") from None
            raise LadderError(
                f"default player {label!r} ({text}): {e}; choose the players with --player"
            ) from None
        if any(p.label == label for p in out):
            raise LadderError(f"player label {label!r} is given twice; give each player its own label")
        out.append(Player(label, text, spec.name in SLOW_STRATEGIES))
    if len(out) < 2:
        raise LadderError(f"a ladder needs at least 2 players, got {len(out)}")
    return out


def pair_plan(players: list[Player], decks: int, slow_decks: int) -> list[tuple[int, int, int]]:
    """``(i, j, n_decks)`` for every pair ``i < j``: fast pairs first, then the slow ones."""
    pairs = [(i, j) for i in range(len(players)) for j in range(i + 1, len(players))]
    out = [(i, j, slow_decks if players[i].slow or players[j].slow else decks) for i, j in pairs]
    return sorted(out, key=lambda t: (t[2] != decks, t[0], t[1]))


@locked_output("out_dir", make_dirs=True)
def run_ladder(
    out_dir,
    preset: str = "tranca",
    players=None,
    decks: int = 20_000,
    slow_decks: int = 300,
    seed: int = 20261130,
    anchor: str = "basic",
    bootstrap: int = 2000,
    threads: int | None = None,
    force: bool = False,
    progress: bool = True,
    command: str = "",
    on_written=None,
    say_compile: bool | None = None,
) -> dict:
    """Play the round robin and write ``out_dir`` (see :mod:`tranca_sim.lab.ladder.ladder_report`).

    Parameters
    ----------
    out_dir : path
        Output directory, built beside it under a temporary name and renamed into place.
    preset : str
        Rule preset.
    players : sequence of str or (label, strategy), optional
        Default :data:`DEFAULT_PLAYERS`.
    decks, slow_decks : int
        Decks per pair (each played twice), and per pair with a slow player (``search``);
        ``slow_decks`` at most ``decks``.
    seed : int
        Master seed of every run (common decks).
    anchor : str
        Label of the player rated 0 (default ``basic``; the first player if ``basic`` does not
        play; another label that is not a player's is an error).
    bootstrap : int
        Bootstrap resamples of the intervals.
    threads : int, optional
        numba threads (default all).
    on_written : callable, optional
        Called with the output directory (str) as soon as it is in place.
    say_compile : bool, optional
        Say ``compiling the engine ...`` on stderr before the bar when the engine is not in
        numba's cache (:func:`tranca_sim.run.say_if_compiling`); None: as ``progress`` (the
        command line says it with ``--no-progress`` too).

    Returns
    -------
    dict
        ``dir``, ``result`` (the ``ladder.json`` content), ``seconds``, ``deals``, ``load_seconds``
        (the throw-away deal that compiles or loads the engine first; not counted), ``compiled``.

    Raises
    ------
    LadderError, tranca_sim.lab.output_dir.ExperimentError, tranca_sim.rules.RulesError
        For bad settings or an output directory that cannot be written; nothing is played then.
    """
    from ...rules import get_preset

    rules = get_preset(preset)
    if rules.n_sides != 2:
        raise LadderError(
            f"--preset {preset}: a table of {rules.n_sides} solo players; the ladder's pairs play two sides "
            "(choose a two-sided preset, e.g. tranca or tranca-2p)"
        )
    # the players first: a user's strategy file must be named before the engine is imported
    ps = make_players(players if players is not None else DEFAULT_PLAYERS, preset, players is not None)

    import numba
    from tqdm.auto import tqdm

    from ...engine import simulate_chunk
    from ..output_dir import RunWriter, check_out_dir, discard_output, publish_output, run_meta
    from ..statistics.designs import duplicate_units
    from .ladder_report import summarize_ladder, write_outputs

    for flag, n in (("--decks", decks), ("--search-decks", slow_decks)):
        if n < 2:
            raise LadderError(f"{flag} must be at least 2, got {n}")
    if slow_decks > decks:
        raise LadderError(f"--search-decks ({slow_decks}) must not exceed --decks ({decks})")
    if bootstrap < 100:
        raise LadderError(f"--bootstrap must be at least 100 resamples, got {bootstrap}")
    if threads is not None and not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise LadderError(f"--threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {threads}")
    out = Path(out_dir)
    check_out_dir(out, force, "ladder")
    labels = [p.label for p in ps]
    if anchor not in labels and anchor != "basic":  # the default anchor falls back to the first player
        raise LadderError(f"--anchor {anchor!r} is not a player's label; the players: {', '.join(labels)}")
    anchor_i = labels.index(anchor) if anchor in labels else 0
    plan = pair_plan(ps, decks, slow_decks)
    n_threads = threads if threads is not None else numba.get_num_threads()
    spec = {
        "name": "ladder",
        "preset": preset,
        "rules": dataclasses.asdict(rules),
        "rule_options": {},
        "seed": seed,
    }
    tmp = _io.temp_dir_path(out)
    total = 2 * sum(n for _, _, n in plan)
    before = numba.get_num_threads()
    numba.set_num_threads(n_threads)
    from ...run import engine_cached, say_if_compiling

    compiled = not engine_cached()
    if progress if say_compile is None else say_compile:
        say_if_compiling(cached=not compiled)
    t_load = time.perf_counter()
    try:  # one throw-away deal compiles (first run) or loads the engine, before the bar and the clock
        fast = [p for p in ps if not p.slow] or ps
        simulate_chunk(rules, (fast[0].strategy, fast[-1].strategy), seed, 0, 1)
        load_seconds = time.perf_counter() - t_load
    except BaseException:
        numba.set_num_threads(before)
        raise
    bar = tqdm(total=total, unit="deal", unit_scale=True, disable=not progress, desc="ladder")
    units: dict[tuple[int, int], np.ndarray] = {}
    pair_rows = []
    writers: list = []
    played = 0
    try:
        with _io.writing(out):
            out.parent.mkdir(parents=True, exist_ok=True)
            (tmp / "runs").mkdir(parents=True)
        t0 = time.perf_counter()
        for i, j, n in plan:
            a, b = ps[i], ps[j]
            bar.set_description(f"{a.label} vs {b.label}")
            step = 50 if (a.slow or b.slow) else 10_000
            got = {"ab": [], "ba": []}
            t_pair = time.perf_counter()
            for role, sides in (("ab", (a, b)), ("ba", (b, a))):
                key = f"{i:02d}-{j:02d}.{role}"
                plan_ = _Plan(f"{a.label} vs {b.label}", role)
                from tranca_sim.strategies import resolve

                specs = tuple(resolve(s.strategy, preset=preset) for s in sides)
                w = RunWriter(tmp / "runs" / f"{key}.parquet", run_meta(plan_, specs, spec, n_threads))
                writers.append(w)
                for start in range(0, n, step):
                    cnt = min(step, n - start)
                    cols = simulate_chunk(rules, (sides[0].strategy, sides[1].strategy), seed, start, cnt)
                    w.write(cols)
                    got[role].append({c: cols[c] for c in ("deal_index", "side", "score", "won", "went_out")})
                    bar.update(cnt)
                    played += cnt
                w.close()
            ab = {c: np.concatenate([x[c] for x in got["ab"]]) for c in got["ab"][0]}
            ba = {c: np.concatenate([x[c] for x in got["ba"]]) for c in got["ba"][0]}
            paired = duplicate_units(ab, ba)
            units[(i, j)] = paired.units
            pair_rows.append(
                {
                    "i": i,
                    "j": j,
                    "decks": n,
                    "seconds": time.perf_counter() - t_pair,
                    "went_out_i": paired.v_out,
                    "went_out_j": paired.b_out,
                    "runs": [f"runs/{i:02d}-{j:02d}.ab.parquet", f"runs/{i:02d}-{j:02d}.ba.parquet"],
                }
            )
        seconds = time.perf_counter() - t0
        bar.close()  # the last deal is played: the bar is not left drawn while the report is built
        if progress:
            print(
                f"rating the players ({bootstrap} bootstrap resamples) and building the report ...",
                file=sys.stderr,
                flush=True,
            )
        result = summarize_ladder(ps, units, pair_rows, anchor_i, bootstrap, seed)
        result.update(
            {
                "preset": preset,
                "seed": seed,
                "decks": decks,
                "slow_decks": slow_decks,
                "threads": n_threads,
                "seconds": seconds,
                "deals": played,
                "command": command,
            }
        )
        write_outputs(tmp, result, units)
        publish_output(tmp, out, on_written, "ladder")
    except BaseException:
        discard_output(tmp, writers)
        raise
    finally:
        bar.close()
        numba.set_num_threads(before)
    return {
        "dir": str(out),
        "result": result,
        "seconds": seconds,
        "deals": played,
        "load_seconds": load_seconds,
        "compiled": compiled,
    }


@dataclass(frozen=True)
class _Plan:
    """What ``output_dir.run_meta`` reads of a run plan."""

    label: str
    role: str


def deals_per_second(result: dict) -> float:
    """Deals a second over the whole ladder (``inf`` for a zero time)."""
    s = result.get("seconds", 0.0)
    return result.get("deals", 0) / s if s > 0 else math.inf
