"""``eddy --acp`` on the command line: the flag parses into LaunchOptions; it takes no prompt
and no other front end's flag."""

from __future__ import annotations

import pytest

from cli.main import UsageError, parse_launch


def test_the_flag_parses_with_the_options_every_session_gets() -> None:
    options = parse_launch(["--acp", "--permission-mode", "acceptEdits", "--max-turns", "5"])
    assert options.acp and options.permission_mode == "acceptEdits" and options.max_turns == 5
    assert not parse_launch([]).acp


@pytest.mark.parametrize("extra", [["-p", "x"], ["--plain"], ["--demo"], ["a prompt"]])
def test_it_takes_no_prompt_and_no_other_front_end(extra: list[str]) -> None:
    with pytest.raises(UsageError, match="--acp"):
        parse_launch(["--acp", *extra])
