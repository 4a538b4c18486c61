"""experiments/tranca-tips-strengths.toml lists every Tranca tip of tranca_sim.strategies.basic.TIPS with its
value, at three strengths (basic, tuned, search) on two blocks."""

import tomllib
from pathlib import Path

from tranca_sim.lab.experiments.spec import load_spec
from tranca_sim.strategies.basic import TIPS

FILE = Path(__file__).resolve().parents[1] / "experiments" / "tranca-tips-strengths.toml"


def test_the_file_lists_every_tip_with_its_value():
    doc = tomllib.loads(FILE.read_text(encoding="utf-8"))
    got = {v["strategy"] for v in doc["variants"]}
    assert got == {f"basic:{param}={on}" for param, on, *_ in TIPS}


def test_the_file_plays_three_strengths_on_two_blocks():
    spec = load_spec(FILE)
    assert [s["strategy"].split(":")[0] for s in spec["strength"]] == ["basic", "tuned", "search"]
    assert spec["blocks"] == 2
    assert spec["decision"] is not None


def test_the_search_player_is_decided_at_its_own_effect_after_200_decks():
    spec = load_spec(FILE)
    assert [s.get("delta") for s in spec["strength"]] == [10.0, 10.0, 50.0]
    assert spec["decision"]["min_decks"] == 200
