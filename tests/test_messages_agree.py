"""What the CLI and the docs say agrees with what it does, in the user's words (issue 21, item 10):
where a dataset's deal log goes, a dataset named like a run file, what a full disk leaves and how
to finish, the turn-limit warning's place, values spelled as the user types them (true, not True),
what a strategy NAME may hold, and what the program and its presets are."""

from __future__ import annotations

import errno
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from cli_call import call, one_error_line

from tranca_sim import dataset
from tranca_sim.lab.statistics.stats import turn_limit_warning

ROOT = Path(__file__).resolve().parent.parent


def test_deal_log_of_a_dataset_is_said_to_be_inside_it(capsys):
    call(["simulate", "--help"], capsys)
    status, out, _ = call(["simulate", "--help"], capsys)
    help_text = " ".join(out.split())
    assert f"DIR/{dataset.LOG_NAME}" in help_text and "run.log.jsonl" in help_text
    doc = " ".join((ROOT / "docs" / "log-format.md").read_text().split())
    assert f"`DIR/{dataset.LOG_NAME}`" in doc


def test_a_dataset_named_like_a_run_file_is_refused(tmp_path, capsys):
    out = tmp_path / "m06.parquet"
    status, _, err = call(["simulate", "--deals", "4", "--dataset", "--out", str(out)], capsys)
    line = one_error_line(err)
    assert status == 2 and "--dataset" in line and "m06/" in line
    assert not out.exists()


def test_a_full_disk_during_a_dataset_says_resume_finishes_it(tmp_path, capsys, monkeypatch):
    real, calls = pq.write_table, []

    def full_on_the_second(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*a, **k)

    monkeypatch.setattr(dataset.pq, "write_table", full_on_the_second)
    out = tmp_path / "d"
    argv = ["simulate", "--deals", "8", "--chunk-size", "4", "--threads", "1", "--no-progress",
            "--out", f"{out}/"]  # fmt: skip
    status, _, err = call(argv, capsys)
    (line,) = [x for x in err.splitlines() if x.startswith("tranca-sim: error: ")]  # after a compile note
    assert status == 2 and "Traceback" not in err
    assert "No space left on device" in line and "--resume" in line
    monkeypatch.setattr(dataset.pq, "write_table", real)
    status, _, err = call([*argv, "--resume"], capsys)
    assert status == 0, err


def test_turn_limit_warning_does_not_point_above():
    """The warning goes to stderr, before the table on stdout in summarize: no 'above'."""
    w = turn_limit_warning({"turn_limit": 1, "turn_limit_deals": [3], "turn_limit_seeds": [1]})
    assert "above" not in w and "below" not in w


@pytest.mark.parametrize(
    ("argv", "said", "not_said"),
    [
        (["simulate", "--rule", "partnerships=false", "--deals", "4", "--out", "x.parquet"],
         "partnerships=false", "False"),
        (["simulate", "--rule", "n_seats=2", "--deals", "4", "--out", "x.parquet"], "partnerships=true", "True"),
    ],
)  # fmt: skip
def test_rule_values_are_spelled_as_typed(argv, said, not_said, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = call(argv, capsys)
    line = one_error_line(err)
    assert status == 2 and said in line and not_said not in line


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("seed = true\n", "got true"),
        ("[stopping]\nhalf_width = -1\n", "greater than 0, got -1"),
        ("[stopping]\nhalf_width = true\n", "got true"),
        ('[sweep]\nstrategy = "basic"\nparam = "go_out"\ngrid = true\n', "got true"),
    ],
)
def test_experiment_values_are_spelled_as_in_toml(body, said, tmp_path, capsys):
    head = 'title = "t"\nquestion = "q"\nbaseline = "basic"\n'
    variant = '[[variants]]\nstrategy = "basic:go_out=0"\n'
    p = tmp_path / "e.toml"
    p.write_text(head + (body if body.startswith("seed") else "") + variant + ("" if body.startswith("seed") else body))
    status, _, err = call(["experiment", str(p), "--out", str(tmp_path / "o")], capsys)
    line = one_error_line(err)
    assert status == 2 and said in line
    for python in ("True", "False", " inf", "'"):
        assert python not in line.split(": ", 3)[-1], line


