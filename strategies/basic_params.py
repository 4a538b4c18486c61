"""``basic``'s parameters: their table, the tuner's search space, the indexes into the parameter row,
the tips of the rule guides and their checks, and the constants the choices read.

The parameters are documented in strategies/basic.py and docs/strategies.md.
"""

# (name, default, doc, lowest, highest, kind); kind: "switch" (0/1), "int" or "real"
PARAMS = (
    ("take_pile_min", 3.0, "take the pile only if it holds at least this many cards", 0, 108, "int"),
    (
        "wild_reserve",
        0.0,
        "000 tip 4: keep the last wild unless starting a meld on a locked pile or close to going out",
        0,
        1,
        "switch",
    ),
    (
        "clean_patience",
        0.0,
        "000 tip 3: side turns to wait for a natural before a wild on a clean 5-6 card meld",
        0,
        50,
        "int",
    ),
    (
        "black3_lock",
        0.0,
        "000 tip 2: keep black 3s; discard one when the other discard would feed an opposing meld",
        0,
        1,
        "switch",
    ),
    ("safe_discard", 0.0, "004 tip 4: avoid discarding ranks the opponents melded or took", 0, 1, "switch"),
    ("go_out", 1.0, "go out as soon as allowed (0: hold while other moves exist)", 0, 1, "switch"),
    ("wild_melds", 1.0, "start melds with two naturals and a wild", 0, 1, "switch"),
    (
        "morto_stock",
        108.0,
        "000 tip 1 (late): hold the morto while the stock has more cards than this",
        0,
        108,
        "int",
    ),
    ("morto_melds", 0.0, "000 tip 1 (late): hold the morto until the side has this many melds", 0, 24, "int"),
    (
        "morto_rush",
        0.0,
        "000 tip 1 / 004 tip 5 (early): 1 no pile over 3 cards while the morto waits; 2 every usable pile; 3 wilds on any meld",
        0,
        3,
        "int",
    ),
    ("keep_clean", 0.0, "000 tip 3 / 004 tip 2: never dirty the side's last clean meld", 0, 1, "switch"),
    (
        "red3_pace",
        0.0,
        "000 tip 5: with this many red 3s seen and no canasta yet, take any usable pile (0: off)",
        0,
        4,
        "int",
    ),
    ("partner", 0.0, "000 tip 6: no second meld of a side rank; feed the side's melds", 0, 1, "switch"),
    (
        "long_meld",
        0.0,
        "004 tip 1: weight of the preference for long melds (a new meld loses 10 x this per unfinished meld)",
        0,
        4,
        "real",
    ),
    ("pile_fit", 0.0, "004 tip 3: take a pile of 5+ cards only if this share of it fits", 0, 1, "real"),
    ("endgame_lay", 0.0, "004 tip 6: near the end of the deal lay down everything", 0, 1, "switch"),
    ("never_pile", 0.0, "handicap: never take the pile while the stock has cards", 0, 1, "switch"),
    ("never_wild", 0.0, "handicap: never meld a wild", 0, 1, "switch"),
    ("never_out", 0.0, "handicap: never go out", 0, 1, "switch"),
    (
        "morto_seen",
        1.0,
        "000 Tranca Aberta: keep ranks the opponents' face-up morto brought in pairs (no effect face down)",
        0,
        1,
        "switch",
    ),
    (
        "aberta_rush",
        0.0,
        "000 Tranca Aberta: empty the first hand fast while the own face-up morto is strong",
        0,
        1,
        "switch",
    ),
    (
        "redraw",
        1.0,
        "003 first-player redraw: throw back a drawn card that fits nothing in the hand (0: always keep)",
        0,
        1,
        "switch",
    ),
    (
        "run_pile_min",
        1.0,
        "runs and a clean canasta to go out: take the pile only if it holds this many cards (for take_pile_min)",
        0,
        108,
        "int",
    ),
    (
        "run_pile_share",
        0.25,
        "open pile, runs only: take the pile only if this share of its cards fits the side's runs or hand",
        0,
        1,
        "real",
    ),
    (
        "run_clean_first",
        1.0,
        "runs and a clean canasta to go out: no wild on a clean run while the side has no clean canasta",
        0,
        1,
        "switch",
    ),
    (
        "out_pile_max",
        1.0,
        "runs and a clean canasta to go out: a player of a side that may go out holding 3 cards or fewer takes a pile of at most this many cards (108: any)",
        0,
        108,
        "int",
    ),
    (
        "red3_own",
        0.0,
        "000 tip 5, the other reading: red3_pace counts the side's own red 3s only (0: every side's)",
        0,
        1,
        "switch",
    ),
    (
        "second_meld",
        0.0,
        "prefer a second meld of a rank the side has to a fresh one (55 against 40; the baseline before issue 22)",
        0,
        1,
        "switch",
    ),
)
# The tuner's search space (``tranca-sim tune``, tranca_sim/lab/tuning/tune.py, strategies/search.py):
# ``(parameter, lowest, highest[, rule])`` or ``(parameter, (value, ...)[, rule])``, the kind (switch,
# int, real) taken from PARAMS; a range narrower than the parameter's own where the rest plays the
# same or is a handicap; ``rule``: searched only when that rule option of the preset is on. The
# handicaps (never_pile, never_wild, never_out) are not searched.
SEARCH = (
    ("take_pile_min", 1, 8),
    ("wild_reserve", 0, 1),
    ("clean_patience", 0, 4),
    ("black3_lock", 0, 1),
    ("safe_discard", 0, 1),
    ("go_out", 0, 1),
    ("wild_melds", 0, 1),
    ("morto_stock", (108, 40, 35, 30, 25, 20, 15, 10, 5, 0)),  # MORTO_SWEEP's grid; 108: never holds
    ("morto_melds", 0, 6),
    ("morto_rush", 0, 3),
    ("keep_clean", 0, 1),
    ("red3_pace", 0, 4),
    ("partner", 0, 1),
    ("long_meld", 0.0, 4.0),
    ("pile_fit", 0.0, 1.0),
    ("endgame_lay", 0, 1),
    ("morto_seen", 0, 1, "mortos_face_up"),
    ("aberta_rush", 0, 1, "mortos_face_up"),
    ("redraw", 0, 1, "first_player_redraw"),
    ("run_pile_min", 1, 8, "go_out_needs_clean"),
    ("run_pile_share", 0.0, 1.0, "meld_runs"),
    ("run_clean_first", 0, 1, "go_out_needs_clean"),
    ("out_pile_max", 0, 8, "go_out_needs_clean"),
)
P_TAKE_PILE_MIN = 0
P_WILD_RESERVE = 1
P_CLEAN_PATIENCE = 2
P_BLACK3_LOCK = 3
P_SAFE_DISCARD = 4
P_GO_OUT = 5
P_WILD_MELDS = 6
P_MORTO_STOCK = 7
P_MORTO_MELDS = 8
P_MORTO_RUSH = 9
P_KEEP_CLEAN = 10
P_RED3_PACE = 11
P_PARTNER = 12
P_LONG_MELD = 13
P_PILE_FIT = 14
P_ENDGAME_LAY = 15
P_NEVER_PILE = 16
P_NEVER_WILD = 17
P_NEVER_OUT = 18
P_MORTO_SEEN = 19
P_ABERTA_RUSH = 20
P_REDRAW = 21
P_RUN_PILE_MIN = 22
P_RUN_PILE_SHARE = 23
P_RUN_CLEAN_FIRST = 24
P_OUT_PILE_MAX = 25
P_RED3_OWN = 26
P_SECOND_MELD = 27

