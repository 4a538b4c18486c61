"""The two engine builds (issue 9, strategies/user.py): the default engine is compiled without the
search player, a process that names ``search`` before its first simulation gets the engine with
it (and passes that to its child processes), and playing ``search`` on an engine loaded without it
is one clear error.

The test session itself runs the engine with the search player (``TRANCA_SIM_SEARCH=1``,
tests/conftest.py); the lean engine is played in one subprocess.  The other subprocesses here
stop the moment the engine is loaded (a stub in place of :func:`tranca_sim.strategies.user.engine_dispatch`),
so they check which build each command asks for without compiling anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tranca_sim.engine import simulate_chunk
from tranca_sim.rules import get_preset
from tranca_sim.simulate import run_simulation
from tranca_sim.strategies import prepare_engine, resolve
from tranca_sim.strategies import user as U

ROOT = Path(__file__).resolve().parent.parent
SMALL = "search:worlds=2,turns=4"


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != U.SEARCH_ENV}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def _python(script: str, *args, cwd=None, **extra) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *map(str, args)],
        env=_env(**extra), cwd=cwd or ROOT, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip


def test_the_session_plays_the_engine_with_the_search_player():
    assert U.search_wanted() is True
    assert U.include_search() is True  # already in: nothing to do, no error


def test_the_lean_engine_plays_the_same_deals_and_refuses_search_in_one_line():
    script = """
        import hashlib, json, numba
        import numpy as np
        from tranca_sim.strategies import StrategyError
        from tranca_sim.strategies import user as U
        from tranca_sim.engine import simulate_chunk
        from tranca_sim.engine import deal
        from tranca_sim.rules import get_preset
        cols = simulate_chunk(get_preset("tranca"), ("basic", "random"), 5, 0, 12)
        try:
            simulate_chunk(get_preset("tranca"), ("search", "basic"), 5, 0, 1)
            err = None
        except StrategyError as e:
            err = str(e)
        print(json.dumps({
            "score": cols["score"].tolist(), "n_turns": cols["n_turns"].tolist(), "error": err,
            "search": U.search_wanted(), "switch": deal.choose_draw.py_func.__module__,
            "cache": numba.config.CACHE_DIR,
        }))
    """
    p = _python(script)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["search"] is False and got["switch"] == "tranca_sim.strategies._dispatch_lean"
    assert not got["cache"].endswith("-search")  # kernels cached apart from the search build's
    here = simulate_chunk(get_preset("tranca"), ("basic", "random"), 5, 0, 12)  # the search build
    assert got["score"] == here["score"].tolist() and got["n_turns"] == here["n_turns"].tolist()
    err = got["error"]
    assert err is not None and "\n" not in err
    for words in ("'search'", "new process", "tranca_sim.strategies.resolve('search')", "TRANCA_SIM_SEARCH=1"):
        assert words in err
    assert "Traceback" not in p.stderr


def test_naming_search_first_builds_it_in_and_child_processes_follow():
    script = """
        import json, subprocess, sys
        from tranca_sim.strategies import resolve
        from tranca_sim.strategies import user as U
        from tranca_sim.parallel import task_env
        before = U.search_wanted()
        resolve("search:worlds=2")  # named before the engine loads
        from tranca_sim.engine import deal
        import numba
        child = subprocess.run(
            [sys.executable, "-c", "from tranca_sim.engine import deal; import numba; "
             "print(deal.choose_draw.py_func.__module__, numba.config.CACHE_DIR.endswith('-search'))"],
            capture_output=True, text=True, check=True,
        )
        print(json.dumps({
            "before": before, "switch": deal.choose_draw.py_func.__module__,
            "cache": numba.config.CACHE_DIR.endswith("-search"), "worker_env": dict(task_env(True)),
            "child": child.stdout.split(),
        }))
    """
    p = _python(script)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["before"] is False
    assert got["switch"] == "tranca_sim.strategies._dispatch" and got["cache"] is True
    assert got["worker_env"].get(U.SEARCH_ENV) == "1"  # joblib and Dask workers (parallel.SHARED_ENV)
    assert got["child"] == ["tranca_sim.strategies._dispatch", "True"]  # a subprocess inherits the choice


def test_too_late_for_search_is_an_error_and_a_bad_setting_is_named():
    script = """
        from tranca_sim.strategies import StrategyError, resolve
        from tranca_sim.strategies import user as U
        from tranca_sim.engine import kernel
        spec = resolve("search")  # naming it is no error (summaries, listings)
        for f in (lambda: U.include_search(), lambda: spec.sid):
            try:
                f()
                print("no error")
            except StrategyError as e:
                print("StrategyError:", e)
        print(U.include_search(strict=False))
    """
    p = _python(script)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 3 and lines[2] == "False"
    assert all(x.startswith("StrategyError: strategy 'search' is not compiled into") for x in lines[:2])
    p = _python("from tranca_sim.engine import kernel", TRANCA_SIM_SEARCH="yes")
    assert p.returncode != 0 and "TRANCA_SIM_SEARCH must be 0 or 1, got 'yes'" in p.stderr


def test_prepare_engine_reads_names_only():
    assert U.search_wanted() is True  # the session's engine: nothing to change, nothing raised
    prepare_engine(["basic", {"text": "search:worlds=3"}, {"text": "nosuch:x=1"}, None, 3])


# ---- every command that plays search asks for it before the engine loads ----------------

STUB = """
    import os, sys
    from tranca_sim.strategies import user as U
    def _stub():
        print("ENGINE search=" + str(U.search_wanted()), flush=True)
        os._exit(0)
    U.engine_dispatch = _stub
    {call}
    print("ENGINE not loaded", flush=True)
