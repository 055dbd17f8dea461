"""Plugin directories in Claude Code's format (its plugins reference), and marketplaces of
them, for the plugin tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.claude_repo import write

FAKE_SERVER = Path(__file__).resolve().parents[1] / "fakes" / "mcp_stdio_server.py"

GUARD = """#!/bin/sh
# a plugin's PreToolUse hook: refuses rm, and says where it runs from
input=$(cat)
echo "root=$CLAUDE_PLUGIN_ROOT data=$CLAUDE_PLUGIN_DATA" >> "$CLAUDE_PLUGIN_ROOT/hook.log"
case "$input" in
  *'"rm '*) echo "review-kit refuses rm" >&2; exit 2 ;;
esac
exit 0
"""


def review_kit(root: Path, name: str = "review-kit", *, manifest: bool = True) -> Path:
    """A plugin with every component Claude Code defines, at ``root``; returns ``root``.

    Commands ``review`` (REVIEW-CMD) and ``git/log``, agent ``checker`` (CHECKER-PROMPT),
    skill ``lint`` (LINT-BODY), a PreToolUse hook on Bash refusing ``rm``
    (``scripts/guard.sh``, logging its variables to ``hook.log``), the MCP server ``tools``
    (tests/fakes/mcp_stdio_server.py, logging to ``mcp.log``), the output style ``terse``,
    and components eddy does not support (LSP servers, userConfig).
    """
    if manifest:
        write(
            root / ".claude-plugin" / "plugin.json",
            json.dumps(
                {
                    "name": name,
                    "version": "1.2.0",
                    "description": "Review helpers",
                    "author": {"name": "Tester"},
                    "userConfig": {"token": {"type": "string", "title": "T", "description": "t"}},
                }
            ),
        )
    write(
        root / "commands" / "review.md",
        "---\ndescription: Review a change\nargument-hint: [file]\n"
        "allowed-tools: Bash(echo:*)\n---\n"
        "REVIEW-CMD of $1 (all: $ARGUMENTS) with ${CLAUDE_PLUGIN_ROOT}/checklist.md\n",
    )
    write(root / "commands" / "git" / "log.md", "GIT-LOG-CMD\n")
    write(
        root / "agents" / "checker.md",
        "---\nname: checker\ndescription: Checks a change against the checklist.\n"
        "tools: Read, Grep\n---\nCHECKER-PROMPT: read ${CLAUDE_PLUGIN_ROOT}/checklist.md\n",
    )
    write(
        root / "skills" / "lint" / "SKILL.md",
        "---\nname: lint\ndescription: Lint the code the plugin's way.\n---\n"
        "LINT-BODY: run ${CLAUDE_PLUGIN_ROOT}/scripts/lint.sh\n",
    )
    guard = write(root / "scripts" / "guard.sh", GUARD)
    guard.chmod(0o755)
    write(
        root / "hooks" / "hooks.json",
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash",
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": '"${CLAUDE_PLUGIN_ROOT}"/scripts/guard.sh',
                                }
                            ],
                        }
                    ]
                }
            }
        ),
    )
    write(
        root / ".mcp.json",
        json.dumps(
            {
                "mcpServers": {
                    "tools": {
                        "command": sys.executable,
                        "args": [str(FAKE_SERVER), "--name", "tools"],
                        "env": {"FAKE_MCP_LOG": "${CLAUDE_PLUGIN_ROOT}/mcp.log"},
                    }
                }
            }
        ),
    )
    write(
        root / "output-styles" / "terse.md",
        "---\ndescription: very short answers\n---\nTERSE-STYLE\n",
    )
    write(root / ".lsp.json", "{}")
    write(root / "checklist.md", "CHECKLIST\n")
    return root


def marketplace(root: Path, name: str = "team-tools", *, plugins: tuple[str, ...] = ()) -> Path:
    """A marketplace directory at ``root`` (``.claude-plugin/marketplace.json``) listing
    ``review-kit`` (relative source ``./plugins/review-kit``) and the ``plugins`` named, each
    a small plugin with one command ``hello`` (``HELLO-FROM-<name>``)."""
    review_kit(root / "plugins" / "review-kit")
    entries: list[dict[str, object]] = [
        {"name": "review-kit", "source": "./plugins/review-kit", "description": "Review helpers"}
    ]
    for plugin in plugins:
        write(root / "plugins" / plugin / "commands" / "hello.md", f"HELLO-FROM-{plugin}\n")
        entries.append({"name": plugin, "source": f"./plugins/{plugin}", "description": plugin})
    write(
        root / ".claude-plugin" / "marketplace.json",
        json.dumps({"name": name, "owner": {"name": "Team"}, "plugins": entries}),
    )
    return root


def git_repository(folder: Path) -> str:
    """Make ``folder`` a git repository with one commit; its ``file://`` URL."""

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
            cwd=folder,
            check=True,
            capture_output=True,
        )

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "marketplace")
    return folder.resolve().as_uri()
