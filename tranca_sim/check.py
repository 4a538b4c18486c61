"""Referee the deals of a run file or a deal-log file (``tranca-sim check``).

:func:`check_run` replays a sample of a run's deals from their seed and index,
referees each with :mod:`tranca_sim.referee` and compares the referee's
scores with the run file's rows; both it and :func:`log_turn_limits` name the
deals that ended at the engine's turn limit, which ``check`` counts as a
failure (such a deal did not end by a rule).
"""

from __future__ import annotations

import contextlib
import sys

from ._plural import plural


def log_turn_limits(path) -> list:
    """Deal indices (or line numbers) of the deals of a deal-log file that end at the turn limit;
    lines that are not such logs are left to the referee's verdicts."""
    import json

    found = []
    with contextlib.suppress(OSError, UnicodeDecodeError), open(path, encoding="utf-8-sig") as f:
        for n, line in enumerate(f, 1):
            try:
                log = json.loads(line)
                end = [x for x in log["actions"] if isinstance(x, dict) and x.get("act") == "end"]
            except (ValueError, TypeError, KeyError, AttributeError):
                continue
            if end and end[-1].get("reason") == "turn_limit":
                found.append(log.get("deal_index", f"line {n}"))
    return found


def _match_facts(path, keys) -> dict:
    """Deal key -> match facts (match, deal in match, the sides' match scores before the deal)."""
    from .engine.match import MATCH_STRIDE
    from .io import load_run

    df = load_run(path, backend="pandas", columns=["deal_index", "side", "match_score"])
    after = {(int(k), int(s)): int(v) for k, s, v in zip(df["deal_index"], df["side"], df["match_score"])}
    n_sides = int(df["side"].max()) + 1 if len(df) else 2  # 2, or 3 at three solo players
    out = {}
    for key in keys:
        m, d = divmod(key, MATCH_STRIDE)
        scores = [after[(key - 1, s)] for s in range(n_sides)] if d else [0] * n_sides
        out[key] = {"match_index": m, "deal_in_match": d, "scores": scores}
    return out


def check_run(path, sample: int, progress: bool = True, warn=None):
    """Referee ``sample`` deals of a run, drawn with the run's seed, and compare each referee
    score with the run file's rows for that deal.

    Parameters
    ----------
    path : str or os.PathLike
        A run file (verified by :func:`tranca_sim.io.verify_run` first).
    sample : int
        Deals to check; more than the run's deals checks every deal (``warn`` is told).
    progress : bool
        A tqdm bar on stderr with the rate and the time left (the referee checks some tens
        of deals a second).
    warn : callable, optional
        Called with one sentence when ``sample`` is capped.

    Returns
    -------
    tuple
        The :class:`tranca_sim.referee.Verdict` of each deal checked, a description of the
        sample, and the sorted indices of every deal of the run (not only the sample) whose
        ``end_reason`` is ``turn_limit``.

    Raises
    ------
    tranca_sim.io.RunFileError
        For a missing, damaged or foreign run file.
    """
    import numpy as np
    from tqdm.auto import tqdm

    from . import referee
    from .io import load_meta, load_run
    from .replay import regenerate

    meta = load_meta(path)
    from tranca_sim.strategies import prepare_engine

    prepare_engine(meta.get("strategies"))  # before the engine is imported (_match_facts)
    df = load_run(path, backend="pandas", columns=["deal_index", "side", "score", "end_reason"])
    if meta.get("matches"):  # a match run: sample among the deals its matches took (deal keys)
        keys = np.unique(df["deal_index"].to_numpy())
        deals = len(keys)
    else:
        keys = None
        deals = int(meta.get("deals", 0))
    if sample > deals and warn is not None:
        warn(f"--sample {sample} is more than the run's {plural(deals, 'deal')}; checking all {deals}")
    k = min(sample, deals)
    idx = sorted(
        int(i) for i in np.random.default_rng(int(meta.get("master_seed", 0))).choice(deals, k, replace=False)
    )
    facts = {}
    if keys is not None:
        idx = [int(keys[i]) for i in idx]
        facts = _match_facts(path, idx)
    limited = sorted(int(i) for i in df.loc[df["end_reason"] == "turn_limit", "deal_index"].unique())
    scores = df.set_index(["deal_index", "side"])["score"]
    verdicts = []
    # the referee checks some tens of deals a second: show the rate and the time left
    for i in tqdm(idx, desc="refereeing", unit="deal", disable=not progress or k == 0, file=sys.stderr):
        v = referee.check_log(regenerate(path, i, match=facts.get(i)))
        names = list(v.scores) if v.ok else []  # "A", "B" (and "C" at a three-player table)
        in_file = [scores.get((i, s)) for s in range(len(names))]
        replayed = [v.scores[n]["score"] for n in names] if v.ok else None
        if v.ok and in_file != replayed:
            says = ", ".join(f"{n} {x}" for n, x in zip(names, in_file))
            gets = ", ".join(f"{n} {x}" for n, x in zip(names, replayed))
            v = referee.Verdict(
                False,
                "run_file",
                f"the run file says {says}; the replayed, refereed deal scores {gets}",
                deal_index=i,
            )
        verdicts.append(v)
    if k == deals:
        what = f"all {k} deals of {path}" if k != 1 else f"the one deal of {path}"
    else:
        what = f"{k} deal{'s' * (k != 1)} sampled from {path}"
    if keys is not None:
        n_matches, bad = _check_matches(path, meta)
        for m, problem in bad:
            verdicts.append(referee.Verdict(False, "match", f"match {m}: {problem}", deal_index=m * 1024))
        what += f", and the match scores and winners of all {plural(n_matches, 'match', 'matches')} ({len(bad)} wrong)"
    return verdicts, what, limited


def _check_matches(path, meta) -> tuple[int, list[tuple[int, str]]]:
    """Every match of a match run checked from its rows by the referee's own match rule
    (:func:`tranca_sim.referee.match.check_match_rows`): running scores, the deal that decides
    it, the winner, the dealer's rotation.  Returns the number of matches and the problems."""
    from .io import load_run
    from .referee.match import check_match_rows

    cols = [
        "match_index", "deal_in_match", "side", "score", "match_score", "match_deals", "match_winner", "first_seat",
    ]  # fmt: skip
    df = load_run(path, backend="pandas", columns=cols)
    r = meta["rules"]
    bad = check_match_rows(df, int(r["match_target"]), int(r["max_match_deals"]), int(r["n_seats"]))
    return int(df["match_index"].nunique()), bad
