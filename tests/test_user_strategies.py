"""Users' own strategies: a file named by path, an installed package (entry point), bad files.

The runs with a user strategy happen in fresh processes (the engine of a process is built
once, with the strategies named before it loads; this test process has the built-in one).
The example of docs/strategies.md (examples/greedy.py) is run from a temporary directory
outside the repository with a temporary cache directory, so its first run compiles (twice:
the second time after an edit; about 1-3 minutes on a busy 2-core machine).  Replay and check
of a run with a user strategy are tested with the installed one (tests/strategies/allbad.py),
whose kernels stay in the suite's cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_call import call, one_error_line

from tranca_sim.io import load_meta, load_run
from tranca_sim.strategies import StrategyError, resolve, user
from tranca_sim.strategies.user import check_file, split_file_spec

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "greedy.py"
ALLBAD_DIR = ROOT / "tests" / "strategies"


def cli(*args, cwd, cache=None, path=()):
    """``tranca-sim ARGS`` in a fresh process: (exit status, stdout, stderr)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *map(str, path)])
    env.pop(user.ENV, None)
    env.pop(user.SEARCH_ENV, None)  # these runs never name search: the lean engine, less to compile
    if cache is not None:
        env["TRANCA_SIM_CACHE_DIR"] = str(cache)
        env.pop("NUMBA_CACHE_DIR", None)
    p = subprocess.run(
        [sys.executable, "-m", "tranca_sim.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    return p.returncode, p.stdout, p.stderr


def assert_one_error_line(status, err, *words):
    """Exit status 2 and one ``tranca-sim: error:`` line holding every one of ``words``."""
    assert status == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tranca-sim: error: ")
    for w in words:
        assert w in lines[0], lines[0]


# ---- naming -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, parts",
    [
        ("my.py", ("my.py", None, None)),
        ("my.py:greedy", ("my.py", "greedy", None)),
        ("my.py:greedy:min_pile=3,x=1", ("my.py", "greedy", "min_pile=3,x=1")),
        ("my.py:min_pile=3", ("my.py", None, "min_pile=3")),
        (" sub dir/my.py : greedy ", ("sub dir/my.py", "greedy", None)),
        ("a.py.py:g", ("a.py.py", "g", None)),
        ("basic", None),
        ("basic:go_out=0", None),
        ("my.pyc", None),
    ],
)
def test_file_specs_are_split_into_path_name_and_parameters(text, parts):
    assert split_file_spec(text) == parts


@pytest.mark.parametrize("text", ["my.py:", "my.py::x=1", "my.py:greedy:"])
def test_empty_parts_of_a_file_spec_are_refused(text):
    with pytest.raises(StrategyError):
        split_file_spec(text)


# ---- the contract, checked in this process (no engine needed) -----------------------------

GOOD = EXAMPLE.read_text()


def _variant(old: str, new: str) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new)


BAD_FILES = [
    ("syntax", _variant("take = obs.pub[PUB_PILE_N] >= prm[0]", "take = obs.pub[PUB_PILE_N] >= "), "line 21"),
    ("binary", _variant('NAME = "greedy"', 'NAME = "greedy"\x00\x01'), "contains NUL bytes"),
    ("raises", _variant('NAME = "greedy"', 'NAME = "greedy"\nimport no_such_module'), "ModuleNotFoundError"),
    ("no_name", _variant('NAME = "greedy"', ""), "defines no NAME"),
    ("bad_name", _variant('NAME = "greedy"', 'NAME = "my strategy"'), "NAME must be ASCII letters"),
    ("builtin", _variant('NAME = "greedy"', 'NAME = "basic"'), "taken by a built-in"),
    ("no_params", _variant("PARAMS = (", "_PARAMS = ("), "defines no PARAMS"),
    ("default_out", _variant('cards", 1, 108', 'cards", 2, 108'), "default 1 is outside 2..108"),
    ("kind", _variant('108, "int")', '108, "integer")'), "kind must be one of real, int, switch"),
    ("twice", _variant("PARAMS = (", "PARAMS = (('min_pile', 1, 'x'),"), "declared twice"),
    (
        "no_meld",
        _variant(
            "def choose_meld(",
            "def choose_meld_(",
        ),
        "defines no choose_meld",
    ),
    (
        "not_njit",
        _variant("@njit(cache=True, _nrt=False)\ndef choose_discard", "def choose_discard"),
        "not a numba",
    ),
    ("args", _variant("def choose_discard(prm, obs, rng)", "def choose_discard(prm, obs)"), "must take"),
    ("typing", _variant("obs.pub[PUB_PILE_N] >= prm[0]", "obs.pubs[PUB_PILE_N] >= prm[0]"), "'pubs'"),
    ("float", _variant("    return best\n", "    return best * 0.5\n"), "must return an integer"),
]


