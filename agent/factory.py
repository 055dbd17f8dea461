"""Build a session from the command line: shared by the headless runner and the TUI."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.loop import Limits
from agent.model import Model
from agent.permissions import Policy, Rule
from agent.prompt import load_memory, system_prompt
from agent.session import Emit, Session, SessionConfig
from tools import default_tools


def build_policy(args: argparse.Namespace) -> tuple[Policy, list[str]]:
    """The policy from flags; invalid rules are skipped and reported."""
    problems: list[str] = []

    def rules(values: list[str]) -> list[Rule]:
        out = []
        for value in values:
            try:
                out.append(Rule.parse(value))
            except ValueError as exc:
                problems.append(str(exc))
        return out

    policy = Policy(args.permission_mode, rules(args.allowed_tools), rules(args.disallowed_tools))
    return policy, problems


def build_session(
    args: argparse.Namespace, emit: Emit, *, headless: bool, model: Model | None = None
) -> tuple[Session, list[str]]:
    """A session for ``args``; returns it with any configuration problems to show the user."""
    workspace = Path(args.cwd or Path.cwd()).resolve()
    policy, problems = build_policy(args)
    config = SessionConfig(
        workspace=workspace,
        model=args.model,
        system=system_prompt(workspace, load_memory(workspace)),
        limits=Limits(args.max_turns, args.max_budget_usd),
        policy=policy,
        headless=headless,
    )
    if model is None:
        from agent.anthropic_model import AnthropicModel

        model = AnthropicModel(args.model)
    return Session(config, model, default_tools(), emit), problems
