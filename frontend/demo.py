"""``eddy --demo``: a scripted model working on a scratch copy of a small sample project.

No API key and no network: the "model" is a script, a function of the history, that streams
text, thinks, plans with TodoWrite, reads files, asks to edit one (a real permission prompt),
runs the tests with Bash and sums up. It reacts to what happens: a refused or failed call, a
correction queued while it works, an interrupt. Everything it prints says it is scripted.
Headless-safe: nothing here imports a UI library.
"""

from __future__ import annotations

import asyncio
import atexit
import shutil
import tempfile
from pathlib import Path

from agent.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant,
)
from agent.model.pricing import Usage
from agent.model.protocol import (
    ModelRequest,
    ModelResponse,
    StreamSink,
    as_response,
    estimate_tokens,
)
from agent.turn.loop import INTERRUPT_NOTE

SAMPLE_PROJECT: dict[str, str] = {
    "README.md": "# stats\n\nTiny statistics helpers. Test: `python3 test_stats.py`.\n",
    "stats.py": (
        '"""Tiny statistics helpers."""\n\n\n'
        "def mean(values):\n"
        '    """The arithmetic mean of a non-empty list."""\n'
        "    return sum(values) / (len(values) - 1)\n\n\n"
        "def spread(values):\n"
        '    """The difference between the largest and the smallest value."""\n'
        "    return max(values) - min(values)\n"
    ),
    "test_stats.py": (
        "from stats import mean, spread\n\n"
        "assert mean([1, 2, 3]) == 2, mean([1, 2, 3])\n"
        "assert spread([4, 1, 9]) == 8\n"
        'print("all tests passed")\n'
    ),
}
"""The sample project: ``mean`` has an off-by-one bug that the tests catch."""

BUGGY = "    return sum(values) / (len(values) - 1)\n"
FIXED = "    return sum(values) / len(values)\n"
LABEL = "*(scripted demo: no model is called)*"

TODOS_START = [
    {
        "content": "Read the code and the tests",
        "status": "in_progress",
        "activeForm": "Reading the code and the tests",
    },
    {"content": "Fix the bug in mean()", "status": "pending", "activeForm": "Fixing mean()"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]


SCRATCH_PREFIX = "eddy-demo-"


def prepare_workspace(parent: Path | None = None, *, remove_at_exit: bool = True) -> Path:
    """Copy the sample project into a new scratch directory and return its path.

    Args:
        parent: where to make it (default: the system's temporary directory).
        remove_at_exit: remove the directory when the process exits, so demos leave no
            ``eddy-demo-*`` folders behind (a hard exit after a second signal still may).
    """
    root = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=parent))
    if remove_at_exit:
        atexit.register(remove_workspace, root)
    for name, text in SAMPLE_PROJECT.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def remove_workspace(root: Path) -> None:
    """Remove a scratch directory made by :func:`prepare_workspace` (nothing else: the name
    is checked, so a wrong path can never remove a user's folder)."""
    if root.name.startswith(SCRATCH_PREFIX):
        shutil.rmtree(root, ignore_errors=True)


def _todos(done: int) -> list[dict[str, str]]:
    out = []
    for i, todo in enumerate(TODOS_START):
        status = "completed" if i < done else "in_progress" if i == done else "pending"
        out.append({**todo, "status": status})
    return out


def _corrections(last: Message) -> list[str]:
    texts = [b.text for b in last.content if isinstance(b, TextBlock)]
    return [t for t in texts if t != INTERRUPT_NOTE]


def _was_interrupted(message: Message | None) -> bool:
    return message is not None and any(
        isinstance(b, TextBlock) and b.text == INTERRUPT_NOTE for b in message.content
    )


def _result_text(block: ToolResultBlock) -> str:
    if isinstance(block.content, str):
        return block.content
    return "\n".join(str(b.get("text", "")) for b in block.content)


def _step(history: list[Message]) -> tuple[int, Message | None]:
    """The step to take: 1 for a new prompt, else the one after the last tool round.

    Tool call ids carry their step (``demo-<step>-<what>-<n>``).
    """
    last = history[-1] if history else None
    if last is None or not any(isinstance(b, ToolResultBlock) for b in last.content):
        return 1, last
    if _was_interrupted(last):
        return 1, last  # interrupted, then the user wrote again: start over
    ids = [u.id for u in history[-2].tool_uses if u.id.startswith("demo-")]
    return (int(ids[0].split("-")[1]) + 1 if ids else 1), last


