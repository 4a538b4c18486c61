"""The strategy registry: module names in id order.

A strategy's integer id is its position here; ids are stored in no output
(outputs carry names), so inserting a strategy is safe.  After editing this
list run ``python -m strategies.build`` to regenerate ``_dispatch.py``.
"""

MODULES = (
    "random_",
    "basic",
    "passive",
)
