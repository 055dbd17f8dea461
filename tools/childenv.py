"""The environment every child process starts with: eddy's own, minus its secrets.

eddy holds credentials for the model API (``ANTHROPIC_API_KEY``, cloud credentials for
Bedrock and Vertex). A command the model runs must never see them: ``echo $ANTHROPIC_API_KEY``
would put the key in the conversation, and any program could send it anywhere. So every spawn
site (Bash, the user's ``!command``, ripgrep, git, the editor, later hooks and MCP servers)
builds its environment with :func:`child_env`. The ``passSecretEnv`` setting names secrets the
user wants passed on anyway (``allow_secrets`` installs it once per process).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

SECRET_NAMES = frozenset(
    {
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_BEARER_TOKEN_BEDROCK",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_OAUTH_ACCESS_TOKEN",
        "CLOUDSDK_AUTH_ACCESS_TOKEN",
        "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",
    }
)
"""Variables eddy may use to reach the model; no child inherits them unless passed."""

_passed: frozenset[str] = frozenset()


def allow_secrets(names: Iterable[str]) -> None:
    """Let children inherit these secret variables (the ``passSecretEnv`` setting)."""
    global _passed
    _passed = frozenset(names)


def child_env(
    extra: Mapping[str, str] | None = None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment for a child process.

    Args:
        extra: variables to add (or override) after the secrets are removed.
        base: the environment to start from (``os.environ`` by default).

    Returns:
        A new dict: ``base`` without the :data:`SECRET_NAMES` not passed, plus ``extra``.
    """
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if k not in SECRET_NAMES or k in _passed}
    if extra:
        env.update(extra)
    return env
