"""No control sequence from outside reaches the terminal (issue 25's terminal injection).

A Bash result that clears the screen and retitles the window, progress output that moves the
cursor, an escape inside the model's text, thinking, a file name or an error: what the screen
paints holds no ESC, no C1 control and no other control character, the SGR colours of command
output become styles, and the header, prompt and status line are still there.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult

from agent import events as ev
from agent.messages import assistant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, rendered, settle, type_and_send, wait_ready
from tools.bash import BashTool
from tui.widgets.conversation.conversation import Conversation

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
WIPE = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;PWNED\x07"
CLIPBOARD = "\x1b]52;c;ZXZpbA==\x1b\\"


def painted(app: Any) -> list[list[tuple[str, Any]]]:
    """What the screen paints, line by line: (text, style) of every segment."""
    strips = app.screen._compositor.render_strips()
    return [[(seg.text, seg.style) for seg in strip] for strip in strips]


def painted_text(app: Any) -> str:
    return "\n".join("".join(text for text, _ in line) for line in painted(app))


class ConversationApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")


EVENTS: list[ev.Event] = [
    ev.TurnStarted(1, f"look at {TITLE}this"),
    ev.ModelCallStarted(1, 1, 0),
    ev.ThinkingDelta(1, f"thinking{WIPE} hard"),
    ev.TextDelta(1, f"Here{WIPE} is"),
    ev.TextDelta(1, f" the {TITLE}answer\x1b[3A\x9b2J."),
    ev.AssistantMessage(1, {"role": "assistant", "content": []}, "tool_use"),
    ev.ToolCallStarted(1, "t1", "Read", {"file_path": "x"}, f"evil{TITLE}name.txt"),
    ev.ToolCallStarted(1, "t2", "Bash", {"command": "build"}, "build"),
    ev.ToolCallFinished(1, "t1", "Read", "failed", f"no such file {CLIPBOARD}", True),
    ev.ToolCallRunning(1, "t2"),
    ev.ToolOutputDelta(1, "t2", "step 1\n\x1b[3A\x1b[2K 50%\r 99%\r"),
    ev.ToolCallFinished(
        1, "t2", "Bash", "done", f"{WIPE}{TITLE}\x1b[31mred\x1b[0m and plain\x07\x08", False
    ),
    ev.Notice(1, f"note {TITLE}"),
    ev.Error(1, f"boom {WIPE}", "api"),
    ev.TurnFinished(1, "success", 1, 2, 0.1, 0.1, 1000),
]


async def test_injected_events_paint_no_control_sequence_and_keep_colours():
    app = ConversationApp()
    async with app.run_test(size=(100, 60)) as pilot:
        conversation = app.query_one(Conversation)
        for event in EVENTS:
            conversation.apply(event)
            await pilot.pause()
        conversation.query_one("ToolCallBlock").expanded = True
        await rendered(app, pilot)
        text = painted_text(app)
        assert not CONTROL.search(text), repr(CONTROL.findall(text))
        for seen in ("look at this", "Here is the answer", "evilname.txt", "no such file"):
            assert seen in text
        assert "red and plain" in text and "PWNED" not in text
        red = [s for line in painted(app) for t, s in line if t == "red"]
        assert red and red[0].color is not None  # the SGR colour became a style
        rgb = red[0].color.get_truecolor()
        assert rgb.red > 150 and rgb.green < 100


async def test_a_bash_result_that_clears_the_screen_and_retitles_it_wipes_nothing(
    workspace: Path,
):
    command = r"printf '\033[2J\033[Hwiped\033]0;TITLE\007 \033[31mred\033[0m\n'"
    model = ScriptedModel(
        [assistant("Running.", tool_call("c1", "Bash", command=command)), f"Done{TITLE}."]
    )
    app, events = make_app(workspace, model, [BashTool()], "--permission-mode", "bypassPermissions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "run it")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        text = painted_text(app)
        assert not CONTROL.search(text), repr(CONTROL.findall(text))
        assert "wiped red" in text and "Done." in text
        assert (
            "›" in text and "bypassPermissions" in text
        )  # the prompt and the status line are there
