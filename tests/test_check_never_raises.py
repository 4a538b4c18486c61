"""`check` gives a verdict on any log, never a traceback (issue 6, item 2).

Logs are damaged at every level: top-level fields (types, missing, odd presets), the rule set,
the result, the deck, single actions and their fields, the order of the actions, and the raw
bytes of the file.  ``check_log`` must return a :class:`~tranca_sim.referee.Verdict` with a code
and a reason (``internal`` would be a referee fault, so it must never appear), ``check_file`` one
verdict per line, and ``tranca-sim check`` exit 0 or 1 with no traceback.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from tranca_sim import referee as R
from tranca_sim.cli import main

LOGS = Path(__file__).parent / "logs"
ODD = [None, True, False, -1, 0, 1, 3, 4, 99, 1.5, "x", "KH", "3D", "JK", [], {}, ["KH"], [1], "", 2**70]
ACTS = ["turn", "red3", "draw", "take_pile", "meld", "extend", "black3", "morto", "discard", "go_out", "end"]


@pytest.fixture(scope="module")
def base_logs():
    from tranca_sim.engine.log import play_logged
    from tranca_sim.rules import get_preset

    logs = [
        json.loads(line)
        for f in ("legal.jsonl", "illegal.jsonl")
        for line in (LOGS / f).read_text().splitlines()
        if line.strip()
    ]
    tranca = get_preset("tranca")
    void = tranca.replace(indirect_morto_void=True)
    for rules, strat in ((tranca, ("basic", "random")), (void, ("random", "basic"))):
        logs += [json.loads(json.dumps(play_logged(rules, strat, 5, d))) for d in range(6)]
    return logs


def mutate(log: dict, rng: random.Random) -> dict:
    d = copy.deepcopy(log)
    acts = d["actions"]
    m = rng.randrange(12)
    if m == 0:
        del acts[rng.randrange(len(acts))]
    elif m == 1:
        acts.insert(rng.randrange(len(acts)), copy.deepcopy(rng.choice(acts)))
    elif m == 2:
        i, j = rng.randrange(len(acts)), rng.randrange(len(acts))
        acts[i], acts[j] = acts[j], acts[i]
    elif m == 3:
        a = rng.choice(acts)
        a[rng.choice(list(a))] = rng.choice(ODD)
    elif m == 4:
        rng.choice(acts)["act"] = rng.choice(ACTS)
    elif m == 5:
        a = rng.choice(acts)
        a["seat"], a["turn"] = rng.choice([0, 1, 2, 3, None]), rng.randrange(-1, 6)
    elif m == 6:
        d[rng.choice(list(d))] = rng.choice(ODD)
    elif m == 7:
        del d[rng.choice(list(d))]
    elif m == 8:
        d["rules"][rng.choice(list(d["rules"]))] = rng.choice(ODD)
    elif m == 9:
        s = rng.choice("AB")
        d["result"][s][rng.choice(list(d["result"][s]))] = rng.choice(ODD)
    elif m == 10:
        i, j = rng.randrange(len(d["deck"])), rng.randrange(len(d["deck"]))
        d["deck"][i], d["deck"][j] = d["deck"][j], d["deck"][i]
    else:
        d["preset"] = rng.choice(ODD)
    return d


def test_check_log_always_gives_a_verdict(base_logs):
    rng = random.Random(6)
    codes = set()
    for _ in range(3000):
        lg = rng.choice(base_logs)
        for _ in range(rng.randint(1, 3)):
            try:
                lg = mutate(lg, rng)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                break  # a field the next mutation needed is already gone: judge what we have
        v = R.check_log(lg)
        assert isinstance(v, R.Verdict)
        assert v.ok or (v.code and v.reason), v
        assert v.code != "internal", str(v)
        str(v)
        codes.add(v.code)
    assert {"format", "score", "sequence", "out_of_turn"} <= codes


def test_odd_top_level_values_are_format_verdicts(base_logs):
    lg = base_logs[0]
    for bad in ([], {}, 3, None):
        d = copy.deepcopy(lg)
        d["preset"] = bad
        v = R.check_log(d)
        assert v.code == "format" and "preset" in v.reason
    for not_a_log in (None, [], "x", 3):
        assert R.check_log(not_a_log).code == "format"


def test_check_file_and_cli_on_damaged_bytes(tmp_path, base_logs, capsys):
    rng = random.Random(8)
    text = "".join(json.dumps(lg) + "\n" for lg in base_logs[:6]).encode()
    for k in range(40):
        data = bytearray(text)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(data))
            data[i] = rng.choice(b'{}[]",:0123456789 \n\xff3DHKJ')
        p = tmp_path / f"damaged{k}.jsonl"
        p.write_bytes(bytes(data))
        vs = list(R.check_file(p))
        assert all(v.ok or (v.code and v.code != "internal") for v in vs)
        try:
            status = main(["check", str(p)])
        except SystemExit as e:
            status = e.code
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        assert status in (0, 1, 2), (status, err)
        if status == 2:  # a file with no deals at all, or with a line that is no JSON (damaged bytes)
            assert any(
                w in err for w in ("holds no deals", "is a damaged deal log file", "is not a deal log file")
            )
            assert err.startswith("tranca-sim: error: ") and len(err.strip().splitlines()) == 1


def test_cli_check_of_the_swapped_red3_deal(tmp_path, capsys):
    """Issue 6 item 2: `tranca-sim check` on the legal deal with the 3D dealt to seat 1 and the
    result the engine used to log (the 3D as a 5-point hand card) died with a traceback."""
    log = json.loads((LOGS / "legal.jsonl").read_text().splitlines()[0])
    log["deck"][1], log["deck"][71] = log["deck"][71], log["deck"][1]
    # the result stays as logged (B: hand -260, red 3s 0), which is what the engine used to give
    p = tmp_path / "swapped.jsonl"
    p.write_text(json.dumps(log) + "\n")
    try:
        status = main(["check", str(p)])
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    assert status == 1 and "Traceback" not in out + err
    assert "DISAGREE" in out and "red3_points" in out
