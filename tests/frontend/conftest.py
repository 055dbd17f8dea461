"""Both UIs' fixtures, for tests that run the same thing in the TUI and in line mode."""

from tests.plain.conftest import harness, pipe  # noqa: F401
from tests.tui.conftest import eddy_dirs, workspace  # noqa: F401
