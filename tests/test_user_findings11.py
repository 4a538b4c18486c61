"""The eleventh fresh user's findings (main 3150ae2): a report built from run files of another
run, ``--force`` over a directory that is not an earlier output, out-of-bounds reads in a user
strategy, runs written with failed checks summarized clean, and unclear messages."""

from __future__ import annotations

import shutil

import pytest
from cli_call import call, one_error_line

TWO_TIPS = """
title = "Two tips"
question = "q"
preset = "{preset}"
baseline = "basic"
seed = 3
batch = 4
budget = 8
[[variants]]
label = "lock"
strategy = "{lock}"
[[variants]]
label = "rush"
strategy = "basic:morto_rush=1"
"""


def two_tips(preset: str) -> str:
    """TWO_TIPS for ``preset``; its first tip is the black-3 lock, safe discards in Buraco (no pile is
    locked there, and an experiment refuses black3_lock: F7)."""
    lock = "basic:safe_discard=1" if preset.startswith("buraco") else "basic:black3_lock=1"
    return TWO_TIPS.format(preset=preset, lock=lock)


@pytest.fixture(scope="module")
def two_experiments(tmp_path_factory):
    """A tranca and a buraco experiment of two tips (8 deals a variant), without report."""
    from tranca_sim.lab.experiment import run_experiment

    root = tmp_path_factory.mktemp("f11")
    out = {}
    for preset in ("tranca", "buraco"):
        toml = root / f"two-{preset}.toml"
        toml.write_text(two_tips(preset), encoding="utf-8")
        out[preset] = root / preset
        run_experiment(toml, out[preset], progress=False, report=False, threads=1)
    return out


def _copy(src, tmp_path):
    d = tmp_path / "exp"
    shutil.copytree(src, d)
    return d


def _refused(d, capsys) -> str:
    status, _, err = call(["report", str(d)], capsys)
    assert status == 2
    assert not (d / "report.md").exists()  # nothing written
    assert not list(d.glob("*.png")) and not list(d.glob("*.svg"))
    return one_error_line(err)


def test_report_refuses_a_run_of_another_preset(two_experiments, tmp_path, capsys):
    """F1: a buraco run copied over a tranca variant's run was reported (exit 0, wrong numbers)."""
    d = _copy(two_experiments["tranca"], tmp_path)
    buraco_run = two_experiments["buraco"] / "runs" / "v01-lock.ab.parquet"
    shutil.copyfile(buraco_run, d / "runs" / "v01-lock.ab.parquet")
    line = _refused(d, capsys)
    assert "v01-lock.ab.parquet" in line and "preset 'buraco', not 'tranca'" in line


def test_report_refuses_another_variants_run(two_experiments, tmp_path, capsys):
    """F1: one variant's run under another variant's name."""
    d = _copy(two_experiments["tranca"], tmp_path)
    shutil.copyfile(d / "runs" / "v02-rush.ab.parquet", d / "runs" / "v01-lock.ab.parquet")
    line = _refused(d, capsys)
    assert "v01-lock.ab.parquet" in line
    assert "black3_lock=0, not 1" in line and "label 'rush', not 'lock'" in line


def test_report_refuses_the_twin_run_under_the_other_role(two_experiments, tmp_path, capsys):
    """F1: a variant's sides-swapped run (ba) under its ab name."""
    d = _copy(two_experiments["tranca"], tmp_path)
    shutil.copyfile(d / "runs" / "v01-lock.ba.parquet", d / "runs" / "v01-lock.ab.parquet")
    line = _refused(d, capsys)
    assert "side A plays" in line and "role 'ba', not 'ab'" in line


def test_report_refuses_a_run_of_another_seed(two_experiments, tmp_path, capsys):
    """F1: experiment.json records seed 3; a run whose metadata says another seed is refused."""
    import json

    d = _copy(two_experiments["tranca"], tmp_path)
    spec = json.loads((d / "experiment.json").read_text())
    for r in spec["runs"]:
        if r["path"] == "runs/v02-rush.ba.parquet":
            r["seed"] = 4
    (d / "experiment.json").write_text(json.dumps(spec))
    line = _refused(d, capsys)
    assert "v02-rush.ba.parquet" in line and "seed 3, not 4" in line


