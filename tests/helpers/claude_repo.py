"""A repository laid out as a Claude Code user's, and a session opened on it as the front ends
open one (frontend.session_open.build_session) over the real SDK and the fake Messages API."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent.model.anthropic import AnthropicModel
from agent.session.core import Session
from cli.main import parse_launch
from frontend.session_open import build_session
from tests.fakes.fake_api import FakeAnthropic
from tests.helpers.events import Events

MODEL = "claude-sonnet-5-5"


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path``, creating its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def claude_home() -> Path:
    """The test's ``~/.claude`` (tests/conftest.py points CLAUDE_CONFIG_DIR at it)."""
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def claude_repo(root: Path) -> Path:
    """Lay out ``root/project/app`` as a Claude Code user has it; returns the workspace.

    Memory, in the order it must reach the prompt: the user's CLAUDE.md (USER-MEM), root's
    CLAUDE.md (ROOT-MEM) and its import (STYLE-MEM, which imports DEEP-MEM), project's
    AGENTS.md (PROJECT-AGENTS: that folder has no CLAUDE.md), then the app's CLAUDE.md
    (APP-MEM), .claude/CLAUDE.md (APP-DOT-MEM), CLAUDE.local.md (APP-LOCAL-MEM), then the
    always-on rule (ALWAYS-RULE). ROOT-AGENTS must not appear (root has a CLAUDE.md), nor
    the comment (HIDDEN-COMMENT) nor the import inside a code span or a fence.
    """
    write(claude_home() / "CLAUDE.md", "USER-MEM: answer in English.\n")
    write(
        root / "CLAUDE.md",
        "ROOT-MEM: the monorepo.\nSee @docs/style.md for the style.\n"
        "<!-- HIDDEN-COMMENT\nspanning lines -->\n"
        "Not an import: `@docs/never.md`, nor mail me@example.com.\n"
        "```\n@docs/never.md\n<!-- FENCED-COMMENT -->\n```\n",
    )
    write(root / "AGENTS.md", "ROOT-AGENTS\n")
    write(root / "docs" / "style.md", "STYLE-MEM: tabs.\n@../deep/deep.md\n")
    write(root / "deep" / "deep.md", "DEEP-MEM: no globals.\n")
    write(root / "docs" / "never.md", "NEVER-MEM\n")
    project = root / "project"
    write(project / "AGENTS.md", "PROJECT-AGENTS: run make test.\n")
    app = project / "app"
    write(app / "CLAUDE.md", "APP-MEM: the app.\n")
    write(app / ".claude" / "CLAUDE.md", "APP-DOT-MEM\n")
    write(app / "CLAUDE.local.md", "APP-LOCAL-MEM\n")
    write(app / ".claude" / "rules" / "always.md", "ALWAYS-RULE: be brief.\n")
    write(
        app / ".claude" / "rules" / "python.md",
        '---\npaths:\n  - "src/**/*.py"\n---\nPY-RULE: type hints everywhere.\n',
    )
    write(app / "src" / "main.py", "print('hi')\n")
    write(app / "README.txt", "readme\n")
    return app


MEMORY_ORDER = [
    "USER-MEM",
    "ROOT-MEM",
    "STYLE-MEM",
    "DEEP-MEM",
    "PROJECT-AGENTS",
    "APP-MEM",
    "APP-DOT-MEM",
    "APP-LOCAL-MEM",
    "ALWAYS-RULE",
]
"""The markers of :func:`claude_repo`'s memory, in prompt order."""


def open_session(
    fake: FakeAnthropic, workspace: Path, *argv: str, headless: bool = True
) -> tuple[Session, Events, list[str]]:
    """A session on ``workspace`` as ``eddy`` builds it, talking to ``fake``."""
    args = parse_launch(list(argv)).replace(cwd=workspace)
    events = Events()
    model = AnthropicModel(args.model, api_key="t", base_url=fake.base_url)
    opened = build_session(args, events, headless=headless, model=model, persist=False)
    session, problems = opened.session, opened.problems
    return session, events, problems


def system_text(request: dict[str, Any]) -> str:
    """The system prompt of one request the fake API received."""
    system = request.get("system", "")
    if isinstance(system, str):
        return system
    return "".join(b.get("text", "") for b in system)


