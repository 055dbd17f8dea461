"""What the merged settings change in the process at start-up: the ``env`` variables, the
``apiKeyHelper`` command, ``respectGitignore`` (Glob, Grep and the @ file index, through
``tools.ignore.respect_gitignore``), and the clean-up of old transcripts
(``cleanupPeriodDays``).

``env`` goes into ``os.environ``, so eddy itself (the provider variables, ANTHROPIC_MODEL ...)
and every child sees it: children start from ``tools.childenv.child_env``, which copies the
environment minus eddy's secrets (a key put in ``env`` still reaches only eddy, unless the
``passSecretEnv`` setting passes it on). A value in ``env`` beats the inherited environment,
as in Claude Code.
"""

from __future__ import annotations

import os

from agent.settings.files import Settings


def apply_settings(settings: Settings, problems: list[str]) -> None:
    """Apply ``env``, ``apiKeyHelper`` and ``cleanupPeriodDays`` for this process.

    Args:
        settings: the merged settings.
        problems: where a failure is reported (eddy starts anyway).
    """
    os.environ.update(settings.env)
    from tools.ignore import respect_gitignore

    respect_gitignore(settings.respect_gitignore is not False)
    from agent.model.providers import set_api_key_helper

    helper = settings.api_key_helper
    set_api_key_helper(helper[0] if helper is not None else None)
    if settings.cleanup_period_days is not None:
        from agent.store.cleanup import remove_old_sessions

        try:
            remove_old_sessions(settings.cleanup_period_days)
        except OSError as exc:  # never a reason not to start
            problems.append(f"cleanupPeriodDays: old sessions could not be removed ({exc}).")
