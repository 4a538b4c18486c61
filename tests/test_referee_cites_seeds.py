"""The referee's reasons cite the seed document of the preset's own rule (Buraco's from 004,
Tranca's from 000, ...)."""

from __future__ import annotations

import pytest


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
    """Buraco's one-wild rule cited '000 Gameplay 7, VARIANTS 2, E17' and its joker-less pack
    '000 Card Deck' (Tranca's seed)."""
    from tranca_sim.referee import validate_meld
    from tranca_sim.rules import get_preset

    reason = validate_meld(cards, get_preset(preset)).reason
    assert reason is not None and reason.endswith(source), reason
