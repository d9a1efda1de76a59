"""What the whole suite shares: the environment that processes started by the tests inherit.

pytest imports GNU readline before it loads any conftest (its capture plugin's workaround),
and readline exports ``COLUMNS`` and ``LINES`` (80 and 24 without a terminal) into the
process's C environment, though not into ``os.environ``.  Every process started with the
inherited environment took them: among them the pytest-xdist workers of ``make test``, where
they are in ``os.environ``, so the arena's console (arena/cli/base.py) wrapped its output at
80 columns instead of the 200 of an output that is no terminal.  They are taken out again
here, unless the environment pytest was started with sets them.
"""

from __future__ import annotations

import os

for _name in ("COLUMNS", "LINES"):
    if _name not in os.environ:
        os.unsetenv(_name)
