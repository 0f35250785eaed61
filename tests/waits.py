"""How long a test waits for a process, a command or a notebook before calling it hung.

A hang guard, not a speed limit: a test waits for the state it checks, and only a wait that has
stopped making progress reaches this. 600 s is sized so the suite passes on a 2-core machine
beside two CPU hogs (`yes > /dev/null`); the suite-wide guard is pyproject's 1,800 s `timeout`,
and how fast anything is belongs in ``bench/``.
"""

HANG_S = 600
