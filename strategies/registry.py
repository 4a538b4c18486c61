"""The strategy registry: module names in id order.

A strategy's integer id is its position here; ids are stored in no output
(outputs carry names), so inserting a strategy is safe.  After editing this
list run ``python -m strategies.build`` to regenerate ``_dispatch.py``.
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