"""
CLI = "from tranca_sim.cli import main; main(sys.argv[1:])"


@pytest.fixture(scope="module")
def search_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("search-run") / "run.parquet"
    run_simulation("tranca", 2, 9, SMALL, "basic", out, progress=False)
    return out


def _engine_build(tmp_path, call: str, *args) -> str:
    p = _python(STUB.format(call=call), *args, cwd=tmp_path)
    line = [x for x in p.stdout.splitlines() if x.startswith("ENGINE")]
    assert line, p.stdout + p.stderr
    return line[-1]


@pytest.mark.parametrize(
    "argv, search",
    [
        (["simulate", "--deals", "2", "--side-a", SMALL, "--out", "r.parquet"], True),
        (["simulate", "--deals", "2", "--side-b", "search", "--out", "r.parquet"], True),
        (["simulate", "--matches", "1", "--side-a", SMALL, "--out", "m.parquet"], True),
        (["simulate", "--deals", "2", "--out", "r.parquet"], False),
        (
            ["experiment", str(ROOT / "experiments" / "search-vs-basic.toml"), "--out", "e", "--deals", "4"],
            True,
        ),
        (["ladder", "--out", "l", "--decks", "2", "--player", "basic", "--player", SMALL], True),
        (["ladder", "--out", "l", "--decks", "2", "--player", "basic", "--player", "random"], False),
        (["tune", "basic", "--vs", SMALL, "--budget", "1000000", "--out", "t"], True),
    ],
)
def test_commands_ask_for_the_build_they_play(tmp_path, argv, search):
    assert _engine_build(tmp_path, CLI, *argv) == f"ENGINE search={search}"


def test_replay_and_check_of_a_search_run_ask_for_it(search_run, tmp_path):
    for argv in (["replay", search_run, "--deal", "1"], ["check", search_run, "--sample", "1"]):
        assert _engine_build(tmp_path, CLI, *argv) == "ENGINE search=True"
    api = "from tranca_sim.replay import regenerate; regenerate(sys.argv[1], 0)"
    assert _engine_build(tmp_path, api, search_run) == "ENGINE search=True"


def test_tip_strength_asks_for_it_before_its_self_play_runs(tmp_path):
    call = "from tranca_sim.lab.ladder.tip_strength import run; run(sys.argv[1], 2, 1, progress=False)"
    assert _engine_build(tmp_path, call, tmp_path / "tips") == "ENGINE search=True"


def test_the_search_run_plays_search(search_run):
    from tranca_sim.io import load_run

    df = load_run(search_run, backend="pandas")
    assert set(df.loc[df.side == 0, "strategy"]) == {"search"}
    assert sorted(df.deal_index.unique().tolist()) == [0, 1] and np.isfinite(df.score).all()


def test_the_search_player_is_no_branch_of_the_lean_switch():
    from tranca_sim.strategies import _dispatch, _dispatch_lean
    from tranca_sim.strategies.registry import MODULES

    sid = MODULES.index("pimc")
    assert f"sid == {sid}:" in Path(_dispatch.__file__).read_text()
    assert f"sid == {sid}:" not in Path(_dispatch_lean.__file__).read_text()
    assert "pimc" not in Path(_dispatch_lean.__file__).read_text().split('"""')[-1]
    assert resolve(SMALL).sid == sid  # ids are the same in both builds