def claude_commands(workspace: Path) -> None:
    """Custom commands as a Claude Code user has them (and eddy's, and the user's)."""
    commands = workspace / ".claude" / "commands"
    write(
        commands / "review.md",
        "---\ndescription: Review a file\nargument-hint: [file] [focus]\n"
        "allowed-tools: Bash(echo:*), Bash(touch:*)\nmodel: claude-haiku-4-5\n---\n"
        "Review $1 focusing on $2. All: $ARGUMENTS\nBranch: !`echo on-main`\n"
        "Code: @src/main.py\n",
    )
    write(commands / "frontend" / "lint.md", "Lint the frontend.\n")
    write(commands / "clash.md", "CLAUDE-PROJECT-CLASH\n")
    write(workspace / ".eddy" / "commands" / "clash.md", "EDDY-PROJECT-CLASH\n")
    write(claude_home() / "commands" / "clash.md", "CLAUDE-USER-CLASH\n")
    write(claude_home() / "commands" / "mine.md", "---\ndescription: mine\n---\nUSER-ONLY\n")
    write(commands / "make.md", "Made: !`touch made.txt && echo made`\n")
    write(
        commands / "fail.md",
        "---\nallowed-tools: Bash(ls:*)\n---\nListing: !`ls /no/such/dir/anywhere`\n",
    )
    write(commands / "broken.md", "---\ndescription: never closed\nBody\n")


class CommandFront:
    """The little of a front end that frontend.commands.start_command uses, recording."""

    def __init__(self, session: Session, workspace: Path) -> None:
        self.session = session
        self.workspace = workspace
        self.said: list[tuple[str, str]] = []
        self.sent: list[str] = []

    def say(self, text: str, kind: str = "hint") -> None:
        self.said.append((text, kind))

    def send(self, prompt: str) -> None:
        from agent import ops

        self.sent.append(prompt)
        self.session.submit(ops.SubmitPrompt(prompt))

    def submit(self, op: Any) -> None:
        self.session.submit(op)


def claude_skills(workspace: Path) -> None:
    """Skills: a project one with files, a user one, an eddy one, and two broken ones."""
    skill = workspace / ".claude" / "skills" / "release-notes"
    write(
        skill / "SKILL.md",
        "---\nname: release-notes\ndescription: Write release notes from the git log. Use "
        "when asked for a changelog.\nallowed-tools: Bash(git log:*), Bash(touch:*)\n---\n"
        "RELEASE-BODY: group the changes by kind. Template in reference.md.\n",
    )
    write(skill / "reference.md", "TEMPLATE\n")
    write(skill / "scripts" / "collect.sh", "git log --oneline\n")
    write(
        claude_home() / "skills" / "pdf" / "SKILL.md",
        "---\nname: pdf\ndescription: Fill PDF forms.\nallowed-tools: Bash(\n---\nPDF-BODY\n",
    )
    write(claude_home() / "skills" / "pdf" / "forms.md", "USER-SKILL-FILE\n")
    write(
        workspace / ".eddy" / "skills" / "notes" / "SKILL.md",
        "---\nname: notes\ndescription: Take notes.\n---\nNOTES-BODY\n",
    )
    write(workspace / ".claude" / "skills" / "bad" / "SKILL.md", "---\nname: bad\n---\nx\n")
    write(
        workspace / ".claude" / "skills" / "shouty" / "SKILL.md",
        "---\nname: Shouty_Name\ndescription: no.\n---\nx\n",
    )


def claude_styles(workspace: Path) -> None:
    """Output styles: a project one without the coding part, a user one with it, a bad one."""
    write(
        workspace / ".claude" / "output-styles" / "teacher.md",
        "---\nname: Teacher\ndescription: teaches\n---\nTEACHER-STYLE: explain like a teacher.\n",
    )
    write(
        claude_home() / "output-styles" / "diagram.md",
        "---\ndescription: diagrams\nkeep-coding-instructions: true\n---\n"
        "DIAGRAM-STYLE: answer with a diagram.\n",
    )
    write(
        workspace / ".claude" / "output-styles" / "odd.md",
        "---\nkeep-coding-instructions: maybe\nnot a key\n---\nODD-STYLE\n",
    )


STATUS_SCRIPT = r"""import json, sys
data = json.load(sys.stdin)
print("\x1b[32m%s\x1b[0m in %s \x1b]0;retitled\x07\x1b[2J" % (
    data["model"]["display_name"], data["workspace"]["current_dir"]))
print("id=%s cost=%s window=%s style=%s" % (
    data["session_id"], data["cost"]["total_cost_usd"],
    data["context_window"]["context_window_size"], data["output_style"]["name"]))
for i in range(3, 8):
    print("line %d" % i)
"""


def claude_status_line(workspace: Path, padding: int = 0) -> Path:
    """A status line script (python, reading Claude Code's JSON) and its setting."""
    import json
    import sys

    script = write(workspace / ".claude" / "statusline.py", STATUS_SCRIPT)
    command = f"{sys.executable} {script}"
    setting = {"statusLine": {"type": "command", "command": command, "padding": padding}}
    write(workspace / ".eddy" / "settings.json", json.dumps(setting))
    return script