def test_a_strategy_name_with_an_accent_is_said_to_need_ascii(tmp_path, capsys):
    src = (ROOT / "tests" / "strategies" / "forever.py").read_text()
    import re

    f = tmp_path / "jogaco.py"
    f.write_text(re.sub(r'NAME = "[^"]*"', 'NAME = "jogaço"', src, count=1))
    status, _, err = call(["strategies", str(f)], capsys)
    line = one_error_line(err)
    assert status == 2 and "ASCII" in line and "jogaço" in line


def test_the_program_says_it_plays_buraco_too_and_presets_name_no_internal_files(capsys):
    status, out, _ = call(["--help"], capsys)
    assert "Buraco" in " ".join(out.split())
    status, out, _ = call(["presets"], capsys)
    assert status in (0, None)
    assert ".txt" not in out and "VARIANTS" not in out and "seed 00" not in out
    assert "(E1" not in out
    assert "'How to Play Tranca'" in out and "Buraco" in out


def test_strategies_with_a_file_lists_that_file_only(capsys):
    """`tranca-sim strategies FILE` printed the whole built-in list (about 40 lines) before the
    file's own check: with a file it says the file's check and its strategy's parameters only."""
    from tranca_sim.strategies import builtin_names

    example = ROOT / "examples" / "greedy.py"
    status, out, err = call(["strategies", str(example)], capsys)
    assert status in (0, None), err
    lines = out.splitlines()
    assert not [x for x in lines if x.split(":")[0] in builtin_names()], out
    assert lines[0].startswith(f"{example}: ") and "contract" in lines[0]
    assert f"{example}:greedy: " in out and "min_pile=1  (whole number 1 to 108)" in out
    assert len(lines) == 4, out  # the check, the strategy, its parameters' heading, min_pile
    status, out, _ = call(["strategies"], capsys)
    assert "basic: " in out and "greedy" not in out  # alone, the built-in list as before


def test_a_passing_check_says_what_it_checked_over_how_many_deals(tmp_path, capsys):
    """`simulate --check` that found nothing printed nothing about the checks: one line now says
    which checks ran, over how many deals, and that they passed; without --check, no such line."""
    argv = ["simulate", "--deals", "6", "--seed", "5", "--threads", "1", "--no-progress"]
    status, out, err = call([*argv, "--check", "--out", str(tmp_path / "c.parquet")], capsys)
    assert status in (0, None), err
    said = [x for x in out.splitlines() if "--check" in x]
    assert len(said) == 1, out
    assert "all 6 deals passed" in said[0] and "invariant checks" in said[0]
    assert "every card in exactly one place" in said[0] and "every meld on the table legal" in said[0]
    status, out, err = call([*argv, "--out", str(tmp_path / "n.parquet")], capsys)
    assert status in (0, None), err
    assert "invariant" not in out and "--check" not in out


def test_a_warning_about_the_experiment_file_is_said_once(tmp_path, capsys, monkeypatch):
    """The tour's experiment file read twice in one command (checked, then run) said its idle
    sweep value twice; one warning line per distinct message."""
    import warnings

    from tranca_sim import cli
    from tranca_sim.lab.experiments.spec import IdleVariantWarning

    text = "e.toml: sweep.grid (morto_stock=108): the baseline's own value"

    def experiment(a):  # two places warn (Python's registry keeps one a place)
        warnings.warn(IdleVariantWarning(text))
        warnings.warn(IdleVariantWarning(text))

    monkeypatch.setattr(cli, "_cmd_experiment", experiment)
    status, _, err = call(["experiment", str(tmp_path / "e.toml"), "--out", str(tmp_path / "o")], capsys)
    assert status == 0, err
    assert err.count("the baseline's own value") == 1, err
