"""The Bash rule "yes, don't ask again" saves for one command (``program_rule``).

The rule names the program and its subcommand with ``:*`` (``Bash(git commit:*)``), never
more; for a risky program (``rm``, ``curl``, ``sh``, ...) whose words are all known it is the
exact command. :mod:`agent.permissions.bash` asks it for each part of a command line.
"""

from __future__ import annotations

import os
import re
import shlex

from agent.shell.words import Word

_SUBCOMMAND = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@+-]*")
_RISKY = frozenset(
    {
        "rm",
        "rmdir",
        "dd",
        "mkfs",
        "shred",
        "chmod",
        "chown",
        "chgrp",
        "kill",
        "pkill",
        "killall",
        "curl",
        "wget",
        "ssh",
        "scp",
        "sh",
        "bash",
        "zsh",
        "dash",
        "python",
        "python3",
        "node",
        "perl",
        "ruby",
        "sudo",
        "doas",
        "mv",
        "cp",
        "ln",
        "truncate",
        "eval",
        "source",
        ".",
    }
)
"""Programs whose "don't ask again" rule is the exact command unless a subcommand follows."""


def _join(words: list[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def program_rule(argv: tuple[Word, ...], *, open_args: bool = False) -> str | None:
    """The Bash rule for one command: program and subcommand with ``:*``.

    ``git commit -m x`` -> ``Bash(git commit:*)``; ``npm run test -- -x`` ->
    ``Bash(npm run test:*)``; ``python -m pytest -x`` -> ``Bash(python -m pytest:*)``;
    ``rm -rf build`` -> ``Bash(rm -rf build)`` (exact: rm is too dangerous to allow wholesale).
    Never broader than program and subcommand.
    """
    words: list[str] = []
    for w in argv:
        if not w.static or w.glob:
            break
        words.append(w.value)
    if not words:
        return None
    base = os.path.basename(words[0])
    take = 1
    if len(words) > 1:
        second = words[1]
        scripts = base in ("npm", "pnpm", "yarn", "bun") and second in ("run", "run-script", "exec")
        module = base.startswith("python") and second == "-m"
        if (scripts or module) and len(words) > 2 and _SUBCOMMAND.fullmatch(words[2]):
            take = 3
        elif base in _RISKY and len(words) == len(argv) and not open_args:
            return f"Bash({_join(words)})"
        elif _SUBCOMMAND.fullmatch(second):
            take = 2
    elif base in _RISKY and len(argv) == 1 and not open_args:
        return f"Bash({_join(words)})"
    return f"Bash({_join(words[:take])}:*)"
