"""Record the sample log in tests/fakes/recordings/: a real ``eddy -p`` run against the fake API.

The scenario: the model reads ``calc.py``, edits it (a tool call with a diff), then answers.
``python -m tests.fakes.record`` writes ``recordings/read_edit_answer.jsonl`` again (do it when
the event format changes, then look at the diff); tests/fakes/test_replay.py records the same
run live and checks that the sample still shows what a fresh recording shows.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.headless import eddy

SAMPLE = "read_edit_answer.jsonl"
PROMPT = "add is broken, fix it"
CALC = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
EDIT = {"file_path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"}
ANSWER = "Fixed: `add` now returns **a + b**."


def script() -> list[Reply]:
    """The model's side: read, edit, answer."""
    return [
        Reply(
            [text("Reading calc.py."), tool_use("toolu_1", "Read", {"file_path": "calc.py"})],
            "tool_use",
        ),
        Reply([text("It subtracts; fixing."), tool_use("toolu_2", "Edit", EDIT)], "tool_use"),
        Reply([text(ANSWER)]),
    ]


def record(fake: FakeAnthropic, workspace: Path) -> str:
    """Run the scenario in ``workspace`` (``calc.py`` is written there); the eddy-events log.

    Raises:
        AssertionError: eddy failed (its stderr is in the message).
    """
    (workspace / "calc.py").write_text(CALC)
    fake.push(*script())
    args = ("--output-format", "eddy-events", "--permission-mode", "acceptEdits")
    done = eddy(fake, workspace, "-p", PROMPT, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def anonymised(log: str, workspace: Path) -> str:
    """``log`` with the machine's paths and the session id replaced, so it can be committed."""
    for path in {str(workspace.resolve()), str(workspace)}:
        log = log.replace(path, "/work/project")
    return re.sub(r'"session_id": "[^"]*"', '"session_id": "recorded"', log)


def main() -> int:
    """Write the sample log again."""
    with FakeAnthropic() as fake, tempfile.TemporaryDirectory() as tmp:
        # as tests/conftest.py does: no real data or config directory is touched
        os.environ["EDDY_DATA_DIR"] = f"{tmp}/data"
        os.environ["EDDY_CONFIG_DIR"] = f"{tmp}/config"
        os.environ["EDDY_TRUSTED_FOLDERS"] = tmp
        workspace = Path(tmp) / "project"
        workspace.mkdir()
        log = anonymised(record(fake, workspace), workspace)
    out = Path(__file__).parent / "recordings" / SAMPLE
    out.write_text(log, encoding="utf-8")
    print(f"wrote {out} ({len(log.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
