"""What the distribution installs: every import package under ``tranca_sim`` (issue 24 item 4)."""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _folder(package: str, package_dir: dict) -> Path:
    """The repository folder setuptools takes ``package`` from (the longest mapped prefix)."""
    for prefix in sorted(package_dir, key=len, reverse=True):
        if package == prefix or package.startswith(prefix + "."):
            rest = package[len(prefix) :].lstrip(".").split(".")
            return ROOT / package_dir[prefix] / Path(*[p for p in rest if p])
    return ROOT / Path(*package.split("."))


def test_every_installed_package_is_under_tranca_sim():
    assert all(p == "tranca_sim" or p.startswith("tranca_sim.") for p in _setuptools()["packages"])


def test_every_package_folder_of_the_repository_is_installed():
    st = _setuptools()
    listed = {_folder(p, st.get("package-dir", {})) for p in st["packages"]}
    assert all(folder.joinpath("__init__.py").is_file() for folder in listed)
    found = {init.parent for top in ("tranca_sim", "strategies") for init in (ROOT / top).rglob("__init__.py")}
    missing = sorted(str(f.relative_to(ROOT)) for f in found - listed)
    assert not missing, f"add these folders' packages to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_the_strategies_folder_is_imported_as_tranca_sim_strategies():
    from tranca_sim import strategies

    assert Path(strategies.__file__).resolve().parent == (ROOT / "strategies").resolve()
    assert strategies.resolve("basic").name == "basic"


def test_the_old_top_level_name_says_where_the_strategies_went():
    """From a checkout the folder would be found by its old name; it refuses with the new one."""
    proc = subprocess.run(
        [sys.executable, "-c", "import strategies"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ") and "'tranca_sim.strategies'" in last
