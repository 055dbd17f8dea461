"""Providers chosen by Claude Code's variables (agent/model/providers.py), through the real session
and the fake Messages API behind each client's base-URL variable where the SDK allows it:
Foundry (ANTHROPIC_FOUNDRY_BASE_URL), Vertex (ANTHROPIC_VERTEX_BASE_URL, through a proxy that
turns Vertex's path into /v1/messages), the Anthropic client with custom headers and an
apiKeyHelper that is re-run after a 401. Bedrock answers in AWS's binary event stream, which
the fake does not speak: its tests stop at the missing extra and at the client's set-up.
"""

from __future__ import annotations

import http.client
import json
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from agent import events as ev
from agent import ops
from agent.model import providers
from agent.model.anthropic import AnthropicModel
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.fakes.fake_api import FakeAnthropic, HttpError, Reply, text
from tests.helpers.events import Events

MODEL = "claude-sonnet-5-5"
_VARS = (
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_USE_FOUNDRY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in _VARS:
        monkeypatch.delenv(name, raising=False)
    yield
    providers.set_api_key_helper(None)


async def _run(tmp_path: Path, model: AnthropicModel) -> Events:
    events = Events()
    session = Session(SessionConfig(workspace=tmp_path, model=MODEL), model, [], events)
    session.submit(ops.SubmitPrompt("hello"))
    await session.wait_idle()
    await session.close()
    return events


def _errors(events: Events) -> list[str]:
    return [e.message for e in events.of(ev.Error)]


# -- choosing ----------------------------------------------------------------------------
def test_the_provider_follows_claude_codes_switches(monkeypatch: pytest.MonkeyPatch) -> None:
    assert providers.provider() == "anthropic"
    monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "1")
    assert providers.provider() == "vertex"
    monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "0")
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "true")
    assert providers.provider() == "bedrock"


def test_the_model_comes_from_managed_then_flag_then_env_then_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert providers.chosen_model(None, None) is None
    assert providers.chosen_model(None, "from-settings") == "from-settings"
    monkeypatch.setenv("ANTHROPIC_MODEL", "from-env")
    assert providers.chosen_model(None, "from-settings") == "from-env"
    assert providers.chosen_model("from-flag", "from-settings") == "from-flag"
    assert providers.chosen_model("from-flag", "managed", managed=True) == "managed"


def test_small_fast_model(monkeypatch: pytest.MonkeyPatch) -> None:
    assert providers.small_fast_model() == "claude-haiku-4-5"
    monkeypatch.setenv("ANTHROPIC_SMALL_FAST_MODEL", "claude-haiku-5-5")
    assert providers.small_fast_model("x") == "claude-haiku-5-5"


def test_custom_headers_are_name_value_lines() -> None:
    parsed = providers.custom_headers("X-Team: blue\nnot a header\nX-Trace: a:b\n: empty")
    assert parsed == {"X-Team": "blue", "X-Trace": "a:b"}


# -- a missing extra ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("switch", "extra", "env"),
    [
        ("CLAUDE_CODE_USE_BEDROCK", "bedrock", {"AWS_REGION": "us-east-1"}),
        ("CLAUDE_CODE_USE_VERTEX", "vertex", {"CLOUD_ML_REGION": "us-east5"}),
    ],
)
async def test_a_missing_extra_is_one_line_with_the_pip_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    switch: str,
    extra: str,
    env: dict[str, str],
) -> None:
    module = {"bedrock": "botocore", "vertex": "google.auth"}[extra]
    real = providers.importlib.util.find_spec

    def find_spec(name: str, *a: Any) -> Any:
        return None if name == module else real(name, *a)

    monkeypatch.setattr(providers.importlib.util, "find_spec", find_spec)
    monkeypatch.setenv(switch, "1")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    events = await _run(tmp_path, AnthropicModel(MODEL))
    (message,) = _errors(events)
    assert f"pip install 'eddy[{extra}]'" in message
    assert "\n" not in message and "Traceback" not in message
    assert events.of(ev.TurnFinished)[-1].subtype == "error_during_execution"


async def test_bedrock_without_a_region_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(providers, "_need", lambda *a: None)  # as if the extra were installed
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    events = await _run(tmp_path, AnthropicModel(MODEL))
    assert any("AWS_REGION" in m for m in _errors(events))


def test_bedrock_uses_its_base_url_variable_and_bearer_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(providers, "_need", lambda *a: None)
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-token")
    monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", "http://127.0.0.1:9/bedrock")
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Team: blue")
    client = AnthropicModel(MODEL).client()
    import anthropic

    assert isinstance(client, anthropic.AsyncAnthropicBedrock)
    assert str(client.base_url).startswith("http://127.0.0.1:9/bedrock")
    assert client.bearer_token == "bedrock-token" and client.aws_region == "eu-west-1"
    assert client.default_headers["X-Team"] == "blue"