def demo_script(history: list[Message]) -> ModelResponse | Message | str:
    """The demo's next response as a function of the history."""
    step, last = _step(history)
    n = len(history)
    if step == 1:
        return _look_first(last, n)
    said = _corrections(last) if last is not None else []
    note = ""
    if said:
        note = f"Noted, you wrote: “{said[-1]}”. In a real session I would follow that.\n\n"
    results = [b for b in last.content if isinstance(b, ToolResultBlock)] if last else []
    if step == 2:
        return _fix(note, n)
    if step == 3:
        edit_failed = any(r.is_error and "edit" in r.tool_use_id for r in results)
        return _run_tests(note, n, edit_failed=edit_failed)
    return _summary(note, results)


def _look_first(last: Message | None, n: int) -> Message:
    """Step 1: read the code and its tests, with a task list (again after an interruption)."""
    intro = (
        f"{LABEL}\n\nLet me look at the project first: the code and its tests. "
        "I will keep a task list as I go.\n"
    )
    if _was_interrupted(last):
        intro = f"{LABEL}\n\nUnderstood, I stopped. Starting over from the top.\n"
    return assistant(
        ThinkingBlock("The user wants help. Read stats.py and its tests first.", "demo"),
        intro,
        ToolUseBlock(f"demo-1-todo-{n}", "TodoWrite", {"todos": _todos(0)}),
        ToolUseBlock(f"demo-1-read-{n}", "Read", {"file_path": "stats.py"}),
        ToolUseBlock(f"demo-1-readt-{n}", "Read", {"file_path": "test_stats.py"}),
    )


def _fix(note: str, n: int) -> Message:
    """Step 2: name the bug and edit it away."""
    text = (
        f"{note}Found it: `mean` divides by `len(values) - 1`, so `mean([1, 2, 3])` is "
        "3, not 2. The fix is a one-line edit:\n"
    )
    return assistant(
        text,
        ToolUseBlock(f"demo-2-todo-{n}", "TodoWrite", {"todos": _todos(1)}),
        ToolUseBlock(
            f"demo-2-edit-{n}",
            "Edit",
            {"file_path": "stats.py", "old_string": BUGGY, "new_string": FIXED},
        ),
    )


def _run_tests(note: str, n: int, *, edit_failed: bool) -> Message:
    """Step 3: run the tests, whether the edit went through or not."""
    text = note + (
        "The edit did not go through (refused, or the file already had the fix). "
        "Let me run the tests to see where things stand:\n"
        if edit_failed
        else "Fixed. Now the tests:\n"
    )
    return assistant(
        text,
        ToolUseBlock(f"demo-3-todo-{n}", "TodoWrite", {"todos": _todos(2)}),
        ToolUseBlock(
            f"demo-3-bash-{n}",
            "Bash",
            {"command": "python3 test_stats.py", "description": "Run the tests"},
        ),
    )


def _summary(note: str, results: list[ToolResultBlock]) -> str:
    """The last step: whether the tests pass, and what was done."""
    passed = any("passed" in _result_text(r) and not r.is_error for r in results)
    verdict = "The tests pass." if passed else "The tests did not pass (see the output above)."
    return (
        f"{note}{verdict}\n\n## Summary\n\n- **Bug:** `mean` divided by `len(values) - 1`.\n"
        "- **Fix:**\n\n```python\ndef mean(values):\n    return sum(values) / len(values)\n"
        "```\n\nThat was the whole scripted demo. With an API key (`export "
        "ANTHROPIC_API_KEY=...`), eddy does this for real on your code."
    )


class DemoModel:
    """The demo's model: :func:`demo_script`, streamed at a human pace (cancellable).

    Args:
        delay: seconds between streamed chunks.
        latency: seconds before the first chunk (the "time to first token").
    """

    name = "scripted-demo"

    def __init__(self, delay: float = 0.012, latency: float = 0.4, chunk: int = 3) -> None:
        self.delay = delay
        self.latency = latency
        self.chunk = chunk
        self.calls = 0

    async def respond(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        self.calls += 1
        item = demo_script(list(request.messages))
        response = as_response(item, cost=0.0)
        prompt = estimate_tokens([m.to_param() for m in request.messages])
        response.usage = Usage(prompt, response.usage.output_tokens)
        await asyncio.sleep(self.latency)
        for block in response.message.content:
            if isinstance(block, TextBlock):
                for i in range(0, len(block.text), self.chunk):
                    sink.text(block.text[i : i + self.chunk])
                    await asyncio.sleep(self.delay)
            elif isinstance(block, ThinkingBlock):
                sink.thinking(block.thinking)
                await asyncio.sleep(self.latency)
            sink.block_done(block)
        return response