# ---- numba's optimisation level (tranca_sim/_cache.py) ----------------------------------

LEVEL = """
    import json, os, sys
    {first}
    import tranca_sim
    from numba.core import config
    print(json.dumps([os.environ.get("NUMBA_OPT"), int(config.OPT), tranca_sim.NUMBA_CACHE_DIR]))
"""


def _level(first: str = "", **env) -> list:
    p = _python(LEVEL.format(first=first), **env)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_the_kernels_compile_at_level_1_unless_numba_opt_is_set(tmp_path):
    cache = {"TRANCA_SIM_CACHE_DIR": str(tmp_path)}
    saved = os.environ.pop("NUMBA_OPT", None)
    try:
        default = _level(**cache)
        user3 = _level(NUMBA_OPT="3", **cache)
        numba_first = _level("import numba", **cache)  # numba read its own default, 3
        user1 = _level(NUMBA_OPT="1", **cache)
    finally:
        if saved is not None:
            os.environ["NUMBA_OPT"] = saved
    assert default[:2] == ["1", 1] and user3[:2] == ["3", 3] and numba_first[:2] == [None, 3]
    assert user1 == default  # the level, not whether it was set by hand, keys the cache
    assert len({default[2], user3[2]}) == 2 and numba_first[2] == user3[2]  # cached apart by level


def test_resolving_strategies_first_keeps_level_1(tmp_path):
    # a script that names its strategies (search included: its module imports numba) before it imports
    # tranca_sim must get the package's level, not numba's default 3: importing strategies imports
    # tranca_sim first (a fresh user's find: such a script compiled the engine a second time)
    saved = os.environ.pop("NUMBA_OPT", None)
    try:
        got = _level('from tranca_sim import strategies; strategies.resolve("search")', TRANCA_SIM_CACHE_DIR=str(tmp_path))
    finally:
        if saved is not None:
            os.environ["NUMBA_OPT"] = saved
    assert got[:2] == ["1", 1]


def test_in_threads_drops_unstarted_blocks_after_an_error():
    """An error in one block (or Ctrl-C) stops the chunk: the blocks not yet started are not
    played, the running ones end, and the error reaches the caller (kernel.in_threads)."""
    import threading

    import numba

    from tranca_sim.engine.kernel import KERNEL_THREAD, in_threads

    started = []
    lock = threading.Lock()
    release = threading.Event()

    def play_range(lo, hi):
        with lock:
            started.append(lo)
        if lo == 0:
            raise KeyboardInterrupt
        # held until the caller has left: each of the two threads can start at most one block
        # more, whatever the machine's load (a fixed sleep here let a busy machine start ~10)
        release.wait(60)

    old = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        with pytest.raises(KeyboardInterrupt):
            in_threads(play_range, 100, block=1)
    finally:
        release.set()
        numba.set_num_threads(old)
    for t in threading.enumerate():  # the pool's threads end once the blocks they hold are done
        if t.name.startswith(KERNEL_THREAD):
            t.join(60)
    # block 0 fails; each thread holds one more block when the caller cancels the pool: never the
    # 100 that a pool left to finish would play
    assert len(started) <= 3, started