# For each tip: (parameter, value that follows the tip, baseline's value, seed tip, one line).
TIPS = (
    (
        "morto_stock",
        "20",
        "108",
        "000 tip 1 (late)",
        "late morto: hold the morto until the stock has 20 cards or fewer",
    ),
    ("morto_melds", "5", "0", "000 tip 1 (late)", "late morto: hold the morto until the side has 5 melds"),
    (
        "morto_rush",
        "1",
        "0",
        "000 tip 1 (early); 004 tip 5",
        "early morto: while the morto waits, take no pile of more than 3 cards",
    ),
    (
        "black3_lock",
        "1",
        "0",
        "000 tip 2",
        "discard a black 3 when the other discard would feed an opposing meld",
    ),
    (
        "clean_patience",
        "2",
        "0",
        "000 tip 3",
        "wait 2 side turns for a natural before dirtying a clean 5-6 card meld",
    ),
    ("keep_clean", "1", "0", "004 tip 2", "never put a wild on the side's last clean meld"),
    (
        "wild_reserve",
        "1",
        "0",
        "000 tip 4",
        "keep one wild for a locked pile; spend it only close to going out",
    ),
    (
        "red3_pace",
        "1",
        "0",
        "000 tip 5",
        "red 3s seen set the pace: with one or more seen and no canasta, take any usable pile",
    ),
    ("partner", "1", "0", "000 tip 6", "no second meld of a rank the side has; feed the side's melds"),
    (
        "long_meld",
        "0.5",
        "0",
        "004 tip 1",
        "one long meld over several short ones: a new meld loses 5 points per unfinished meld",
    ),
    ("pile_fit", "0.5", "0", "004 tip 3", "take a pile of 5+ cards only if half of it fits"),
    (
        "safe_discard",
        "1",
        "0",
        "004 tip 4",
        "avoid discarding cards that fit the opponents' melds or that they took",
    ),
    ("endgame_lay", "1", "0", "004 tip 6", "near the end of the deal lay down everything"),
)
# What each tip's seed sentence predicts, as statistics of the run files with the direction
# expected (issue 22: a tip is measured only once it is shown to do what its text says;
# tranca_sim/lab/statistics/checks.py computes them, variant against baseline in the same deals):
# parameter -> ((statistic, direction, the words it checks[, margin]), ...); direction "<" lower,
# ">" higher, ">=" not lower by more than the margin.
CHECKS = {
    "morto_stock": (("morto_time", ">", "000 tip 1: picking up late (the morto is taken later)"),),
    "morto_melds": (("morto_time", ">", "000 tip 1: picking up late (the morto is taken later)"),),
    "morto_rush": (
        ("morto_time", "<", "000 tip 1, 004 tip 5: picking up early, reaching the morto early"),
        ("morto_taken", ">=", "... and reaching it at least as often", 0.01),
    ),
    "black3_lock": (
        (
            "black3_guard_locks",
            ">",
            "000 tip 2: lock the pile with a black 3 when a card would feed an opposing meld",
        ),
        (
            "feeding_discards",
            "<",
            "000 tip 2: (the card that would complete an opposing meld stays off the pile)",
        ),
    ),
    "clean_patience": (("canastas_clean", ">", "000 tip 3: push for a clean canasta before a dirty one"),),
    "keep_clean": (("clean_meld_kept", ">", "004 tip 2: keep at least one meld free of wild cards"),),
    "wild_reserve": (("wild_turns", ">", "000 tip 4: keep one wild card in reserve"),),
    "red3_pace": (
        (
            "pile_captures_red3",
            ">",
            "000 tip 5: the red 3s seen set the pace (piles taken with N or more seen)",
        ),
        ("red3_count_effect", ">", "000 tip 5: the decision changes with the number of red 3s seen"),
    ),
    "partner": (("second_melds", "<", "000 tip 6: avoid starting a second meld in the same rank"),),
    "long_meld": (
        ("mean_meld_length", ">", "004 tip 1: one long meld (longer melds)"),
        ("three_card_melds", "<", "004 tip 1: ... rather than several three-card melds"),
    ),
    "pile_fit": (
        ("pile_cards", "<", "004 tip 3: a big pile's cards count against you (fewer pile cards taken)"),
    ),
    "safe_discard": (
        ("feeding_discards", "<", "004 tip 4: avoid discarding a card that fits the other team's meld"),
    ),
    "endgame_lay": (("hand_penalty", ">", "004 tip 6: lay down what you can (fewer points left in hand)"),),
}
# (preset, tip) where the tip changes no play its check sees (its verdict "no change"; every other tip
# passes its check in tranca and in buraco where it can act: tests/test_tip_checks.py plays them). The
# baseline scores an extension (50) above any new meld (40), so it never opens a second meld of a rank
# its side has while an extension is listed: partner has nothing left to forbid; in buraco the
# baseline's run_clean_first keeps every clean run free of wilds until the first clean canasta, the
# only time keep_clean acts.
NO_CHANGE = {("tranca", "partner"), ("buraco", "keep_clean")}
CHECKED_PRESETS = ("tranca", "buraco")  # where tests/test_tip_checks.py plays every tip that can act
MORTO_SWEEP = ("morto_stock", (108, 40, 35, 30, 25, 20, 15, 10, 5, 0))  # earliest ... latest

# morto_rush, three readings of "reach the morto early" (docs/strategies.md, "What the tips measure"):
RUSH_SMALL_HAND = 1  # no pile of more than RUSH_PILE_MAX cards while the morto waits (the tip's encoding)
RUSH_EVERY_PILE = 2  # every usable pile while the morto waits (take_pile_min ignored)
RUSH_WILDS = 3  # lay everything, wilds on any meld (the encoding before issue 22)
RUSH_PILE_MAX = 3
LONG_STEP = 10.0  # long_meld: points a new meld loses per unfinished meld of the side, per unit of weight
PILE_BIG = 5  # pile_fit: a "big" pile has at least this many cards
CLOSE_HAND = 4  # wild_reserve: "close" = the player may empty its hand (morto or going out), <= 4 cards
END_STOCK = 10  # endgame_lay, red3_pace: "near the end" = the stock has <= 10 cards
END_HAND = 3  # endgame_lay: an opponent who may go out holds <= 3 cards
OUT_HAND = 3  # out_pile_max: a player "about to go out" holds <= 3 cards before its draw
