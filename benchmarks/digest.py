"""Per-deal results of every played preset and built-in strategy pairing, as one digest each.

Usage::

    python benchmarks/digest.py [--deals 3000] [--out digests.json] [--compare digests.json] [--preset NAME ...]
                                [--no-search]

Runs ``simulate_chunk`` (seed 11, deals 0..N-1, with the invariant checks on) for every preset x
every built-in pairing in :data:`PAIRS` (``search`` on ``--search-deals`` deals only: it plays tens
of deals a second), and ``simulate_match_chunk`` (``--matches`` matches of basic vs random), and
prints a SHA-256 of all the columns of each.  An
engine change meant to be a pure speed-up must leave every digest unchanged: write them before the
change (``--out``), then ``--compare`` after it (exit 1 on any difference, or if a deal broke an
invariant).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PAIRS = (
    ("basic", "basic"),
    ("random", "random"),
    ("basic", "random"),
    ("passive", "basic"),
    ("tuned", "random"),
    ("search", "basic"),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--deals", type=int, default=3000)
    ap.add_argument("--search-deals", type=int, default=12)
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--compare", type=Path)
    ap.add_argument(
        "--preset",
        nargs="+",
        metavar="NAME",
        help="only these presets (default: every preset); --compare then checks only their digests",
    )
    ap.add_argument(
        "--no-search",
        action="store_true",
        help="leave out the pairings with search: plays the lean engine (compiled without the search "
        "player); --compare then checks only the other digests",
    )
    args = ap.parse_args()

    import numpy as np

    from tranca_sim.strategies import StrategyError, prepare_engine

    pairs = [p for p in PAIRS if not (args.no_search and "search" in p)]
    prepare_engine([s for p in pairs for s in p])  # before the engine loads: search compiled in if played
    from tranca_sim.engine import simulate_chunk
    from tranca_sim.engine.match import simulate_match_chunk
    from tranca_sim.rules import PRESETS

    got: dict[str, str] = {}
    bad = 0

    def digest(key: str, cols: dict) -> None:
        nonlocal bad
        bad += int(cols["invariant_errors"].sum() + cols["illegal_choices"].sum())
        h = hashlib.sha256()
        for k in sorted(cols):
            h.update(k.encode())
            h.update(np.ascontiguousarray(cols[k]).tobytes())
        got[key] = h.hexdigest()
        print(f"{key:34s} {got[key][:16]}", flush=True)

    unknown = sorted(set(args.preset or ()) - set(PRESETS))
    if unknown:
        ap.error(f"--preset: unknown {', '.join(unknown)}; allowed: {', '.join(PRESETS)}")
    for name, rules in PRESETS.items():
        if args.preset and name not in args.preset:
            continue
        for a, b in pairs:
            n = args.search_deals if "search" in (a, b) else args.deals
            try:
                cols = simulate_chunk(rules, (a, b), 11, 0, n, check=True)
            except StrategyError as e:  # search plays only some presets
                got[f"{name} {a}-{b}"] = "not played"
                print(f"{name} {a}-{b}: not played ({e})", flush=True)
                continue
            digest(f"{name} {a}-{b}", cols)
        if args.matches:
            cols = simulate_match_chunk(rules, ("basic", "random"), 11, 0, args.matches, check=True)
            digest(f"{name} match basic-random", cols)
    if args.out:
        args.out.write_text(json.dumps(got, indent=1))
    status = 0
    if bad:
        print(f"invariant errors or illegal choices: {bad}")
        status = 1
    if args.compare:
        want = json.loads(args.compare.read_text())
        if args.preset:  # a digest of another preset was not played here
            want = {k: v for k, v in want.items() if k.split(" ", 1)[0] in args.preset}
        if args.no_search:
            want = {k: v for k, v in want.items() if "search" not in k}
        diff = [k for k in want if got.get(k) != want[k]]
        print("identical to", args.compare, "" if not diff else f"EXCEPT {diff}")
        status = status or (1 if diff else 0)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
