"""Sessions across processes: continue, resume, fork, and SIGKILL at chosen moments."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from agent.messages import TextBlock, ToolResultBlock, check_invariant, message_from_param, user
from agent.store.listing import latest_session, list_sessions
from agent.store.load import load
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.headless import eddy


def result_of(out: subprocess.CompletedProcess[str]) -> dict:
    return json.loads(out.stdout.splitlines()[-1])


def test_continue_resume_and_fork(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    fake_api.push(Reply([text("first answer")]), Reply([text("second answer")]))
    first = eddy(fake_api, tmp_path, "-p", "one", "--output-format", "eddy-events")
    assert first.returncode == 0, first.stderr
    sid = result_of(first)["session_id"]
    second = eddy(fake_api, tmp_path, "-p", "two", "--continue", "--output-format", "json")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["session_id"] == sid
    sent = fake_api.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[0]["content"][0]["text"] == "one" and sent[2]["content"][0]["text"] == "two"

    path = latest_session(tmp_path)
    assert path is not None and path.stem == sid
    original = path.read_bytes()
    fake_api.push(Reply([text("fork A")]), Reply([text("fork B")]))
    forks = []
    for word in ("A", "B"):
        out = eddy(
            fake_api,
            tmp_path,
            "-p",
            f"branch {word}",
            "--resume",
            sid,
            "--fork-session",
            "--output-format",
            "json",
        )
        assert out.returncode == 0, out.stderr
        forks.append(json.loads(out.stdout)["session_id"])
    assert path.read_bytes() == original  # the original is byte-identical
    assert len(set(forks)) == 2 and sid not in forks
    a, b = (load(path.with_name(f"{f}.jsonl")) for f in forks)
    assert a.history[-1].text == "fork A" and b.history[-1].text == "fork B"
    assert a.history[:4] == b.history[:4]
    assert {s.session_id for s in list_sessions(tmp_path)} == {sid, *forks}


def test_resume_unknown_id_is_a_clear_error(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    out = eddy(fake_api, tmp_path, "-p", "x", "--resume", "nope")
    assert out.returncode == 2
    assert "No session 'nope'" in out.stderr
    assert fake_api.requests == []


def slow_script(n: int, tag: str) -> list[Reply]:
    """Streaming text with delays and tool calls, so a kill lands mid-stream or mid-tool.
    Each command first creates the file ``ran_<tag>_<i>``: the test's sign it is running."""
    replies = []
    for i in range(n):
        command = f"touch ran_{tag}_{i}; sleep 0.2; echo out{i}"
        replies.append(
            Reply(
                [text("step " * 30), tool_use(f"toolu_{tag}_{i}", "Bash", {"command": command})],
                "tool_use",
                delay=0.01,
            )
        )
    replies.append(Reply([text("finished")]))
    return replies


KILL_POINTS = [("request", 1), ("tool", 0), ("request", 2), ("tool", 1)]
KILL_POINTS += [("request", 3), ("tool", 3), ("request", 4), ("request", 5)]
"""Where the rounds are killed: once the run's k-th request reached the fake API (its response
then streams), or once the command of its tool turn k runs. The 5th request is the final
answer: that run may end on its own first, which is a moment too."""


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen[bytes], what: str) -> None:
    """Poll ``condition`` until it holds; the run must not end (or take a minute) first."""
    deadline = time.monotonic() + 60
    while not condition():
        if proc.poll() is not None and not condition():
            raise AssertionError(f"eddy ended (status {proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.001)


def test_sigkill_at_chosen_moments_always_resumes_valid(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    points = list(KILL_POINTS)
    random.Random(1234).shuffle(points)
    exe = Path(sys.executable).with_name("eddy")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env |= {"ANTHROPIC_BASE_URL": fake_api.base_url, "ANTHROPIC_API_KEY": "k"}
    prompts: list[str] = []
    reached: list[int] = []  # model calls each killed run made

    def requests_seen(n: int) -> Callable[[], bool]:
        return lambda: len(fake_api.requests) >= n

    for round_, (kind, k) in enumerate(points):
        # this round's script alone (a killed run leaves replies unasked for)
        script = slow_script(4, str(round_))
        fake_api.responder = lambda body, script=script: script.pop(0)
        prompt = f"prompt number {round_}"
        prompts.append(prompt)
        args = [str(exe), "-p", prompt, "--allowed-tools", "Bash"]
        if round_:
            args.append("--continue")
        before = len(fake_api.requests)
        proc = subprocess.Popen(
            args, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        if kind == "request":
            wait_for(requests_seen(before + k), proc, f"request {k}")
        else:
            wait_for((tmp_path / f"ran_{round_}_{k}").exists, proc, f"the command of turn {k}")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        reached.append(len(fake_api.requests) - before)
        # whatever was cut, the saved session loads valid with every prompt written so far
        path = latest_session(tmp_path)
        assert path is not None
        loaded = load(path)
        history = list(loaded.history)
        if history and history[-1].role == "user":
            nxt = [*history[:-1], history[-1].with_blocks(TextBlock("next"))]
        else:
            nxt = [*history, user("next")]
        check_invariant(nxt)
        texts = [p for _, p in loaded.prompts]
        for p in prompts:
            assert p in texts  # every run reached the API, and a prompt is saved before that
        for msg in history:
            for block in msg.content:
                if isinstance(block, ToolResultBlock):
                    assert block.content
    assert max(reached) >= 2, reached  # some kills landed mid-turn, after tool calls
    print("model calls before each kill:", reached)
    # and the next turn's request passes the invariant
    fake_api.responder = None
    fake_api.push(Reply([text("resumed fine")]))
    out = eddy(fake_api, tmp_path, "-p", "final", "--continue", "--output-format", "json")
    assert out.returncode == 0, out.stderr
    assert fake_api.violations == []
    last = fake_api.requests[-1]["messages"]
    check_invariant([message_from_param(m) for m in last])
    sent_text = json.dumps(last)
    for p in prompts:
        assert p in sent_text


def test_rewind_after_resume_in_a_new_process(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("original\n")
    fake_api.push(
        Reply(
            [tool_use("toolu_a", "Bash", {"command": "echo changed > keep.txt; echo new > n.txt"})],
            "tool_use",
        ),
        Reply([text("done")]),
    )
    first = eddy(
        fake_api,
        tmp_path,
        "-p",
        "change things",
        "--allowed-tools",
        "Bash",
        "--output-format",
        "json",
    )
    assert first.returncode == 0, first.stderr
    sid = json.loads(first.stdout)["session_id"]
    assert (tmp_path / "keep.txt").read_text() == "changed\n"
    listing = eddy(fake_api, tmp_path, "--resume", sid, "--checkpoints")
    assert listing.returncode == 0, listing.stderr
    assert "change things" in listing.stdout and "2 files +2 -1" in listing.stdout
    rewound = eddy(fake_api, tmp_path, "--resume", sid, "--rewind", "1")
    assert rewound.returncode == 0, rewound.stderr
    assert "Rewound" in rewound.stdout
    assert (tmp_path / "keep.txt").read_text() == "original\n"  # a shell change, undone
    assert not (tmp_path / "n.txt").exists()
    fake_api.push(Reply([text("fresh start")]))
    again = eddy(fake_api, tmp_path, "-p", "hello", "--resume", sid, "--output-format", "json")
    assert again.returncode == 0, again.stderr
    sent = fake_api.requests[-1]["messages"]
    assert len(sent) == 1 and sent[0]["content"][0]["text"] == "hello"