def test_report_refuses_a_run_without_tranca_sim_metadata(two_experiments, tmp_path, capsys):
    """F1: a run rewritten by pyarrow without its metadata was reported (summarize refused it)."""
    import pyarrow.parquet as pq

    d = _copy(two_experiments["tranca"], tmp_path)
    f = d / "runs" / "v02-rush.ba.parquet"
    pq.write_table(pq.read_table(f).replace_schema_metadata(None), f)
    line = _refused(d, capsys)
    assert "v02-rush.ba.parquet" in line and "no 'tranca_sim' metadata" in line


def test_report_of_an_untouched_experiment_is_written(two_experiments, tmp_path, capsys):
    d = _copy(two_experiments["buraco"], tmp_path)
    status, _, err = call(["report", str(d)], capsys)
    assert status == 0, err
    assert (d / "report.md").is_file()


# ---- F2: --force replaces only an earlier output of the same command ------------------------
def _foreign_dir(tmp_path):
    d = tmp_path / "scratch"
    (d / "sub").mkdir(parents=True)
    (d / "precious.txt").write_text("keep me")
    (d / "sub" / "p2.txt").write_text("me too")
    return d


def _still_there(d):
    assert (d / "precious.txt").read_text() == "keep me"
    assert (d / "sub" / "p2.txt").read_text() == "me too"
    assert sorted(x.name for x in d.iterdir()) == ["precious.txt", "sub"]


@pytest.mark.parametrize(
    "argv",
    [
        ["experiment", "experiments/example.toml", "--deals", "4"],
        ["tune", "basic", "--params", "go_out", "--budget", "12000", "--trial-deals", "400"],
        ["ladder", "--decks", "10"],
    ],
    ids=["experiment", "tune", "ladder"],
)
def test_force_refuses_a_directory_that_is_not_an_earlier_output(tmp_path, capsys, argv):
    """F2: `--out DIR --force` removed any non-empty directory (`--out reports/ --force` every report)."""
    d = _foreign_dir(tmp_path)
    status, _, err = call([*argv, "--out", str(d), "--force"], capsys)
    assert status == 2
    line = one_error_line(err)
    assert f"not an earlier {argv[0]} output" in line and "precious.txt" in line
    _still_there(d)


def test_force_refuses_an_experiment_directory_for_a_ladder(two_experiments, tmp_path, capsys):
    d = _copy(two_experiments["tranca"], tmp_path)
    before = sorted(x.name for x in d.iterdir())
    status, _, err = call(["ladder", "--decks", "10", "--out", str(d), "--force"], capsys)
    assert status == 2
    assert "no ladder.json" in one_error_line(err)
    assert sorted(x.name for x in d.iterdir()) == before


def test_force_replaces_an_earlier_experiment_and_keeps_its_notes(two_experiments, tmp_path, capsys):
    """The README's `--out reports/NAME/ --force` goes on working; a hand-written notes.md (as in
    reports/buraco-tips) is kept in the new directory, a run file of the old one is not."""
    d = _copy(two_experiments["tranca"], tmp_path)
    (d / "notes.md").write_text("my reading")
    toml = tmp_path / "one.toml"
    toml.write_text(two_tips("tranca").split('[[variants]]\nlabel = "rush"')[0])
    status, _, err = call(["experiment", str(toml), "--out", str(d), "--force", "--no-progress"], capsys)
    assert status == 0, err
    assert (d / "notes.md").read_text() == "my reading"
    assert not (d / "runs" / "v02-rush.ab.parquet").exists()
    assert (d / "runs" / "v01-lock.ab.parquet").exists() and (d / "report.md").exists()


