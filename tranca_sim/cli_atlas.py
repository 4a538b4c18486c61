"""``tranca-sim atlas``: the Tip Atlas, a printable strategy guide (issue 25; :mod:`tranca_sim.atlas`)."""

from __future__ import annotations

#: the atlas's languages (message catalogues under tranca_sim/atlas/locale/)
LANGUAGES = ("pt-BR", "es", "en")


def add_parser(sub) -> None:
    """The ``atlas`` subcommand of :func:`tranca_sim.cli_parser.build_parser`."""
    at = sub.add_parser(
        "atlas",
        help="build the Tip Atlas: a strategy guide (HTML site and PDF) from the experiments it plays or reuses",
    )
    at.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="output directory, e.g. atlas/: a new or empty one, or an earlier atlas with --force",
    )
    at.add_argument(
        "--lang",
        action="append",
        choices=LANGUAGES,
        default=None,
        help="language of the guide (repeatable; default pt-BR)",
    )
    at.add_argument(
        "--preset",
        action="append",
        default=None,
        metavar="P",
        help="rule preset to cover (repeatable; default tranca and buraco, the seeds' games)",
    )
    at.add_argument(
        "--quick",
        action="store_true",
        help="a small atlas in a few minutes (tiny experiments: for trying the command and CI, not for print)",
    )
    at.add_argument(
        "--cache",
        default=None,
        metavar="DIR",
        help="where finished experiments are kept and reused (default OUT/.cache)",
    )
    at.add_argument(
        "--force",
        action="store_true",
        help="rebuild an earlier atlas in --out (reusing its finished experiments); never another directory",
    )
    at.add_argument("--threads", type=int, default=None, help="numba threads; default all cores")
    at.add_argument("--no-progress", action="store_true", help="no progress bars")


def check_cache_dir(cache) -> None:
    """``--cache DIR``: a directory, or a name one can be made at (its nearest existing ancestor is
    a directory).  Raises ValueError (one line) otherwise."""
    from pathlib import Path

    from .lab.output_dir import nearest_existing

    p = Path(cache)
    if str(cache).strip() == "":
        raise ValueError("give a directory name (empty)")
    if p.exists() and not p.is_dir():
        raise ValueError(f"{str(cache)!r} exists and is not a directory")
    parent = nearest_existing(p.parent)
    if not parent.is_dir():
        raise ValueError(f"cannot make {str(cache)!r}: {str(parent)!r} is not a directory")


def cmd_atlas(a) -> None:
    """Play or reuse the experiments and write the guide into ``a.out``: a new or empty directory,
    or an earlier atlas's with ``--force`` (:func:`tranca_sim.lab.output_dir.check_out_dir`)."""
    from pathlib import Path

    from .atlas.build import AtlasError, build_atlas
    from .cli_common import _check_threads, _fail, _flag, _lock_out
    from .lab.output_dir import check_out_dir

    _check_threads(a.threads)
    if not str(a.out).strip():  # Path("") is the current directory
        _fail("--out '': give the atlas's directory, e.g. --out atlas/")
    if str(a.out).rstrip("/\\").lower().endswith((".pdf", ".html", ".parquet")):
        _fail(
            f"--out {str(a.out)!r}: the atlas writes a directory (its pages and PDF); give a directory name"
        )
    if a.cache is not None:
        try:
            check_cache_dir(a.cache)
        except ValueError as e:
            _fail(f"--cache: {e}")
    _lock_out(a, a.out, make_dirs=True)
    with _flag("--out"):
        check_out_dir(Path(a.out), a.force, "atlas")
    try:
        res = build_atlas(
            Path(a.out),
            languages=tuple(dict.fromkeys(a.lang or ["pt-BR"])),
            presets=tuple(dict.fromkeys(a.preset)) if a.preset else None,
            quick=a.quick,
            cache_dir=Path(a.cache) if a.cache else None,
            threads=a.threads,
            progress=not a.no_progress,
        )
    except AtlasError as e:
        _fail(str(e))
    a.written = str(a.out)
    played, reused = res["played"], res["reused"]
    print(
        f"atlas: {played} experiment(s) played, {reused} reused from {res['cache']}; "
        f"{len(res['pages'])} page(s) and {len(res['pdfs'])} PDF(s) in {res['out']}"
    )
