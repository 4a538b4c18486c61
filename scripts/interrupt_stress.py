"""Send Ctrl-C, SIGTERM or SIGHUP to ``tranca-sim`` commands at random moments; check each says its
one line and nothing else.

Each try starts a command in a new process group (as a shell starts a job), waits a random time
(the imports, the kernels' compile, the run, the writing and the exit included), then sends the
signal to the whole group (a terminal's Ctrl-C or hangup: the workers get it too) or to the
process alone (``kill PID``).  A try passes when the command ended with the signal's status and
stderr's last line is its ``tranca-sim: error: interrupted|terminated ...`` line, every other line
is the command's own (``tranca-sim: ...``, the compile notice), no ``Traceback`` nor ``Exception
ignored`` appears, nothing is left in the work directory but what the line says is kept, and no
process of the group outlives it; or, when the command finished before the signal, it exited 0.

    python scripts/interrupt_stress.py --tries 20 --case dask --case processes
    python scripts/interrupt_stress.py --tries 5 --fresh-cache   # interrupts during the compile

It prints one line a try and a count at the end; exit status 1 if any try failed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TOML = textwrap.dedent(
    """
    title = "stress"
    question = "Does an interrupt say one line?"
    preset = "tranca"
    baseline = "basic"
    seed = 5
    batch = 20000
    budget = 2000000

    [[variants]]
    label = "go out early"
    strategy = "basic:go_out=0"
    """
)

#: name -> (argv, the longest wait before the signal)
CASES = {
    "threads": (["simulate", "--deals", "3000000", "--out", "r.parquet", "--threads", "1"], 12),
    "dataset": (
        ["simulate", "--deals", "3000000", "--chunk-size", "20000", "--out", "d/", "--threads", "1"],
        12,
    ),
    "processes": (["simulate", "--deals", "3000000", "--out", "r.parquet", "--processes", "2"], 14),
    "dask": (["simulate", "--deals", "3000000", "--out", "c/", "--cluster", "local:2"], 16),
    "experiment": (["experiment", "x.toml", "--out", "xo"], 14),
    "tune": (["tune", "basic", "--budget", "200000", "--params", "go_out", "--out", "t"], 14),
    "ladder": (
        ["ladder", "--player", "basic", "--player", "basic:go_out=0", "--decks", "400000", "--out", "l"],
        14,
    ),
    "check": (["check", "given.parquet"], 10),
    "summarize": (["summarize", "given.parquet"], 6),
    "replay": (["replay", "given.parquet", "--deal", "3", "--html", "rp.html"], 8),
}

SIGNALS = {"INT": (signal.SIGINT, "interrupted"), "TERM": (signal.SIGTERM, "terminated"),
           "HUP": (signal.SIGHUP, "terminated")}  # fmt: skip


def _given(env: dict, where: Path) -> None:
    """The run file the reading commands read (made once)."""
    if not (where / "given.parquet").exists():
        subprocess.run([sys.executable, "-m", "tranca_sim.cli", "simulate", "--deals", "4000", "--out",
                        str(where / "given.parquet"), "--no-progress", "--threads", "1"],
                       env=env, check=True, capture_output=True)  # fmt: skip


#: seconds the command's worker processes may outlive it (a worker notices its parent is gone)
LINGER_SECONDS = 5.0


def _group_left(pgid: int, within: float) -> tuple[list[str], float]:
    """The processes of group ``pgid`` still there after ``within`` seconds (``ps`` lines), and
    the seconds the group took to go."""
    t0 = time.monotonic()
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return [], time.monotonic() - t0
        if time.monotonic() - t0 > within:
            ps = subprocess.run(
                ["ps", "-o", "pid,etime,args", "-g", str(pgid)], check=False, capture_output=True, text=True
            )
            return [line.strip()[:150] for line in ps.stdout.splitlines()[1:]], time.monotonic() - t0
        time.sleep(0.05)


def one_try(case: str, env: dict, base: Path, rng: random.Random, scheduler: str | None) -> tuple[bool, str]:
    argv, most = CASES[case]
    argv = [*argv, "--no-progress"] if argv[0] not in ("summarize", "replay") else argv
    if case == "dask" and scheduler:
        argv[argv.index("--cluster") : argv.index("--cluster") + 2] = ["--scheduler", scheduler]
    work = Path(tempfile.mkdtemp(dir=base))
    (work / "x.toml").write_text(TOML)
    if (base / "given.parquet").exists():
        shutil.copy(base / "given.parquet", work / "given.parquet")
    before = set(os.listdir(work))
    name = rng.choice(list(SIGNALS))
    sig, word = SIGNALS[name]
    group = rng.random() < 0.7
    wait = rng.uniform(0.0, most)
    p = subprocess.Popen([sys.executable, "-m", "tranca_sim.cli", *argv], cwd=work, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)  # fmt: skip
    pgid = p.pid
    time.sleep(wait)
    sent = p.poll() is None
    if sent:
        with_ = (lambda: os.killpg(pgid, sig)) if group else (lambda: p.send_signal(sig))
        try:
            with_()
        except ProcessLookupError:
            sent = False
    try:
        _, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(pgid, signal.SIGKILL)
        _, err = p.communicate()
        return False, f"{case} {name} at {wait:.1f}s: did not end within 120 s\n{err[-2000:]}"
    alive, gone_by = _group_left(pgid, LINGER_SECONDS)
    what = f"{case} {name}{' (group)' if group else ''} at {wait:.1f}s: status {p.returncode}"
    problems = []
    lines = err.splitlines()
    if p.returncode == -sig and "tranca_sim/cli" not in err and "tranca-sim" not in err:
        # the interpreter's own start, before any line of the project ran: Python's default
        # action (SIGINT: its KeyboardInterrupt traceback); see tranca_sim/cli_signals.py
        return True, what + ", before the program started (Python's own start)"
    if p.returncode == 0:
        pass  # done before the signal came (or the signal came as it exited)
    elif p.returncode != 128 + sig:
        problems.append("wrong status")
    elif not lines or not lines[-1].startswith(f"tranca-sim: error: {word}"):
        problems.append("the last line is not the signal's")
    for line in lines[:-1] if p.returncode else lines:
        if not line.startswith(("tranca-sim:", "compiling the ")):  # the command's own lines
            problems.append(f"a line not ours: {line[:120]!r}")
            break
    if "Traceback" in err or "Exception ignored" in err:
        problems.append("a traceback")
    left = [n for n in set(os.listdir(work)) - before if n.startswith(".")]  # temporary files, locks
    for d in ("c", "d"):  # a dataset's temporary chunk
        left += [f"{d}/{n}" for n in os.listdir(work / d) if n.startswith(".")] if (work / d).is_dir() else []
    if left:
        problems.append(f"left behind: {sorted(left)}")
    if alive:
        problems.append(f"processes left {LINGER_SECONDS:g} s after: {alive}")
        os.killpg(pgid, signal.SIGKILL)
    what += f", group gone {gone_by:.1f} s after"
    ok = not problems
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    return ok, what + ("" if ok else " -- " + "; ".join(problems) + "\n" + err[-3000:])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--tries", type=int, default=10, help="tries per case (default 10)")
    ap.add_argument("--case", action="append", choices=sorted(CASES), help="default: every case")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument(
        "--fresh-cache",
        action="store_true",
        help="an empty numba cache for every try (the compile is interrupted)",
    )
    ap.add_argument("--scheduler", help="run the dask case on this scheduler instead of a LocalCluster")
    a = ap.parse_args()
    # started in the background by a shell (`... &`), this process ignores SIGINT, and so would the
    # commands (they keep an ignored signal ignored, as under nohup): give them the default
    signal.signal(signal.SIGINT, signal.default_int_handler)
    rng = random.Random(a.seed)
    base = Path(tempfile.mkdtemp(prefix="interrupt-stress-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    _given(env, base)
    cases = a.case or sorted(CASES)
    passed = failed = 0
    for i in range(a.tries):
        for case in cases:
            e = env
            if a.fresh_cache:
                e = dict(env, TRANCA_SIM_CACHE_DIR=tempfile.mkdtemp(dir=base))
            ok, what = one_try(case, e, base, rng, a.scheduler)
            passed += ok
            failed += not ok
            print(("ok   " if ok else "FAIL ") + what, flush=True)
    print(f"{passed} passed, {failed} failed")
    if not failed:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
