"""The Tip Atlas (issue 25): one command plays or reuses the experiments a strategy guide needs and
builds it as a static HTML site and one PDF, in Brazilian Portuguese, Spanish or English.

Layers, each module importing only those above it in this list:

- :mod:`.plan`: which experiments the guide needs (experiment files written from ``basic.TIPS``);
- :mod:`.cache`: plays each through the lab's runner or reuses it, keyed by a hash of its inputs;
- :mod:`.i18n`: the message catalogues (Babel ``.po`` files under ``locale/``);
- :mod:`.figures`: the numbers of each page, read from the finished experiments;
- :mod:`.charts`: the charts (matplotlib, grey-print safe, byte-identical for the same inputs);
- :mod:`.html` and :mod:`.pdf`: the site and the PDF; :mod:`.build`: the whole command.
"""
