"""Independent referee: replay a deal log and check it against the rules.

This module is a second, plain-Python implementation of the rules of the
played presets, written from ``../shared/VARIANTS.md``, the seed
``000_95ec226e9cdd732e.txt`` ("000") and the engine's documented choices
E1..E12 (``docs/rules.md`` section 5, ``docs/engine-decisions.md``).  It
shares **no rule code** with the compiled engine: it imports only the card
notation (:mod:`tranca_sim.engine.cards`) and the :class:`~tranca_sim.rules.Rules`
dataclass for the option values.  Card point values are its own tables,
copied from VARIANTS "Card values".

Card notation
-------------
A card is its rank ``A 2 3 4 5 6 7 8 9 10 J Q K`` followed by its suit
``C D H S`` (clubs, diamonds, hearts, spades; clubs and spades are black),
e.g. ``KH``, ``10D``, ``2C``; a joker is ``JK``.  Case is ignored on input.
Jokers and 2s are wild; aces are not (VARIANTS 1).  ``3D``/``3H`` are red 3s,
``3C``/``3S`` black 3s.  A list of cards is a Python list of notations or one
space-separated string (``"KH KD 2C"``).

Public API
----------
- :func:`validate_meld` -- is a set of cards a legal *new* meld?
- :func:`score_side` -- the score parts of one side in a finished position.
- :func:`check_log` -- replay one deal log (a dict), return a :class:`Verdict`.
- :func:`load_logs` -- read a JSON Lines log file, one deal per line, raising
  :class:`LogFormatError` (naming the line) on malformed input.
- :func:`check_file` -- referee every deal of a log file, one :class:`Verdict` each,
  never raising on bad content.
- :func:`validate_log` -- the structural checks of :func:`load_logs` on one dict.

The log format is documented in ``docs/log-format.md``.

Examples
--------
>>> from tranca_sim.rules import get_preset
>>> validate_meld("KH KD 2C", get_preset("tranca")).legal
True
>>> validate_meld("KH 2D 2C", get_preset("tranca")).reason
'1 natural card: a meld needs at least 2 naturals of its rank (000 Gameplay 7, VARIANTS 2)'

Modules
-------
- :mod:`.cards` -- the referee's own card point tables and card classes on
  notation strings.
- :mod:`.questions` -- the rule questions: :func:`validate_meld`, :func:`score_side`.
- :mod:`.logfile` -- the log format: :func:`validate_log`, :func:`load_logs`,
  :class:`LogFormatError`.
- :mod:`.table` -- the table model (hands, mortos, stock, pile, melds, red-3
  areas), the questions asked of it and its score.
- :mod:`.actions` -- the table replayed action by action, one method per act.
- :mod:`.verdict` -- :class:`Verdict`, :func:`check_log`, :func:`check_file`,
  :func:`summary`, :func:`walk`.
"""

from .cards import SIDES as SIDES
from .logfile import FORMAT, LogFormatError, load_logs, validate_log
from .questions import SCORE_PARTS, MeldCheck, score_side, validate_meld
from .verdict import Verdict, check_file, check_log, summary
from .verdict import walk as walk

__all__ = [
    "FORMAT",
    "SCORE_PARTS",
    "LogFormatError",
    "MeldCheck",
    "Verdict",
    "check_file",
    "check_log",
    "load_logs",
    "score_side",
    "summary",
    "validate_log",
    "validate_meld",
]
