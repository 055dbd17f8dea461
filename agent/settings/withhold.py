"""What a project's settings file may not do until the user approves it.

:func:`agent.settings.files.load_settings` reads each project and project-local file through
:func:`withhold`, which leaves out the kinds of grants the user has not approved as they are
now (:func:`agent.settings.trust.approved_kinds`): allow rules, a widening ``defaultMode`` and
added directories ("rules"), ``hooks``, ``env``, sandbox settings that weaken it, the status
line and the API key helper. What narrows (ask and deny rules, ``plan``, a sandbox setting that
makes it stricter, ``disableAllHooks``) always applies. Each file's withheld keys are said once.

``env`` from a project's files is limited further, approved or not, to names that cannot steer
eddy's process or its children's loaders (:data:`PROJECT_ENV`): a proxy, a certificate file,
the dynamic loader, an interpreter's start-up, git's configuration or ssh command, a pager or
an editor stay the user's to set. The names left out are said at start.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from agent.settings.sources import SettingsSource

PROJECT_ENV = frozenset(
    {
        "NODE_ENV",
        "RAILS_ENV",
        "RACK_ENV",
        "APP_ENV",
        "FLASK_ENV",
        "FLASK_DEBUG",
        "DJANGO_SETTINGS_MODULE_NAME",
        "DEBUG",
        "LOG_LEVEL",
        "RUST_LOG",
        "RUST_BACKTRACE",
        "GOTRACEBACK",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONHASHSEED",
        "PYTHONFAULTHANDLER",
        "TZ",
        "LANG",
        "LANGUAGE",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "COLUMNS",
        "CI",
        "BASH_DEFAULT_TIMEOUT_MS",
        "BASH_MAX_TIMEOUT_MS",
        "BASH_MAX_OUTPUT_LENGTH",
        "MAX_MCP_OUTPUT_TOKENS",
        "MCP_TIMEOUT",
        "MCP_TOOL_TIMEOUT",
        "MAX_THINKING_TOKENS",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
        "ANTHROPIC_MODEL",
        "ANTHROPIC_SMALL_FAST_MODEL",
        "ANTHROPIC_DEFAULT_OPUS_MODEL",
        "ANTHROPIC_DEFAULT_SONNET_MODEL",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL",
        "DISABLE_TELEMETRY",
        "DISABLE_ERROR_REPORTING",
        "DISABLE_AUTOUPDATER",
        "DISABLE_COST_WARNINGS",
        "DISABLE_NON_ESSENTIAL_MODEL_CALLS",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    }
)
"""The variables a project's settings may set: an allow-list, since a deny-list of what can
steer a program (``HTTPS_PROXY``, ``SSL_CERT_FILE``, ``LD_PRELOAD``, ``NODE_OPTIONS``,
``PYTHONSTARTUP``, ``GIT_CONFIG_*``, ``GIT_SSH_COMMAND``, ``PAGER``, ``EDITOR``, eddy's own
``EDDY_*`` ...) is never complete. The user's settings and environment set anything."""
_LOCALE = re.compile(r"LC_[A-Z]+")

_PROJECT_SCOPES = frozenset({"project", "local"})


def project_env_allowed(name: str) -> bool:
    """Whether a project's settings may set the variable ``name`` (:data:`PROJECT_ENV`)."""
    return name in PROJECT_ENV or bool(_LOCALE.fullmatch(name))


def withhold(
    data: dict[str, Any],
    source: SettingsSource,
    approved: frozenset[str] | None,
    problems: list[str],
) -> dict[str, Any]:
    """``data`` (one settings file) without what its scope may not do: a copy, or ``data``
    itself for the user's and managed files.

    Args:
        data: the file's JSON object.
        source: the file.
        approved: the kinds of the project's grants the user approved (None: all of them).
        problems: where what was left out is said.
    """
    if source.scope not in _PROJECT_SCOPES:
        return data
    out = copy.copy(data)
    _withhold_env(out, source, problems)
    if approved is None:
        return out
    left = _withhold_unapproved(out, approved)
    if left:
        problems.append(
            f"{source.label}: {', '.join(left)} not used: you have not approved what this "
            "project's files grant as they are now (eddy asks when a session starts)."
        )
    return out


def _withhold_env(out: dict[str, Any], source: SettingsSource, problems: list[str]) -> None:
    """Leave out of ``out["env"]`` the variables no project may set, and say so."""
    env = out.get("env")
    if not isinstance(env, dict):
        return
    refused = sorted(n for n in env if not project_env_allowed(str(n)))
    if refused:
        out["env"] = {n: v for n, v in env.items() if project_env_allowed(str(n))}
        problems.append(
            f"{source.label}: env: {', '.join(refused)} skipped: a project's settings set "
            "only variables that cannot redirect eddy or the programs it runs (set these "
            "in your user settings if you want them)."
        )


def _withhold_unapproved(out: dict[str, Any], approved: frozenset[str]) -> list[str]:
    """Leave out of ``out`` what the user has not approved; the keys left out."""
    left: list[str] = []
    if "rules" not in approved:
        _narrow_permissions(out, left)
    for kind, key in (("hooks", "hooks"), ("env", "env"), ("statusLine", "statusLine")):
        if kind not in approved and out.get(key):
            left.append(key)
            del out[key]
    if "apiKeyHelper" not in approved and "apiKeyHelper" in out:
        left.append("apiKeyHelper")
        del out["apiKeyHelper"]
    if "sandbox" not in approved and isinstance(out.get("sandbox"), dict):
        strict = _stricter_sandbox(out["sandbox"])
        if strict != out["sandbox"]:
            left.append("sandbox (what weakens it)")
        out["sandbox"] = strict
    return left


def _narrow_permissions(out: dict[str, Any], left: list[str]) -> None:
    """Unapproved rules: keep only the ask and deny rules and a mode that asks more."""
    permissions = out.get("permissions")
    if not isinstance(permissions, dict):
        return
    narrowed = {k: v for k, v in permissions.items() if k in ("ask", "deny")}
    mode = permissions.get("defaultMode")
    if mode in ("default", "plan", "dontAsk"):
        narrowed["defaultMode"] = mode
    if narrowed != permissions:
        left.append("permissions.allow/defaultMode/additionalDirectories")
    out["permissions"] = narrowed


def _stricter_sandbox(value: dict[str, Any]) -> dict[str, Any]:
    """The keys of a ``sandbox`` object that only make the sandbox stricter."""
    out: dict[str, Any] = {}
    if value.get("enabled") is True:
        out["enabled"] = True
    if value.get("allowUnsandboxedCommands") is False:
        out["allowUnsandboxedCommands"] = False
    network = value.get("network")
    if isinstance(network, dict) and network.get("allowAll") is False:
        out["network"] = {"allowAll": False}
    return out
