"""The strategy registry: module names in id order.

A strategy's integer id is its position here; ids are stored in no output
(outputs carry names), so inserting a strategy is safe.  After editing this
list run ``python -m tranca_sim.strategies.build`` to regenerate ``_dispatch.py`` and ``_dispatch_lean.py``.
"""

MODULES = (
    "random_",
    "basic",
    "passive",
    "pimc",
)

#: Built-in strategies played by another built-in's kernel functions with their own parameter
#: values (a module with ``PLAYS = "<module in MODULES>"``): no id and no branch of their own in
#: ``_dispatch.py``, so adding one compiles nothing. ``tuned`` is ``basic`` with the parameters
#: of ``strategies/tuned/<preset>.toml``.
PARAM_SETS = ("tuned",)

#: Built-ins compiled into a process's engine only when the process names them (issue 9: the
#: search player ``pimc`` is about a third of the first compile, and most runs never play it).
#: ``_dispatch.py`` (the engine "with search") has a branch for every module; ``_dispatch_lean.py``
#: (the default engine) none for these.  Ids stay the same in both: a strategy's id is its place
#: in :data:`MODULES`.  Which engine a process loads: :func:`tranca_sim.strategies.user.engine_dispatch`.
ON_DEMAND = ("pimc",)
