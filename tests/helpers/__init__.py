"""Helpers shared by tests: plain modules that tests import (conftest files hold fixtures only).

- ``events``: record engine events and wait for one.
- ``engine``: one turn of the real loop over scripted models.
- ``tui``: an EddyApp over a scripted model, and waiting for it to render.
- ``plain``: the line-mode Harness driven by keystrokes.
- ``tmux``: eddy in a real terminal (the end-to-end tests).
- ``headless``: ``eddy -p`` as a subprocess.
- ``sandbox``: canaries, bubblewrap checks and process probes for the red-team tests.
"""