@pytest.mark.parametrize("stem, text, message", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_a_file_that_breaks_the_contract_is_refused_with_a_reason(tmp_path, stem, text, message):
    f = tmp_path / f"{stem}.py"
    f.write_text(text)
    with pytest.raises(StrategyError) as e:
        check_file(str(f))
    msg = str(e.value)
    assert message in msg and "\n" not in msg and "line None" not in msg, msg
    assert f"{stem}.py" in msg


def test_missing_files_and_directories_are_refused(tmp_path):
    with pytest.raises(StrategyError, match="not found"):
        check_file(str(tmp_path / "nope.py"))
    (tmp_path / "d.py").mkdir()
    with pytest.raises(StrategyError, match="is a directory"):
        check_file(str(tmp_path / "d.py"))


def test_the_example_keeps_the_contract():
    mod = check_file(str(EXAMPLE))
    assert mod.NAME == "greedy" and [p[0] for p in mod.PARAMS] == ["min_pile"]
    assert 20 <= len(EXAMPLE.read_text().splitlines()) <= 50  # "about 30 lines"


def test_the_documented_example_is_the_example_file():
    doc = (ROOT / "docs" / "strategies.md").read_text()
    assert "```python\n" + EXAMPLE.read_text() + "```" in doc


def test_a_new_file_after_the_engine_loaded_says_to_start_a_new_process(tmp_path):
    import tranca_sim.engine.kernel  # noqa: F401 -- the engine of this process, built-ins only

    f = tmp_path / "late.py"
    shutil.copy(EXAMPLE, f)
    with pytest.raises(StrategyError, match="already loaded.*new process"):
        resolve(f"{f}:greedy")


# ---- the command line: one error line, and listing a file --------------------------------


def test_bad_strategy_files_give_one_error_line(tmp_path):
    (tmp_path / "syn.py").write_text(BAD_FILES[0][1])
    for spec, words in [
        ("missing.py", ("not found", str(tmp_path))),
        ("syn.py:greedy", ("syn.py", "line 21")),
        (f"{EXAMPLE}:greedi", ("defines strategy 'greedy', not 'greedi'",)),
        (f"{EXAMPLE}:greedy:min_pile=0", ("min_pile", "from 1 to 108")),
    ]:
        status, _, err = cli("simulate", "--deals", "5", "--side-a", spec, "--out", "x.parquet", cwd=tmp_path)
        assert_one_error_line(status, err, *words)
    assert not (tmp_path / "x.parquet").exists()
    status, out, err = cli("strategies", str(EXAMPLE), cwd=tmp_path)
    assert status == 0, err
    assert f"{EXAMPLE}:greedy: " in out and "min_pile=1  (whole number 1 to 108)" in out
    assert_one_error_line(*cli("strategies", "syn.py", cwd=tmp_path)[::2], "syn.py", "line 21")


# ---- runs with a user's file (compiles the engine with it) --------------------------------


def _kernel_cache_files(cache: Path) -> set[str]:
    return {str(p.relative_to(cache)) for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc")}


def test_a_strategy_file_runs_by_path_and_recompiles_when_edited(tmp_path):
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    mine = work / "my_strats.py"
    shutil.copy(EXAMPLE, mine)
    dispatch = ROOT / "strategies" / "_dispatch.py"
    before = dispatch.stat().st_mtime_ns
    spec = "my_strats.py:greedy:min_pile=2"
    args = (
        "simulate",
        "--deals",
        "300",
        "--seed",
        "7",
        "--side-a",
        spec,
        "--side-b",
        "basic",
        "--no-progress",
    )

    status, out, err = cli(*args, "--out", "run1.parquet", cwd=work, cache=cache)
    assert status == 0, err
    meta = load_meta(work / "run1.parquet")
    a = meta["strategies"][0]
    assert a["text"] == spec and a["name"] == "greedy" and a["params"] == [2.0]
    assert a["file"] == str(mine.resolve()) and a["path"] == "my_strats.py"
    assert a["sha256"] == hashlib.sha256(mine.read_bytes()).hexdigest()
    run1 = load_run(work / "run1.parquet", backend="pandas")
    assert set(run1.loc[run1.side == 0, "strategy"]) == {"greedy"}
    assert "greedy" in out and "invariant" not in err
    # the generated switch is in the cache directory, not in the package
    switches = list(cache.glob("*-u*/tranca_sim_dispatch_*.py"))
    assert len(switches) == 1 and str(mine.resolve()) in switches[0].read_text()
    assert dispatch.stat().st_mtime_ns == before

    # a second run loads the cached kernels: no new compiled code, the same deals
    compiled = _kernel_cache_files(cache)
    status, _, err = cli(*args, "--out", "run1b.parquet", cwd=work, cache=cache)
    assert status == 0, err
    assert _kernel_cache_files(cache) == compiled
    assert (load_run(work / "run1b.parquet", backend="pandas").score == run1.score).all()

    # edit the file: discard from pairs instead of single cards -> new kernels, other deals
    text = mine.read_text()
    mine.write_text(text.replace("(1000 if c == 1 else 0)", "(0 if c == 1 else 1000)"))
    assert mine.read_text() != text
    old_dir = switches[0].parent
    status, _, err = cli(*args, "--out", "run2.parquet", cwd=work, cache=cache)
    assert status == 0, err
    # a new directory for the edited file; the old one (about 4 MB of kernels no run loads again) is
    # removed, the built-in engine's directory is kept (a fresh user's find: each edit left one more)
    (switch,) = cache.glob("*-u*/tranca_sim_dispatch_*.py")
    assert switch.parent != old_dir and not old_dir.exists()
    assert hashlib.sha256(mine.read_bytes()).hexdigest() in switch.read_text()
    assert (cache / old_dir.name.split("-")[0]).is_dir()  # the built-in engine's directory
    run2 = load_run(work / "run2.parquet", backend="pandas")
    assert (run2.deal_index == run1.deal_index).all()
    assert (run2.score != run1.score).mean() > 0.2  # measured: 42% of the rows

    # a child process (joblib) plays the same strategy as its parent
    script = textwrap.dedent(
        """
        import json, sys
        from joblib import Parallel, delayed
        from tranca_sim.strategies import resolve
        spec = resolve("my_strats.py:greedy:min_pile=2")  # named before the engine loads
        from tranca_sim.engine import simulate_chunk
        from tranca_sim.rules import get_preset
        rules = get_preset("tranca")
        here = simulate_chunk(rules, (spec, "basic"), 7, 0, 40)["score"].tolist()
        there = Parallel(n_jobs=2)(delayed(simulate_chunk)(rules, (spec, "basic"), 7, 0, 40) for _ in range(2))
        print(json.dumps([here, [t["score"].tolist() for t in there]]))
        """
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), TRANCA_SIM_CACHE_DIR=str(cache))
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop(user.SEARCH_ENV, None)  # the lean engine the runs above compiled
    p = subprocess.run([sys.executable, "-c", script], cwd=work, env=env, capture_output=True, text=True,
                       timeout=900, check=False)  # fmt: skip
    assert p.returncode == 0, p.stderr
    here, there = json.loads(p.stdout)
    assert there == [here, here] and here == run2.score.tolist()[:80]

    # the run of the old version cannot be replayed with the edited file, nor without it
    assert_one_error_line(
        *cli("replay", "run1.parquet", "--deal", "4", cwd=work, cache=cache)[::2], "has changed"
    )
    mine.unlink()
    assert_one_error_line(
        *cli("replay", "run1.parquet", "--deal", "4", cwd=work, cache=cache)[::2], "missing"
    )


def test_an_installed_strategy_with_illegal_answers_plays_like_passive(tmp_path):
    """tests/strategies/allbad.py answers outside the legal choices at every decision; the
    engine's replacements (first legal draw = the stock while it has cards, stop melding,
    lowest legal kind in hand; tranca_sim/engine/deal.py) are exactly passive's choices, so every
    deal must score as passive's deal with the same seed, and no rule may break (--check)."""
    site = tmp_path / "site"
    info = site / "allbad_strategies-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: allbad-strategies\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[tranca_sim.strategies]\nallbad = allbad\n")
    path = (site, ALLBAD_DIR)

    status, out, err = cli("strategies", cwd=tmp_path, path=path)
    assert status == 0, err
    assert "allbad: " in out and "(installed)" in out

    args = ("simulate", "--deals", "200", "--seed", "3", "--side-b", "basic", "--check", "--no-progress")
    status, out, err = cli(*args, "--side-a", "allbad", "--out", "bad.parquet", cwd=tmp_path, path=path)
    assert status == 0, err
    warning = [x for x in err.splitlines() if "outside the legal choices" in x]
    assert len(warning) == 1 and warning[0].startswith("tranca-sim: warning: side A (allbad) answered ")
    assert int(warning[0].split(" answered ")[1].split()[0]) > 200  # every turn of side A has some
    meta = load_meta(tmp_path / "bad.parquet")["strategies"][0]
    assert meta["file"] == str(ALLBAD_DIR / "allbad.py") and "path" not in meta

    # replay and check find the installed strategy again (the deal player compiles once per cache)
    status, out, err = cli("replay", "bad.parquet", "--deal", "4", cwd=tmp_path, path=path)
    assert status == 0, err
    assert "A = allbad (seats 0, 2)" in out and "(A, allbad)" in out
    status, out, err = cli("check", "bad.parquet", "--sample", "3", cwd=tmp_path, path=path)
    assert status == 0, err + out
    assert "3 of 3 deals agreed" in out

    status, _, err = cli(*args, "--side-a", "passive", "--out", "passive.parquet", cwd=tmp_path)
    assert status == 0, err
    bad = load_run(tmp_path / "bad.parquet", backend="pandas")
    passive = load_run(tmp_path / "passive.parquet", backend="pandas")
    assert (bad.score == passive.score).all() and (bad.n_turns == passive.n_turns).all()


