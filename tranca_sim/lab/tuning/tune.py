"""Tune a strategy's parameters: search with a noisy optimiser on duplicate deals, then confirm on
fresh deals (``tranca-sim tune``).

>>> from tranca_sim.lab.tuning.tune import TuneConfig, run_tune
>>> res = run_tune(TuneConfig("basic", "tranca", "basic", budget=400_000, out="reports/tune"))  # doctest: +SKIP

**Objective.** The mean score difference per deal of a candidate against the round's opponent,
on *duplicate deals* (:func:`tranca_sim.lab.statistics.designs.duplicate_units`): every deck is dealt twice
with the sides swapped (candidate on side A, then on side B, same master seed and deal indices),
and the unit is the deck's mean of its two differences, in points per deal.

**Optimiser.** Optuna's TPE sampler (Watanabe 2023, "Tree-structured Parzen estimator:
understanding its algorithm components"; multivariate, Falkner et al. 2018), through its ask/tell
interface. Chosen because ``basic``'s space is mostly switches and small whole numbers with one
real: TPE samples categorical and integer parameters natively, where CMA-ES and SPSA need a
continuous relaxation and rounding (SPSA's +-1 perturbations on a 0/1 switch always flip it).
TPE does not model noise; it does not need to here, because within a round every candidate plays
the **same decks** (common random numbers), so candidates are compared on the same luck, and the
two stages after the search remove the winner's-curse bias of "the best of many noisy candidates".

**Stages of a round** (deal indices are handed out by one counter, so no two stages, rounds or
candidates of different stages share a deck; the master seed is the same):

1. *search*: candidates asked from TPE, each played on the round's search block of
   ``trial_deals`` deals (``trial_deals / 2`` decks, the same for all). The first candidates are
   the start point (the strategy as given; later rounds the champion) and its neighbours, one
   parameter changed at a time (a switch flipped, a whole number one step, a grid's next value),
   then ten random ones, then TPE's. A candidate asked twice is not played again (same decks:
   same result).
2. *selection*: the ``select_top`` best distinct candidates of the search are played again on a
   fresh block; the best there wins the round.
3. *confirmation*: the winner alone is played on another fresh block against the round's
   opponent; its effect, 95% Student t interval and one-sided p-value (H0: mean <= 0) come from
   these decks only. One hypothesis on data not used to pick it, so no multiplicity correction
   is needed: the selection happened on other decks.

**Self-play rounds.** Round 1 plays against ``opponent``. When a round's winner beats its
opponent significantly (confirmation p < ``alpha``), it becomes the champion and the next round
tunes against it (its parameters are tried first, at exactly 0 by symmetry); the rounds stop when
a round's winner does not beat the champion significantly, or after ``rounds`` rounds. At the end
the champion plays ``opponent`` once more on a fresh block (*final*): that run alone gives the
reported effect of the tuned strategy over ``opponent``.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ... import io as _io
from ..._plural import plural
from ...outlock import locked_output


class TuneError(ValueError):
    """A bad tuning setting (one readable line naming the option)."""


@dataclass
class TuneConfig:
    """Settings of one tuning (``tranca-sim tune``; deals are counted per side pairing: one deck
    of the duplicate design is two deals).

    ``strategy``: the strategy to tune, with fixed parameters (``basic`` or ``basic:go_out=1`` or
    a user's ``file.py:name``); its values are the first candidate. ``preset``, ``rules``
    (rule options, ``{"option": value}``), ``opponent`` (strategy text). ``budget``: deals of the
    search stage over all rounds (each round gets ``budget // rounds``). ``trial_deals``: deals
    per candidate in the search (even). ``select_top``, ``select_deals``: candidates re-played in
    the selection and their deals each. ``confirm_deals``: deals of a confirmation (and of the
    final run). ``rounds``: most rounds (1 = no self-play). ``alpha``: one-sided level of the
    confirmation test. ``only``: search only these parameters. ``seed``: master seed of every deal
    and of the sampler. ``out``: output directory; ``force`` replaces a non-empty one.
    ``command``: the command line, written into the report and the parameter file.
    """

    strategy: str
    preset: str
    opponent: str
    budget: int
    out: str | os.PathLike = "tune"
    rules: dict = field(default_factory=dict)
    trial_deals: int = 4000
    select_top: int = 8
    select_deals: int = 20_000
    confirm_deals: int = 40_000
    rounds: int = 3
    alpha: float = 0.05
    only: tuple[str, ...] | None = None
    seed: int = 1
    threads: int | None = None
    force: bool = False
    progress: bool = True
    command: str = ""
    #: say "compiling the engine ..." when it is not cached (None: as ``progress``; the CLI: always)
    say_compile: bool | None = None


class _Blocks:
    """Deal indices handed out once each (``start`` goes up only): every block is fresh."""

    def __init__(self):
        self.next = 0
        self.used: list[dict] = []

    def take(self, deals: int, stage: str, round_: int) -> tuple[int, int]:
        decks = deals // 2
        start = self.next
        self.next += decks
        self.used.append({"stage": stage, "round": round_, "start": start, "decks": decks})
        return start, decks


def check_config(cfg: TuneConfig):
    """Validate ``cfg`` before any deal is played; returns ``(rules, base spec, opponent spec, space)``.

    Raises
    ------
    TuneError
        A bad number (budget too small for 10 candidates a round, odd deal counts, ...).
    tranca_sim.rules.RulesError, tranca_sim.strategies.StrategyError
        Unknown preset or rule option; unknown strategy, parameter or search space problem.
    """
    from tranca_sim.strategies import resolve
    from tranca_sim.strategies.search import search_space

    from ...rules import get_preset
    from ...run import coerce_rule_options

    for name, v, lo in (
        ("--trial-deals", cfg.trial_deals, 2),
        ("--select-deals", cfg.select_deals, 2),
        ("--confirm-deals", cfg.confirm_deals, 4),
    ):
        if v < lo or v % 2:
            raise TuneError(
                f"{name} must be an even number of deals (a deck is played twice), at least {lo}, got {v}"
            )
    if not 1 <= cfg.rounds <= 20:
        raise TuneError(f"--rounds must be between 1 and 20, got {cfg.rounds}")
    if not 1 <= cfg.select_top <= 100:
        raise TuneError(f"--select-top must be between 1 and 100, got {cfg.select_top}")
    if not 0 < cfg.alpha < 0.5:
        raise TuneError(f"--alpha must be between 0 and 0.5, got {cfg.alpha}")
    least = 10 * cfg.trial_deals * cfg.rounds
    if cfg.budget < least:
        raise TuneError(
            f"--budget must be at least {least} deals (10 candidates of --trial-deals {cfg.trial_deals} "
            f"in each of --rounds {cfg.rounds}), got {cfg.budget}"
        )
    if cfg.only is not None:
        seen = set()
        for name in cfg.only:
            if name in seen:
                raise TuneError(f"--params lists {name!r} twice; name each parameter once")
            seen.add(name)
    rules = get_preset(cfg.preset)
    if rules.n_sides != 2:
        from ...rules import PRESETS

        two = ", ".join(k for k, r in PRESETS.items() if r.n_sides == 2)
        raise TuneError(
            f"--preset {cfg.preset}: a table of {rules.n_sides} solo players; tune plays a candidate "
            f"against one opponent on both sides of each deck, so it supports the two-sided presets: {two}"
        )
    opts = coerce_rule_options(rules, cfg.rules)
    rules = rules.replace(**opts) if opts else rules.validate()
    base = resolve(cfg.strategy, preset=cfg.preset)
    opp = resolve(cfg.opponent, preset=cfg.preset)
    space = search_space(cfg.strategy, rules, cfg.only)
    return rules, base, opp, space


def search_deals_cap(space, per_round: int, trial_deals: int) -> int:
    """Deals (int) a round's search plays at most: ``per_round`` in whole trials of
    ``trial_deals``, and no more than one trial for each distinct candidate when every parameter
    of ``space`` takes few values (a switch 2, a list of choices its length, an int its range)."""
    n = 1
    for p in space:
        if p.choices is not None:
            n *= len(p.choices)
        elif p.kind == "switch":
            n *= 2
        elif p.kind == "int":
            n *= int(p.high) - int(p.low) + 1
        else:
            return per_round // trial_deals * trial_deals
    return min(per_round // trial_deals, n) * trial_deals


def _suggest(trial, p) -> float:
    if p.choices is not None:
        whole = all(float(c).is_integer() for c in p.choices)
        return float(trial.suggest_categorical(p.name, [int(c) if whole else c for c in p.choices]))
    if p.kind == "switch":
        return float(trial.suggest_categorical(p.name, [0, 1]))
    if p.kind == "int":
        return float(trial.suggest_int(p.name, int(p.low), int(p.high)))
    return float(trial.suggest_float(p.name, p.low, p.high))


#: Seconds one call of the engine should last at most: a trial is played in pieces that grow
#: towards this, so Ctrl-C and SIGTERM (Python sees them between calls) stop a tune within
#: seconds and the bar moves, also with the slow ``search`` player.  A deal's result depends on
#: its index only, so the pieces change no result.
CALL_SECONDS = 1.0


def _play(rules, cand, opp, seed: int, start: int, decks: int, tick=None):
    """Duplicate deals of ``cand`` against ``opp`` on decks ``start .. start + decks - 1``:
    :class:`~tranca_sim.lab.statistics.designs.Paired`.  ``tick(deals)`` is called after each piece."""
    from ...engine import simulate_chunk
    from ..statistics.designs import duplicate_units

    ab, ba = [], []
    done, step = 0, min(decks, 8)
    while done < decks:
        n = min(step, decks - done)
        t0 = time.perf_counter()
        ab.append(simulate_chunk(rules, (cand, opp), master_seed=seed, start=start + done, count=n))
        ba.append(simulate_chunk(rules, (opp, cand), master_seed=seed, start=start + done, count=n))
        dt = time.perf_counter() - t0
        done += n
        if tick is not None:
            tick(2 * n)
        step = max(1, int(step * min(4.0, CALL_SECONDS / max(dt, 1e-4))))

    def joined(parts):
        return parts[0] if len(parts) == 1 else {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    return duplicate_units(joined(ab), joined(ba))


#: A tune expected to last longer than this says so after its first trial.
LONG_SECONDS = 15 * 60


def _say_duration(total_deals: int, rate: float) -> None:
    """One line on stderr when ``total_deals`` at ``rate`` deals/s (the first trial's) is long."""
    left = total_deals / rate if rate > 0 else math.inf
    if left > LONG_SECONDS:
        hours, minutes = divmod(round(left / 60), 60)
        print(
            f"tranca-sim tune: this tune plays up to {total_deals:,} deals at about {rate:,.0f} deals/s "
            f"(its first trial): about {hours} h {minutes:02d} min; a smaller --budget or --trial-deals "
            "is quicker, Ctrl-C stops it (nothing is written)",
            file=sys.stderr,
            flush=True,
        )


def _test(units, alpha: float) -> dict:
    from scipy import stats as _st

    from ..statistics.inference import t_test

    t = t_test(units)
    if t["n"] >= 2 and t["sd"] > 0:
        t["p_greater"] = float(_st.t.sf(t["mean"] / (t["sd"] / math.sqrt(t["n"])), t["n"] - 1))
    else:
        t["p_greater"] = 1.0 if not t["mean"] > 0 else 0.0
    t["significant"] = bool(t["p_greater"] < alpha)
    return t


@locked_output("cfg", make_dirs=True)
def run_tune(cfg: TuneConfig, on_written=None) -> dict:
    """Tune ``cfg.strategy`` and write ``cfg.out`` (see the module doc for the method).

    Output directory (built under a temporary name and renamed into place when complete):
    ``trials.parquet`` (every evaluation: round, stage, trial number, the searched parameters,
    the strategy text, mean points per deal and its interval, decks, seed and first deal index),
    ``trace.png``/``trace.svg`` (the optimisation trace), ``params.toml`` (the winner, in the
    format of ``strategies/tuned/<preset>.toml``) and ``report.md``.

    Returns
    -------
    dict
        ``dir``, ``champion`` (strategy text), ``params`` (dict), ``final`` (the final run's
        test: ``mean``, ``lo``, ``hi``, ``p_greater``, ``n`` decks), ``rounds`` (per round),
        ``seconds``, ``deals`` (all deals played), ``deals_per_s``, ``threads``, ``load``.

    Raises
    ------
    TuneError, RulesError, StrategyError
        Bad settings (before any deal).
    tranca_sim.lab.output_dir.ExperimentError
        An output directory that exists without ``force``, is a link or cannot be written.
    tranca_sim.io.RunFileError
        A failed write (nothing is left behind).
    """
    import numba
    import optuna

    from ..output_dir import check_out_dir, swap_into_place
    from .tune_report import write_outputs

    rules, base, opp, space = check_config(cfg)
    out = Path(cfg.out)
    check_out_dir(out, cfg.force, "tune")
    if cfg.threads is not None and not 1 <= cfg.threads <= numba.config.NUMBA_NUM_THREADS:
        raise TuneError(
            f"--threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {cfg.threads}"
        )
    n_threads = cfg.threads or numba.get_num_threads()
    threads_before = numba.get_num_threads()
    numba.set_num_threads(n_threads)
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    from tqdm.auto import tqdm

    from tranca_sim.strategies import resolve

    blocks = _Blocks()
    rows: list[dict] = []
    rounds: list[dict] = []
    per_round = cfg.budget // cfg.rounds
    champion, opponent = base, opp
    started = _dt.datetime.now(_dt.UTC)
    from .tune_report import _git_commit, same_parameters

    commit = _git_commit()  # of the code that runs, before anything is committed meanwhile
    load0 = os.getloadavg()
    played = 0
    # a search over few values (switches, short lists) plays each candidate once at most
    search_cap = search_deals_cap(space, per_round, cfg.trial_deals)
    total = (
        cfg.rounds * (search_cap + cfg.select_top * cfg.select_deals + cfg.confirm_deals) + cfg.confirm_deals
    )
    from ...run import engine_cached, say_if_compiling

    compiled = not engine_cached()
    if cfg.progress if cfg.say_compile is None else cfg.say_compile:  # before the bar: one line
        say_if_compiling(cached=not compiled)
    bar = None  # made after the engine is loaded: the compile is not in its rate or time left

    def cand_of(values: dict):
        return resolve(base, **values)

    def record(round_, stage, trial, spec, paired, start, decks, seconds, vs):
        nonlocal played
        t = _test(paired.units, cfg.alpha)
        row = {
            "round": round_,
            "stage": stage,
            "trial": trial,
            **{p.name: float(spec.params[spec.param_names.index(p.name)]) for p in space},
            "strategy": spec.text,
            "label": spec.label,
            "opponent": vs.label,
            "mean": t["mean"],
            "lo": t["lo"],
            "hi": t["hi"],
            "p_greater": t["p_greater"],
            "decks": decks,
            "deals": 2 * decks,
            "went_out": paired.v_out,
            "opp_went_out": paired.b_out,
            "seed": cfg.seed,
            "first_deal": start,
            "seconds": seconds,
        }
        rows.append(row)
        played += 2 * decks  # the bar moved as the pieces were played (_play's tick)
        return row

    try:
        t_load = time.perf_counter()
        _play(rules, base, opp, cfg.seed, 0, 1)  # compile or load the engine before the clock starts
        t_start = time.perf_counter()
        load_seconds = t_start - t_load
        bar = tqdm(
            total=total,
            unit="deal",
            unit_scale=True,
            disable=not cfg.progress,
            desc=f"tune {base.name} ({plural(len(space), 'parameter')})",
        )
        for r in range(1, cfg.rounds + 1):
            first = {p.name: _start_value(p, champion) for p in space}
            queue = [first] + [
                dict(first, **{p.name: v}) for p in space for v in _neighbours(p, first[p.name])
            ]
            sampler = optuna.samplers.TPESampler(
                seed=sampler_seed(cfg.seed, r),
                multivariate=True,
                n_startup_trials=len(queue) + 10,
            )
            study = optuna.create_study(direction="maximize", sampler=sampler)
            for q in queue:
                study.enqueue_trial(q)
            start, decks = blocks.take(cfg.trial_deals, "search", r)
            cache: dict[str, float] = {}
            spent, asked = 0, 0
            while spent + cfg.trial_deals <= per_round and asked < 5 * per_round // cfg.trial_deals:
                trial = study.ask()
                values = {p.name: _suggest(trial, p) for p in space}
                spec = cand_of(values)
                asked += 1
                if spec.text in cache:
                    study.tell(trial, cache[spec.text])
                    continue
                t0 = time.perf_counter()
                paired = _play(rules, spec, opponent, cfg.seed, start, decks, tick=bar.update)
                row = record(
                    r, "search", trial.number, spec, paired, start, decks, time.perf_counter() - t0, opponent
                )
                cache[spec.text] = row["mean"]
                study.tell(trial, row["mean"])
                spent += cfg.trial_deals
                if played == 2 * decks:  # the first trial: say early when the tune is long
                    _say_duration(total, played / (time.perf_counter() - t_start))
                bar.set_postfix_str(f"round {r}: best {study.best_value:+.1f} pts/deal", refresh=False)
            bar.total -= search_cap - spent
            # selection: the best distinct candidates again, on fresh decks
            search = sorted(
                (x for x in rows if x["round"] == r and x["stage"] == "search"), key=lambda x: -x["mean"]
            )
            top = search[: cfg.select_top]
            bar.total -= (cfg.select_top - len(top)) * cfg.select_deals
            s_start, s_decks = blocks.take(cfg.select_deals, "selection", r)
            sel = []
            for x in top:
                spec = resolve(x["strategy"])
                t0 = time.perf_counter()
                paired = _play(rules, spec, opponent, cfg.seed, s_start, s_decks, tick=bar.update)
                row = record(
                    r,
                    "selection",
                    x["trial"],
                    spec,
                    paired,
                    s_start,
                    s_decks,
                    time.perf_counter() - t0,
                    opponent,
                )
                sel.append((row, x))
            win_row, win_search = max(sel, key=lambda rx: rx[0]["mean"])
            winner = resolve(win_row["strategy"])
            c_start, c_decks = blocks.take(cfg.confirm_deals, "confirmation", r)
            t0 = time.perf_counter()
            paired = _play(rules, winner, opponent, cfg.seed, c_start, c_decks, tick=bar.update)
            conf = record(
                r,
                "confirmation",
                win_row["trial"],
                winner,
                paired,
                c_start,
                c_decks,
                time.perf_counter() - t0,
                opponent,
            )
            beat = bool(conf["p_greater"] < cfg.alpha and not same_parameters(winner.text, opponent.text))
            rounds.append(
                {
                    "round": r,
                    "opponent": opponent.text,
                    "opponent_label": opponent.label,
                    "trials": asked,
                    "played": len(search),
                    "search_deals": spent,
                    "winner": winner.text,
                    "winner_label": winner.label,
                    "search_mean": win_search["mean"],
                    "selection_mean": win_row["mean"],
                    "confirmation": conf,
                    "beats_opponent": beat,
                }
            )
            if not beat:
                bar.total -= (cfg.rounds - r) * (
                    search_cap + cfg.select_top * cfg.select_deals + cfg.confirm_deals
                )
                break
            champion = opponent = winner
        f_start, f_decks = blocks.take(cfg.confirm_deals, "final", 0)
        t0 = time.perf_counter()
        paired = _play(rules, champion, opp, cfg.seed, f_start, f_decks, tick=bar.update)
        final = record(0, "final", -1, champion, paired, f_start, f_decks, time.perf_counter() - t0, opp)
        final["win_share_diff"] = paired.win_share_diff
        seconds = time.perf_counter() - t_start
    finally:
        if bar is not None:
            bar.close()
        numba.set_num_threads(threads_before)
    result = {
        "dir": str(out),
        "strategy": base.text,
        "base_label": base.label,
        "opponent": opp.text,
        "opponent_label": opp.label,
        "preset": cfg.preset,
        "rules": dict(cfg.rules),
        "space": space,
        "champion": champion.text,
        "champion_label": champion.label,
        "params": champion.param_dict,
        "final": final,
        "rounds": rounds,
        "blocks": blocks.used,
        "seconds": seconds,
        "load_seconds": load_seconds,
        "compiled": compiled,
        "deals": played,
        "deals_per_s": played / seconds if seconds > 0 else math.inf,
        "threads": n_threads,
        "load": (load0, os.getloadavg()),
        "cpus": os.cpu_count(),
        "started": started.isoformat(timespec="seconds"),
        "commit": commit,
        "command": cfg.command,
        "config": cfg,
    }
    tmp = _io.temp_dir_path(out)
    if cfg.progress:  # the bar is closed above, before the report is built
        sys.stderr.write("building the report ...\n")  # one write: an interrupt cannot split it
        sys.stderr.flush()
    try:
        with _io.writing(out):
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp.mkdir()
        write_outputs(tmp, rows, result)
        with _io.writing(out):
            swap_into_place(tmp, out, "tune")
        if on_written is not None:  # called with the directory as soon as it is in place
            on_written(str(out))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return result


def sampler_seed(seed: int, round_: int) -> int:
    """The TPE sampler's seed of a round: 32 bits of numpy's ``SeedSequence([seed, round_])``."""
    return int(np.random.SeedSequence([seed, round_]).generate_state(1)[0])


def _neighbours(p, v) -> list:
    """The values next to ``v`` of a searched parameter (the first candidates after the start
    point: one parameter changed at a time): a switch flipped, a whole number one step either side,
    a grid's neighbouring values, a real a tenth of its range either side."""
    if p.choices is not None:
        i = list(p.choices).index(v)
        out = [p.choices[j] for j in (i - 1, i + 1) if 0 <= j < len(p.choices)]
        return [int(c) if float(c).is_integer() else c for c in out]
    if p.kind == "switch":
        return [1 - int(v)]
    step = 1 if p.kind == "int" else (p.high - p.low) / 10
    out = [x for x in (v - step, v + step) if p.low <= x <= p.high]
    return [int(x) for x in out] if p.kind == "int" else out


def _start_value(p, spec):
    """The value of searched parameter ``p`` in ``spec`` (the first candidate of a round): clipped to
    the search range, or the nearest value of a grid."""
    v = float(spec.params[spec.param_names.index(p.name)]) if p.name in spec.param_names else p.default
    if p.choices is not None:
        v = min(p.choices, key=lambda c: abs(c - v))
    v = min(max(v, p.low), p.high)
    return int(v) if p.kind in ("switch", "int") or p.choices is not None and float(v).is_integer() else v


def command_line(argv=None) -> str:
    """The command as typed (``tranca-sim tune ...``), for the report and the parameter file."""
    import shlex

    args = list(sys.argv[1:] if argv is None else argv)
    return "tranca-sim " + " ".join(shlex.quote(a) for a in args)


__all__ = ["TuneConfig", "TuneError", "check_config", "command_line", "run_tune"]