def test_out_dot_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    """F10: `experiment ... --out . --force` said `cannot write '.': Device or resource busy`."""
    monkeypatch.chdir(tmp_path)
    toml = tmp_path / "one.toml"
    toml.write_text(two_tips("tranca"))
    status, _, err = call(["experiment", str(toml), "--out", ".", "--force", "--no-progress"], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "'.'" in line and "current directory" in line
    assert sorted(x.name for x in tmp_path.iterdir()) == ["one.toml"]


# ---- F4: a run's failed invariant checks and illegal answers are recorded and warned about ---
def test_simulate_records_its_diagnostics_in_the_run_file(tmp_path, capsys):
    """F4: the run file kept no trace of --check's failures or of illegal answers."""
    from tranca_sim.io import load_meta

    out = tmp_path / "r.parquet"
    status, _, err = call(["simulate", "--deals", "20", "--check", "--threads", "1", "--out", str(out)], capsys)
    assert status == 0, err
    diag = load_meta(out)["diagnostics"]
    assert diag["invariant_errors"] == 0 and diag["illegal_choices"] == [0, 0]


def _with_diagnostics(src, dst, diagnostics):
    """``src``'s run file with its metadata's diagnostics replaced (a run written with them)."""
    import json

    import pyarrow.parquet as pq

    t = pq.read_table(src)
    meta = json.loads(pq.read_metadata(src).metadata[b"tranca_sim"])
    meta["diagnostics"] = diagnostics
    pq.write_table(t.replace_schema_metadata({"tranca_sim": json.dumps(meta)}), dst)


def test_summarize_warns_about_a_run_with_failed_checks_or_illegal_answers(tmp_path, capsys):
    """F4: such a run was later summarized clean."""
    out = tmp_path / "r.parquet"
    assert call(["simulate", "--deals", "20", "--threads", "1", "--out", str(out)], capsys)[0] == 0
    status, _, err = call(["summarize", str(out)], capsys)
    assert status == 0 and "warning" not in err
    bad = tmp_path / "bad.parquet"
    _with_diagnostics(out, bad, {"invariant_errors": 3, "meld_full": 0, "illegal_choices": [0, 7]})
    status, _, err = call(["summarize", str(bad)], capsys)
    assert status == 0
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("tranca-sim: warning: "), err
    assert "invariant checks failed 3 times" in lines[0] and "side B" in lines[0] and "7 times" in lines[0]
    assert "side A" not in lines[0]


def test_summarize_warns_about_a_dataset_with_failed_checks(tmp_path, capsys):
    """F4: a dataset's manifest records each chunk's diagnostics; summarize did not read them."""
    import json

    out = tmp_path / "ds"
    argv = ["simulate", "--deals", "20", "--chunk-size", "10", "--threads", "1", "--out", f"{out}/"]
    assert call(argv, capsys)[0] == 0
    m = out / "manifest.json"
    doc = json.loads(m.read_text())
    doc["chunks"][1]["diagnostics"]["invariant_errors"] = 2
    m.write_text(json.dumps(doc))
    status, _, err = call(["summarize", str(out)], capsys)
    assert status == 0
    assert "invariant checks failed 2 times" in err


def test_report_warns_about_a_run_with_illegal_answers(two_experiments, tmp_path, capsys):
    d = _copy(two_experiments["tranca"], tmp_path)
    f = d / "runs" / "v02-rush.ba.parquet"
    _with_diagnostics(f, f, {"invariant_errors": 0, "illegal_choices": [5, 0]})
    status, _, err = call(["report", str(d)], capsys)
    assert status == 0, err
    assert "v02-rush.ba.parquet" in err and "side A" in err and "5 times" in err


def test_experiment_runs_record_their_diagnostics(two_experiments):
    from tranca_sim.io import load_meta

    diag = load_meta(two_experiments["buraco"] / "runs" / "v01-lock.ab.parquet")["diagnostics"]
    assert diag == {"invariant_errors": 0, "illegal_choices": [0, 0]}


# ---- F9: the referee cites the seed of the preset's rule --------------------------------------
@pytest.mark.parametrize(
    ("preset", "cards", "source"),
    [
        # 004 How to play: "Each meld takes only one wild card."
        ("buraco", "5H 2C 7H 2D 9H", "(004 How to play, VARIANTS 2, E17)"),
        # 004 Setup and deal: "Put the two decks together without the jokers"
        ("buraco", "JK 5H 6H", "the pack holds 0 (004 Setup and deal)"),
        ("buraco-fechado", "5H 6H", "(004 How to play)"),
        # 000 Gameplay 7 (two wilds a meld) and 000 Card Deck (4 jokers) stay Tranca's sources
        ("tranca", "KH KD KC 2C JK 2D", "(000 Gameplay 7, VARIANTS 2)"),
        ("tranca", "JK JK JK JK JK 5H", "the pack holds 4 (000 Card Deck)"),
        # 002 Descripción: "Barajas: Dos de 52 cartas" (no jokers)
        ("tranca-br", "JK 5H 6H", "the pack holds 0 (002 Descripción)"),
        # 003 Convenções: "Não tem curingão (Joker)"
        ("tranca-sp", "JK 5H 6H", "the pack holds 0 (003 Convenções)"),
    ],
)
def test_referee_reasons_cite_the_seed_of_the_presets_rule(preset, cards, source):
    """F9: Buraco's one-wild rule cited '000 Gameplay 7, VARIANTS 2, E17' and its joker-less pack
    '000 Card Deck' (Tranca's seed)."""
    from tranca_sim.referee import validate_meld
    from tranca_sim.rules import get_preset

    reason = validate_meld(cards, get_preset(preset)).reason
    assert reason is not None and reason.endswith(source), reason


# ---- F8: replay wording for Buraco ----------------------------------------------------------
def test_buraco_replay_names_the_game_and_says_when_a_morto_becomes_the_stock(tmp_path, capsys):
    """F8: the HTML page was titled 'Tranca deal 1 (buraco, ...)', and the text replay never said
    that the stock ran out and a morto became the stock (the log's morto_stock, 004 / E22).  Deal 1
    of seed 5, basic against random in buraco: the stock runs out at turn 58 and side B's untaken
    morto becomes the stock."""
    run = tmp_path / "b.parquet"
    argv = ["simulate", "--preset", "buraco", "--deals", "2", "--seed", "5", "--threads", "1", "--out", str(run)]
    assert call(argv, capsys)[0] == 0
    page = tmp_path / "b.html"
    status, out, err = call(["replay", str(run), "--deal", "1", "--html", str(page)], capsys)
    assert status == 0, err
    lines = out.splitlines()
    at = [i for i, x in enumerate(lines) if "morto becomes the stock" in x]
    assert len(at) == 1, out
    assert "the stock is empty: side B's morto becomes the stock (11 cards" in lines[at[0]]
    assert lines[at[0] - 1].startswith("turn 58 ") and "stock 0" in lines[at[0] - 1]
    assert "<title>Buraco deal 1 (buraco, seed 5)" in page.read_text()


def test_tranca_replay_page_is_still_titled_tranca(tmp_path, capsys):
    run = tmp_path / "t.parquet"
    assert call(["simulate", "--deals", "1", "--threads", "1", "--out", str(run)], capsys)[0] == 0
    page = tmp_path / "t.html"
    assert call(["replay", str(run), "--deal", "0", "--html", str(page)], capsys)[0] == 0
    assert "<title>Tranca deal 0 (tranca, seed " in page.read_text()


# ---- F10: clearer messages -------------------------------------------------------------------
ALLOC = '''
import numpy as np
from numba import njit

NAME = "alloc_f10"
PARAMS = ()


@njit(cache=True, _nrt=False)
def choose_draw(prm, obs, acts, n, rng):
    return 0


@njit(cache=True, _nrt=False)
def choose_meld(prm, obs, acts, n, rng):
    return 0


@njit(cache=True, _nrt=False)
def choose_discard(prm, obs, rng):
    buf = np.zeros(53, dtype=np.int64)
    return buf[0]
'''


def test_an_array_allocated_in_a_strategy_is_named_with_the_users_line(tmp_path, capsys):
    """F10: np.zeros gave numba's 'No implementation of function ... zeros ... (arrayobj.py line
    4902)': numba's own file, not the user's."""
    f = tmp_path / "alloc_f10.py"
    f.write_text(ALLOC)
    status, _, err = call(["strategies", str(f)], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "np.zeros: a strategy may not allocate arrays" in line
    at = 1 + ALLOC.split("np.zeros")[0].count("\n")  # the line of the np.zeros call
    assert line.endswith(f"(alloc_f10.py line {at})") and "arrayobj" not in line


def test_a_name_taken_from_the_file_name_says_so(tmp_path, capsys):
    """F10: 'q 😀.toml' failed with "name: use letters..., got 'q 😀'", though the file has no name."""
    toml = tmp_path / "q 😀.toml"
    toml.write_text(two_tips("tranca"), encoding="utf-8")
    status, _, err = call(["experiment", str(toml), "--out", str(tmp_path / "o"), "--no-progress"], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "comes from the file name, 'q 😀'" in line and 'name = "..."' in line
    assert not (tmp_path / "o").exists()


def test_a_dataset_in_a_directory_that_takes_none_names_the_flag(tmp_path, capsys):
    """F10: `simulate --out /proc/a/` said `cannot write '/proc/a': ...` without the usual `--out:`,
    after the engine was loaded."""
    import os

    if not os.path.isdir("/proc") or os.access("/proc", os.W_OK) and _can_mkdir("/proc"):
        pytest.skip("needs a directory that accepts no new directory")
    status, _, err = call(["simulate", "--deals", "10", "--out", "/proc/f10-dataset/"], capsys)
    assert status == 2
    line = one_error_line(err)
    assert line.startswith("tranca-sim: error: --out: cannot write '/proc/f10-dataset'")
    assert "no directory can be created in '/proc'" in line


def _can_mkdir(d) -> bool:
    import os

    try:
        os.mkdir(os.path.join(d, "f10-probe"))
    except OSError:
        return False
    os.rmdir(os.path.join(d, "f10-probe"))
    return True


# ---- F6: report.md's Design section names its methods ---------------------------------------
def test_design_section_names_the_p_the_deal_win_test_and_the_match_interval(tmp_path):
    """F6: the Design section did not say what the p column is (the confidence sequence's
    anytime-valid p in a sequential experiment), that the deal-win p is an exact sign test on decks
    or that the match-win interval is a bootstrap; its Holm line said 5% whatever the alpha."""
    from tranca_sim.lab.experiment import run_experiment

    toml = tmp_path / "seq.toml"
    toml.write_text(two_tips("tranca") + "\n[stopping]\nhalf_width = 2000.0\nalpha = 0.01\n")
    run_experiment(toml, tmp_path / "seq", progress=False, threads=1)
    md = (tmp_path / "seq" / "report.md").read_text()
    design = md.split("## Design", 1)[1].split("\n## ", 1)[0]
    assert "anytime-valid p-value of the confidence sequence" in design
    assert "exact sign test on decks" in design
    assert "99% interval from a bootstrap of the decks" in design
    assert "family-wise error 1% " in design and "adjusted p <= 0.01" in design


# ---- F7: parameters that cannot change play under a preset ----------------------------------
def _toml(tmp_path, body: str, preset: str = "buraco"):
    f = tmp_path / "inert.toml"
    f.write_text(f'title = "t"\nquestion = "q"\npreset = "{preset}"\nbaseline = "basic"\nbatch = 4\nbudget = 8\n'
                 + body)  # fmt: skip
    return f


@pytest.mark.parametrize(
    "body",
    [
        '[[variants]]\nlabel = "lock"\nstrategy = "basic:black3_lock=1"\n',
        '[sweep]\nstrategy = "basic"\nparam = "black3_lock"\ngrid = [0, 1]\n',
    ],
    ids=["variant", "sweep"],
)
def test_experiment_refuses_black3_lock_in_buraco(tmp_path, capsys, body):
    """F7: black3_lock does nothing in Buraco (no pile is locked, 004) but was accepted."""
    status, _, err = call(["experiment", str(_toml(tmp_path, body)), "--out", str(tmp_path / "o")], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "black3_lock cannot change play under buraco" in line and "lock_by_black3 off" in line
    assert "004" in line
    assert not (tmp_path / "o").exists()


def test_experiment_accepts_black3_lock_in_tranca(tmp_path):
    from tranca_sim.lab.spec import load_spec

    spec = load_spec(_toml(tmp_path, '[[variants]]\nstrategy = "basic:black3_lock=1"\n', preset="tranca"))
    assert "black3_lock=1" in spec["variants"][0]["strategy"]


def test_experiment_warns_about_a_parameter_measured_inert(tmp_path):
    from strategies.inert import InertParameterWarning
    from tranca_sim.lab.spec import load_spec

    with pytest.warns(InertParameterWarning, match="take_pile_min changed no deal under buraco"):
        load_spec(_toml(tmp_path, '[[variants]]\nstrategy = "basic:take_pile_min=5"\n'))


def test_tune_does_not_search_black3_lock_in_buraco(tmp_path, capsys):
    """F7: `tune --params` listed black3_lock as searchable for buraco, and tune could put it in
    its winner."""
    argv = ["tune", "basic", "--preset", "buraco", "--budget", "12000", "--trial-deals", "400",
            "--out", str(tmp_path / "t")]  # fmt: skip
    status, _, err = call([*argv, "--params", "black3_lock,go_out"], capsys)
    assert status == 2
    assert "--params black3_lock,go_out: black3_lock cannot change play under buraco" in one_error_line(err)
    status, _, err = call([*argv, "--params", "nope"], capsys)
    searchable = one_error_line(err).split("searchable: ", 1)[1].split(", ")
    assert "go_out" in searchable and "black3_lock" not in searchable and "red3_pace" not in searchable
    from strategies.search import search_space
    from tranca_sim.rules import get_preset

    assert "black3_lock" in [p.name for p in search_space("basic", get_preset("tranca"))]


def _digest(rules, sides, n=400):
    import hashlib

    import numpy as np

    from tranca_sim.engine import simulate_chunk

    cols = simulate_chunk(rules, sides, master_seed=11, start=0, count=n)
    h = hashlib.sha256()
    for k in sorted(cols):
        h.update(k.encode())
        h.update(np.ascontiguousarray(cols[k]).tobytes())
    return h.hexdigest()


def test_the_parameters_called_inert_play_the_same_deals_and_the_others_do_not():
    """The table of strategies/inert.py against play: each parameter it calls inert under a preset
    plays 400 deals exactly as the default (lowest and highest value); black3_lock and
    take_pile_min, inert in buraco, change play in tranca."""
    import strategies.basic as basic
    from strategies.inert import inert_reason
    from tranca_sim.rules import PRESETS

    rng = {p[0]: (p[3], p[4], p[1]) for p in basic.PARAMS}
    checked = 0
    for name, rules in PRESETS.items():
        if rules.n_seats == 3:
            continue  # the same table at three: the 20,000-deal measurement of strategies/inert.py
        base = _digest(rules, ("basic", "basic"))
        for param, (lo, hi, default) in rng.items():
            if inert_reason("basic", param, rules) is None:
                continue
            for v in {lo, hi} - {default}:
                assert _digest(rules, (f"basic:{param}={v:g}", "basic")) == base, (name, param, v)
                checked += 1
    assert checked > 40
    tranca = PRESETS["tranca"]
    base = _digest(tranca, ("basic", "basic"))
    assert _digest(tranca, ("basic:black3_lock=1", "basic")) != base
    assert _digest(tranca, ("basic:take_pile_min=8", "basic")) != base
