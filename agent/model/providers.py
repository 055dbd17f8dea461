"""Which API eddy talks to, chosen by Claude Code's environment variables, and the model ids.

The anthropic SDK's own clients, one per provider:

=============================  ============================  =====================================
``CLAUDE_CODE_USE_BEDROCK=1``  ``AsyncAnthropicBedrock``     AWS_REGION, AWS_PROFILE or
                                                             AWS_BEARER_TOKEN_BEDROCK;
                                                             ANTHROPIC_BEDROCK_BASE_URL;
                                                             extra ``eddy[bedrock]``
``CLAUDE_CODE_USE_VERTEX=1``   ``AsyncAnthropicVertex``      CLOUD_ML_REGION,
                                                             ANTHROPIC_VERTEX_PROJECT_ID;
                                                             ANTHROPIC_VERTEX_BASE_URL;
                                                             extra ``eddy[vertex]``
``CLAUDE_CODE_USE_FOUNDRY=1``  ``AsyncAnthropicFoundry``     ANTHROPIC_FOUNDRY_API_KEY,
                                                             ANTHROPIC_FOUNDRY_RESOURCE or
                                                             ANTHROPIC_FOUNDRY_BASE_URL
(none)                         ``AsyncAnthropic``            ANTHROPIC_API_KEY / _AUTH_TOKEN,
                                                             ANTHROPIC_BASE_URL
=============================  ============================  =====================================

``CLAUDE_CODE_SKIP_BEDROCK_AUTH`` / ``CLAUDE_CODE_SKIP_VERTEX_AUTH`` (a gateway adds the
credentials) send no AWS signature / Google token. ``ANTHROPIC_CUSTOM_HEADERS`` ("Name: value"
lines) are added to every request of every provider. The ``apiKeyHelper`` setting is a command
that prints the key: it runs (with a timeout) before the first request, and once more after a
401, whose request is then sent again with the new key.

A provider whose extra is not installed fails up front with one line naming the pip command
(the SDK's clients would construct and fail on the first request). Every failure here is a
``ModelError`` of kind "configuration": the turn ends with its message, never a traceback.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from agent.model.protocol import ModelError
from agent.model.request_body import body_client

HELPER_TIMEOUT_S = 30.0
"""How long ``apiKeyHelper`` may take (Claude Code waits about as long)."""

_api_key_helper: str | None = None


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def provider() -> str:
    """The provider the environment selects: bedrock, vertex, foundry or anthropic."""
    for name in ("bedrock", "vertex", "foundry"):
        if _flag(f"CLAUDE_CODE_USE_{name.upper()}"):
            return name
    return "anthropic"


def chosen_model(
    flag: str | None, settings_model: str | None, *, managed: bool = False
) -> str | None:
    """The model id: managed settings, then ``--model``, then ``ANTHROPIC_MODEL``, then the
    settings' ``model`` (Claude Code's order); None when none of them names one.

    Args:
        flag: ``--model`` if it was given, else None.
        settings_model: the merged settings' ``model``.
        managed: the managed settings file set ``settings_model`` (nothing overrides it).
    """
    if managed and settings_model:
        return settings_model
    env = os.environ.get("ANTHROPIC_MODEL", "").strip()
    return flag or env or settings_model or None


def small_fast_model(default: str = "claude-haiku-4-5") -> str:
    """The model for small background jobs (titles, summaries): ``ANTHROPIC_SMALL_FAST_MODEL``
    (or Claude Code's newer ``ANTHROPIC_DEFAULT_HAIKU_MODEL``), else ``default``."""
    for name in ("ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL"):
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return default


def custom_headers(text: str | None = None) -> dict[str, str]:
    """``ANTHROPIC_CUSTOM_HEADERS`` (or ``text``): one "Name: value" per line; other lines
    are skipped."""
    raw = os.environ.get("ANTHROPIC_CUSTOM_HEADERS", "") if text is None else text
    headers: dict[str, str] = {}
    for line in raw.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() and " " not in name.strip():
            headers[name.strip()] = value.strip()
    return headers


def set_api_key_helper(command: str | None) -> None:
    """Install the ``apiKeyHelper`` command (from the user's or managed settings) for the
    clients made from now on; None removes it."""
    global _api_key_helper
    _api_key_helper = command


def run_api_key_helper(command: str, timeout: float = HELPER_TIMEOUT_S) -> str:
    """Run ``apiKeyHelper`` and return the key it prints (its first non-empty line).

    Raises:
        ModelError: it failed, timed out or printed nothing (kind "configuration").
    """
    from tools.childenv import child_env

    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=child_env(),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise _config(f"apiKeyHelper {shlex.quote(command)} took over {timeout:g} s.") from None
    except OSError as exc:
        raise _config(f"apiKeyHelper {shlex.quote(command)} could not run: {exc}.") from None
    key = next((ln.strip() for ln in done.stdout.splitlines() if ln.strip()), "")
    if done.returncode != 0 or not key:
        why = f"exited with {done.returncode}" if done.returncode else "printed no key"
        detail = done.stderr.strip().splitlines()[-1:] if done.stderr.strip() else []
        raise _config(
            f"apiKeyHelper {shlex.quote(command)} {why}" + (f": {detail[0]}" if detail else ".")
        )
    return key


def has_credentials(key_helper: bool, env: Mapping[str, str]) -> bool:
    """Whether eddy can reach a model without ANTHROPIC_API_KEY: a cloud provider is selected
    (by the environment or the settings' ``env``), or the settings name an ``apiKeyHelper``
    or put a key in their ``env``.

    Args:
        key_helper: whether the settings name an ``apiKeyHelper``.
        env: the settings' ``env``.
    """
    if provider() != "anthropic":
        return True
    keys = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    switches = tuple(f"CLAUDE_CODE_USE_{n}" for n in ("BEDROCK", "VERTEX", "FOUNDRY"))
    return key_helper or any(
        env.get(name, "").strip() not in ("", "0") for name in (*keys, *switches)
    )


def _config(message: str) -> ModelError:
    return ModelError("configuration", message)


def _need(module: str, extra: str, what: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise _config(f"{what} needs the {extra} extra: pip install 'eddy[{extra}]'")


def _key_helper_auth(anthropic: Any, command: str, key: str) -> Any:
    """The auth of the SDK's HTTP client under ``apiKeyHelper``: puts the helper's key on
    every request and, after a 401, runs the helper once more and sends the request again
    with the new key. An auth flow (the HTTP library's own extension point, the same in
    httpx and httpx2) rather than SDK middleware, which only some SDK versions have, or a
    transport, which would replace the SDK's own (its TCP keepalive, the proxies of the
    environment)."""
    import asyncio

    class KeyHelperAuth(_sdk_http(anthropic).Auth):  # type: ignore[misc]
        def __init__(self) -> None:
            self.key = key

        async def async_auth_flow(self, request: Any) -> Any:
            self._with_key(request)
            response = yield request
            if response.status_code != 401:
                return
            fresh = await asyncio.to_thread(run_api_key_helper, command)
            if fresh == self.key:
                return
            self.key = fresh
            self._with_key(request)
            yield request

        def _with_key(self, request: Any) -> None:
            # the SDK sends the key as x-api-key (before 2.0) or as a bearer token (2.x)
            if request.headers.get("authorization", "").lower().startswith("bearer "):
                request.headers["Authorization"] = f"Bearer {self.key}"
            else:
                request.headers["X-Api-Key"] = self.key

    return KeyHelperAuth()


KEEP_ALIVE_S = 300.0
"""Seconds an idle connection to the API stays open for the next request. The SDK's default
(httpx's) is 5 s, so a prompt typed after reading an answer opened a new connection: a TCP
and a TLS handshake before the request (measured on the fake Messages API: eddy connected
again for a second prompt sent 8 s after the first; Claude Code used one connection for
both, also 30 s and 70 s apart). A connection the server closed meanwhile is dropped before
it is used, and the SDK's TCP keepalive probes (after 60 s idle) keep one alive through a
router that forgets quiet connections."""


def kept_alive(anthropic: Any) -> Any:
    """The SDK's connection limits, with idle connections kept ``KEEP_ALIVE_S``."""
    sdk = anthropic.DEFAULT_CONNECTION_LIMITS
    return _sdk_http(anthropic).Limits(
        max_connections=sdk.max_connections,
        max_keepalive_connections=sdk.max_keepalive_connections,
        keepalive_expiry=KEEP_ALIVE_S,
    )


def _sdk_http(anthropic: Any) -> Any:
    """The HTTP library the installed SDK uses (httpx2 from 2.0, httpx before)."""
    base = anthropic._base_client
    return getattr(base, "httpx2", None) or base.httpx


def make_client(kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The SDK client for the provider the environment selects, and the HTTP client it
    sends through when the provider is Anthropic's API (None for another: nothing is
    opened ahead of a request there).

    Args:
        kwargs: what ``AsyncAnthropic`` takes (max_retries, timeout, api_key or auth_token,
            base_url); the other providers take the same minus the Anthropic credentials.

    Raises:
        ModelError: the provider's extra is missing or its settings are incomplete.
    """
    if "httpx" not in sys.modules:
        # httpx (the SDK's HTTP library before 2.0) imports its command-line tool, and with
        # it rich and pygments when they are installed (eddy's TUI has them): 50-60 ms of
        # the SDK's import for a ``main`` eddy never calls. A None entry makes that one
        # import fail, which httpx catches (it then defines a stub).
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    import anthropic

    kwargs = dict(kwargs)
    headers = custom_headers()
    if headers:
        kwargs["default_headers"] = headers
    chosen = provider()
    # Claude Code's order: ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY, then apiKeyHelper
    env_key = os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")
    if (
        chosen == "anthropic"
        and _api_key_helper is not None
        and not env_key
        and not ("api_key" in kwargs or "auth_token" in kwargs)
    ):
        key = run_api_key_helper(_api_key_helper)
        kwargs.pop("auth_token", None)
        kwargs["api_key"] = key
        auth = _key_helper_auth(anthropic, _api_key_helper, key)
        kwargs["http_client"] = body_client(anthropic, limits=kept_alive(anthropic), auth=auth)
    if "http_client" not in kwargs:  # (a default argument would make a client to drop)
        kwargs["http_client"] = body_client(anthropic, limits=kept_alive(anthropic))
    if chosen == "anthropic":
        return anthropic.AsyncAnthropic(**kwargs), kwargs["http_client"]
    for name in ("api_key", "auth_token"):
        kwargs.pop(name, None)
    if chosen == "bedrock":
        return _bedrock(anthropic, kwargs), None
    if chosen == "vertex":
        return _vertex(anthropic, kwargs), None
    return _foundry(anthropic, kwargs), None


def _bedrock(anthropic: Any, kwargs: dict[str, Any]) -> Any:
    _need("botocore", "bedrock", "Amazon Bedrock (CLAUDE_CODE_USE_BEDROCK)")
    kwargs.pop("base_url", None)  # ANTHROPIC_BEDROCK_BASE_URL, read by the client
    if not (os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")):
        raise _config("Amazon Bedrock needs a region: set AWS_REGION (e.g. us-east-1).")
    bearer = os.environ.get("AWS_BEARER_TOKEN_BEDROCK") or None
    unsigned = bearer is not None or _flag("CLAUDE_CODE_SKIP_BEDROCK_AUTH")
    cls = _unsigned_bedrock(anthropic, bearer) if unsigned else anthropic.AsyncAnthropicBedrock
    try:
        client = cls(
            aws_region=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION"),
            **kwargs,
        )
    except ValueError as exc:
        raise _config(f"Amazon Bedrock: {exc}") from None
    client.bearer_token = bearer
    return client


def _unsigned_bedrock(anthropic: Any, bearer: str | None) -> Any:
    """The Bedrock client without its AWS signature: a Bedrock API key
    (``AWS_BEARER_TOKEN_BEDROCK``, sent as a bearer token) or a gateway that signs itself
    (``CLAUDE_CODE_SKIP_BEDROCK_AUTH``)."""

    class UnsignedBedrock(anthropic.AsyncAnthropicBedrock):  # type: ignore[misc,name-defined]
        async def _prepare_request(self, request: Any) -> None:
            if bearer is not None:
                request.headers["Authorization"] = f"Bearer {bearer}"

    return UnsignedBedrock


def _vertex(anthropic: Any, kwargs: dict[str, Any]) -> Any:
    kwargs.pop("base_url", None)  # ANTHROPIC_VERTEX_BASE_URL, read by the client
    if _flag("CLAUDE_CODE_SKIP_VERTEX_AUTH"):
        kwargs["access_token"] = "unused"  # a gateway adds the credentials
    else:
        _need("google.auth", "vertex", "Google Vertex AI (CLAUDE_CODE_USE_VERTEX)")
    if not os.environ.get("CLOUD_ML_REGION"):
        raise _config("Google Vertex AI needs a region: set CLOUD_ML_REGION (e.g. us-east5).")
    project = os.environ.get("ANTHROPIC_VERTEX_PROJECT_ID")
    if not project:
        raise _config("Google Vertex AI needs a project: set ANTHROPIC_VERTEX_PROJECT_ID.")
    try:
        return anthropic.AsyncAnthropicVertex(project_id=project, **kwargs)
    except ValueError as exc:
        raise _config(f"Google Vertex AI: {exc}") from None


def _foundry(anthropic: Any, kwargs: dict[str, Any]) -> Any:
    kwargs.pop("base_url", None)  # ANTHROPIC_FOUNDRY_BASE_URL, read by the client
    try:
        return anthropic.AsyncAnthropicFoundry(**kwargs)
    except (ValueError, anthropic.AnthropicError) as exc:
        raise _config(
            f"Microsoft Foundry: {exc} (set ANTHROPIC_FOUNDRY_API_KEY and "
            "ANTHROPIC_FOUNDRY_RESOURCE or ANTHROPIC_FOUNDRY_BASE_URL)"
        ) from None