def _user_dir(base, name: str, files: dict) -> Path:
    """A user-strategy cache directory as the package makes one: its switch's docstring lists each
    file with its sha256 (tranca_sim.strategies.user.render)."""
    d = base / name
    d.mkdir(parents=True)
    listed = "".join(f"- {4 + i}: s{i} = {f} (sha256 {sha})\n" for i, (f, sha) in enumerate(files.items()))
    (d / f"tranca_sim_dispatch_{name.split('-u')[1].replace('-', '_')}.py").write_text(
        '"""Generated by tranca-sim (strategies/user.py) for this selection of strategies: do not edit.\n\n'
        f'User strategies (id: NAME = file):\n\n{listed}"""\n\nfrom numba import njit\n'
    )
    (d / "engine_x").mkdir()
    (d / "engine_x" / "kernel.nbc").write_bytes(b"x" * 1000)
    return d


def test_stale_user_strategy_caches_are_pruned_and_nothing_else(tmp_path):
    """Every edit of a user's strategy file left another ~4 MB cache directory. The directories of
    files that changed or are gone are removed; the current one, those of unchanged files (another
    user file, the same file with the search player), the built-in engine's and anything the package
    did not make are kept."""
    base = tmp_path / "cache"
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("version 2")
    b.write_text("b")
    sha = lambda t: hashlib.sha256(t.encode()).hexdigest()
    h = "0123456789abcdef"
    current = _user_dir(base, f"{h}-u{'1' * 12}", {a: sha("version 2")})
    same_search = _user_dir(base, f"{h}-u{'1' * 12}-search", {a: sha("version 2")})
    edited = _user_dir(base, f"{h}-u{'2' * 12}", {a: sha("version 1")})
    edited_old_hash = _user_dir(base, f"{'f' * 16}-u{'3' * 12}-search", {a: sha("version 0")})
    other_file = _user_dir(base, f"{h}-u{'4' * 12}", {b: sha("b")})
    pair_one_edited = _user_dir(base, f"{h}-u{'5' * 12}", {b: sha("b"), a: sha("version 1")})
    gone = _user_dir(base, f"{h}-u{'6' * 12}", {tmp_path / "deleted.py": sha("x")})
    builtin = base / h
    (builtin / "engine_x").mkdir(parents=True)
    not_ours = _user_dir(base, "my-u-notes", {a: sha("version 1")})  # not a name the package makes
    no_switch = base / f"{h}-u{'7' * 12}"
    no_switch.mkdir()
    removed = user.prune_user_caches(current)
    assert sorted(removed) == sorted([edited, edited_old_hash, pair_one_edited, gone])
    for d in (current, same_search, other_file, builtin, not_ours, no_switch):
        assert d.is_dir(), d
    for d in removed:
        assert not d.exists()
    assert user.prune_user_caches(current) == []  # nothing left to prune


