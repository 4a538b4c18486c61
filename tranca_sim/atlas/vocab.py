"""The reader's words for the codes of the lab (presets, strengths, end reasons, tips, the seeds'
sentences): English message identifiers, translated by the catalogues of :mod:`.i18n`."""

from __future__ import annotations

#: preset -> its name for a reader
PRESET_NAMES = {
    "tranca": "Tranca (four jokers, melds of one rank)",
    "tranca-aberta": "Tranca with the mortos face up (Tranca Aberta)",
    "tranca-paulista": "Tranca Paulista (game to 5,000, one wild card a meld)",
    "tranca-carioca": "Tranca Carioca (runs of one suit allowed too)",
    "tranca-2p": "Tranca for two players",
    "tranca-3p": "Tranca for three players",
    "tranca-br": "Tranca of the Spanish rules (no jokers, runs and melds of one rank)",
    "tranca-sp": "Tranca of São Paulo (every card worth 10 points)",
    "buraco": "Open Buraco",
    "buraco-fechado": "Closed Buraco",
}
#: strength label -> its name
STRENGTH_NAMES = {"basic": "basic player", "tuned": "tuned player", "search": "search player"}
#: strength label -> what that player is
STRENGTH_ABOUT = {
    "basic": "The basic player follows simple rules of thumb.",
    "tuned": "The tuned player is the basic player with its settings tuned on many deals: a stronger player.",
    "search": "The search player plays out sampled deals before each choice: the strongest player measured.",
}
#: end reason -> its name
END_NAMES = {
    "went_out": "a player went out",
    "stock_out": "the stock ran out",
    "turn_limit": "stopped at the turn limit (a safety net)",
}
#: tip parameter -> (short title, how the lab plays it)
TIP_WORDS = {
    "morto_stock": (
        "Take the morto late: when the stock runs low",
        "The player holds back from taking the morto until the stock has 20 cards or fewer.",
    ),
    "morto_melds": (
        "Take the morto late: after five melds",
        "The player holds back from taking the morto until its side has five melds on the table.",
    ),
    "morto_rush": (
        "Reach the morto early",
        "While the morto waits, the player takes no discard pile of more than three cards, so its hand empties sooner.",
    ),
    "black3_lock": (
        "Lock the discard pile with a black 3",
        "The player discards a black 3 when its other discard would fit a meld of the opponents.",
    ),
    "clean_patience": (
        "Push for a clean canasta",
        "With a clean meld of five or six cards, the player waits up to two of its side's turns for a natural card before adding a wild card.",
    ),
    "keep_clean": (
        "Keep one meld free of wild cards",
        "The player never puts a wild card on its side's last meld without wild cards.",
    ),
    "wild_reserve": (
        "Keep a wild card in reserve",
        "The player keeps one wild card in hand for a locked pile and spends it only when close to emptying its hand.",
    ),
    "red3_pace": (
        "Track the red 3s",
        "Once one or more red 3s have been seen and its side has no canasta, the player takes any discard pile it can use.",
    ),
    "partner": (
        "Coordinate with your partner",
        "The player starts no second meld of a rank its side already has and adds to its side's melds instead.",
    ),
    "long_meld": (
        "One long meld rather than several short ones",
        "The player values a new meld less for every unfinished meld its side already has.",
    ),
    "pile_fit": (
        "Look at the discard pile before you take it",
        "The player takes a discard pile of five or more cards only if at least half of it fits its hand or melds.",
    ),
    "safe_discard": (
        "Do not feed the other team",
        "The player avoids discarding cards that fit the opponents' melds or that they took from the pile.",
    ),
    "endgame_lay": (
        "Near the end, lay down what you can",
        "Near the end of the deal the player lays down everything it can.",
    ),
}
#: seed label's source -> the source document in words
SOURCES = {
    "000": "the English rules 'How to Play Tranca'",
    "004": "the Buraco rules with their variations",
}
#: the seeds' sentences, word for word (the English originals are the message identifiers)
SEED_QUOTES = {
    "000 tip 1": "Time your morto pickup. Picking up early gives your side two hands' worth of cards to work with but also starts the clock toward the end of the deal; picking up late keeps defensive flexibility but can strand cards.",
    "000 tip 2": "Lock the discard pile with a black 3 when the top card would complete an opposing meld. Black 3s are low-value defensive cards; use them.",
    "000 tip 3": "Push for a clean canasta before a dirty one. The 100-point bonus gap between dirty and clean is usually worth delaying a single turn to find a natural card.",
    "000 tip 4": "Keep one wild card in reserve as a meld-starter against the locked pile rule. A wild on top means the pile is frozen for everyone, so use it only when you are closing in on going out.",
    "000 tip 5": "Track red 3s. Four red 3s worth 400 points are in the deck; knowing how many have been drawn helps judge the pace of the hand.",
    "000 tip 6": "Coordinate with your partner by pinning rank selections early. If you start a meld of Kings, your partner should avoid starting a second meld in the same rank and should feed cards to yours.",
    "004 tip 1": "Think about the canastra from the start. One long meld is worth more than several three-card melds.",
    "004 tip 2": "Try to keep at least one meld free of wild cards. A clean canastra is worth twice as much as a dirty one.",
    "004 tip 3": "Look at the discard pile before you draw. A big pile gives you many cards at once, but all of them count against you if they stay in your hand.",
    "004 tip 4": "Watch what the others discard and pick up. Avoid discarding a card that fits the other team's meld.",
    "004 tip 5": "Reaching the morto early is a big advantage: it gives your team 11 new cards.",
    "004 tip 6": "Near the end of the round, lay down what you can. A card in hand becomes lost points when somebody goes out.",
}


def seed_refs(seed_label: str) -> list[str]:
    """``"000 tip 1 (early); 004 tip 5"`` -> ``["000 tip 1", "004 tip 5"]``."""
    import re

    return re.findall(r"\b\d{3} tip \d+", seed_label)


#: manipulation-check statistic (tranca_sim.lab.statistics.checks.STATISTICS) -> what it measures
CHECK_WORDS = {
    "morto_time": "turn the morto was taken",
    "morto_taken": "share of deals the side took its morto",
    "black3_guard_locks": "locks with a black 3 while holding a card that fits an opposing meld, a deal",
    "feeding_discards": "discards that fit an opposing meld, a deal",
    "canastas_clean": "clean canastas a deal",
    "clean_meld_kept": "share of deals ending with a meld free of wild cards",
    "wild_turns": "turns ending with a wild card still in hand, a deal",
    "pile_captures_red3": "piles taken a deal, in deals with a red 3 dealt",
    "red3_count_effect": "how much more often piles are taken when red 3s were dealt",
    "second_melds": "second melds of a rank the side already had, a deal",
    "mean_meld_length": "cards a meld at the end of the deal",
    "three_card_melds": "melds of three cards at the end, a deal",
    "pile_cards": "cards taken from the pile, a deal",
    "hand_penalty": "points left in hand at the end (zero or less)",
}