# -- through the fake API ----------------------------------------------------------------
async def test_foundry_reaches_the_fake_api_with_custom_headers(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_api.push(Reply([text("hello from foundry")]))
    monkeypatch.setenv("CLAUDE_CODE_USE_FOUNDRY", "1")
    monkeypatch.setenv("ANTHROPIC_FOUNDRY_API_KEY", "foundry-key")
    monkeypatch.setenv("ANTHROPIC_FOUNDRY_BASE_URL", fake_api.base_url)
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Team: blue\nX-Cost-Centre: 42")
    events = await _run(tmp_path, AnthropicModel(MODEL))
    assert events.of(ev.TurnFinished)[-1].subtype == "success", _errors(events)
    (headers,) = fake_api.headers
    assert headers["x-api-key"] == "foundry-key"
    assert headers["x-team"] == "blue" and headers["x-cost-centre"] == "42"
    assert not fake_api.violations


class _VertexProxy(BaseHTTPRequestHandler):
    """Vertex's ``…/models/{model}:streamRawPredict`` -> the fake's ``/v1/messages``."""

    target = ""
    paths: list[str] = []

    def do_POST(self) -> None:  # noqa: N802
        type(self).paths.append(self.path)
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        model = self.path.rsplit("/models/", 1)[1].split(":", 1)[0]
        # Vertex's body names the API version instead of the model
        if "model" not in body and body.pop("anthropic_version", None):
            body["model"] = model
        data = json.dumps(body).encode()
        url = urlparse(self.target)
        conn = http.client.HTTPConnection(url.hostname, url.port)
        auth = self.headers["authorization"]
        headers = {"content-type": "application/json", "authorization": auth}
        conn.request("POST", "/v1/messages", data, headers)
        reply = conn.getresponse()
        self.send_response(reply.status)
        self.send_header("content-type", reply.getheader("content-type", "text/event-stream"))
        self.end_headers()
        while chunk := reply.read1(65536):
            self.wfile.write(chunk)
            self.wfile.flush()
        conn.close()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


async def test_vertex_reaches_the_fake_api_through_its_base_url(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_api.push(Reply([text("hello from vertex")]))
    _VertexProxy.target, _VertexProxy.paths = fake_api.base_url, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _VertexProxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("CLAUDE_CODE_USE_VERTEX", "1")
        monkeypatch.setenv("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1")  # a gateway adds credentials
        monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
        monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "my-project")
        monkeypatch.setenv("ANTHROPIC_VERTEX_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
        events = await _run(tmp_path, AnthropicModel(MODEL))
    finally:
        server.shutdown()
        server.server_close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success", _errors(events)
    (path,) = _VertexProxy.paths
    assert path.startswith("/v1/projects/my-project/locations/us-east5/publishers/anthropic/")
    assert path.endswith(f"/models/{MODEL}:streamRawPredict")
    assert not fake_api.violations


async def test_api_key_helper_runs_again_after_a_401(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = tmp_path / "runs"
    script = tmp_path / "key.py"
    script.write_text(
        "import pathlib, sys\n"
        f"p = pathlib.Path({str(counter)!r})\n"
        "n = int(p.read_text()) + 1 if p.exists() else 1\n"
        "p.write_text(str(n))\n"
        "print(f'key-{n}')\n"
    )
    providers.set_api_key_helper(f"{sys.executable} {script}")
    fake_api.push(HttpError(401, "authentication_error", "expired"), Reply([text("ok")]))
    events = await _run(tmp_path, AnthropicModel(MODEL, base_url=fake_api.base_url))
    assert events.of(ev.TurnFinished)[-1].subtype == "success", _errors(events)
    assert counter.read_text() == "2"
    # the SDK sends the key as x-api-key before 2.0, as a bearer token from 2.0
    sent = [
        h.get("x-api-key") or h.get("authorization", "").removeprefix("Bearer ")
        for h in fake_api.headers
    ]
    assert sent == ["key-1", "key-2"]


async def test_a_failing_api_key_helper_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    providers.set_api_key_helper("echo nope >&2; exit 3")
    events = await _run(tmp_path, AnthropicModel(MODEL, base_url="http://127.0.0.1:9"))
    (message,) = _errors(events)
    assert "apiKeyHelper" in message and "exited with 3" in message and "nope" in message


async def test_api_key_helper_keeps_the_sdks_tcp_keepalive(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under apiKeyHelper the HTTP client is still the SDK's own, with its TCP keepalive
    probes: an idle connection is kept for the next prompt (KEEP_ALIVE_S), and without them
    a router that forgets quiet connections would leave that prompt on a dead one."""
    providers.set_api_key_helper("echo key-1")
    options: list[tuple[int, int]] = []
    setsockopt = socket.socket.setsockopt

    def noted(sock: socket.socket, level: int, name: int, *value: object) -> None:
        options.append((level, name))
        setsockopt(sock, level, name, *value)  # type: ignore[call-overload]

    monkeypatch.setattr(socket.socket, "setsockopt", noted)
    fake_api.push(Reply([text("ok")]))
    events = await _run(tmp_path, AnthropicModel(MODEL, base_url=fake_api.base_url))
    assert events.of(ev.TurnFinished)[-1].subtype == "success", _errors(events)
    assert (socket.SOL_SOCKET, socket.SO_KEEPALIVE) in options
    (headers,) = fake_api.headers
    assert (headers.get("x-api-key") or headers["authorization"].removeprefix("Bearer ")) == "key-1"