@pytest.mark.parametrize("body", ["import sys; sys.exit(3)\n", "raise SystemExit('bye')\n"])
def test_a_strategy_file_that_exits_on_load_gives_one_error_line(tmp_path, body):
    """`tranca-sim strategies s5.py` with `import sys; sys.exit(3)` in s5.py exited 3 without a
    word: a user's file is loaded in this process, so its exit was the command's."""
    (tmp_path / "s5.py").write_text(body, encoding="utf-8")
    status, out, err = cli("strategies", "s5.py", cwd=tmp_path)
    assert status == 2, (status, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tranca-sim: error: strategy file 's5.py' line 1: "), err
    assert "exits while being loaded" in lines[0]


def _raise_from_file(path, message="my strategy gave up"):
    """An exception whose traceback holds a frame of ``path`` (as numba's raise in a user's
    ``choose_discard`` gives it)."""
    code = compile(
        "def choose_discard():\n    x = 1\n    raise ValueError(%r)\n" % message, str(path), "exec"
    )
    ns = {}
    exec(code, ns)
    try:
        ns["choose_discard"]()
    except ValueError as e:
        return e
    raise AssertionError("no exception")


def _user_file(monkeypatch, path):
    from tranca_sim.strategies import user

    monkeypatch.setattr(
        user, "selection", lambda: (user.Source(module="u_mine", file=str(path), sha256="0" * 64),)
    )


def test_an_exception_in_a_user_strategy_is_one_line_naming_the_file(tmp_path, capsys, monkeypatch):
    """A numba `raise ValueError("my strategy gave up")` in a user's choose_discard surfaced as 46
    lines of traceback through _simulate_nb, exit 1; now one line names the file, the line, the
    function and the exception, exit 2."""
    from tranca_sim import cli

    path = tmp_path / "mine.py"
    _user_file(monkeypatch, path)
    exc = _raise_from_file(path)

    def failing_simulate(a):
        raise exc

    monkeypatch.setattr(cli, "_cmd_simulate", failing_simulate)
    status, _, err = call(["simulate", "--deals", "10", "--out", str(tmp_path / "x.parquet")], capsys)
    assert status == 2
    line = one_error_line(err)
    assert str(path) in line
    assert "ValueError: my strategy gave up" in line
    assert "line 3" in line and "choose_discard" in line


def test_an_exception_from_elsewhere_is_not_blamed_on_the_strategy(tmp_path, monkeypatch):
    from tranca_sim.cli import strategy_failure

    _user_file(monkeypatch, tmp_path / "mine.py")
    assert strategy_failure(_raise_from_file(tmp_path / "other.py")) is None
    assert strategy_failure(_raise_from_file(tmp_path / "mine.py")) is not None


ALLOC = """
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
"""


def test_an_array_allocated_in_a_strategy_is_named_with_the_users_line(tmp_path, capsys):
    """np.zeros gave numba's 'No implementation of function ... zeros ... (arrayobj.py line
    4902)': numba's own file, not the user's."""
    f = tmp_path / "alloc_f10.py"
    f.write_text(ALLOC)
    status, _, err = call(["strategies", str(f)], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "np.zeros: a strategy may not allocate arrays" in line
    at = 1 + ALLOC.split("np.zeros")[0].count("\n")  # the line of the np.zeros call
    assert line.endswith(f"(alloc_f10.py line {at})") and "arrayobj" not in line
