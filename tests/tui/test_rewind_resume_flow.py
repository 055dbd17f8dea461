"""Rewind and sessions in the app: Esc Esc / /rewind, the resume picker, /resume, /clear, /rename.

These run the real engine set-up
(frontend.session_open: default tools, transcripts and checkpoints in
the test's data dir) over a ScriptedModel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent import events as ev
from agent import ops
from agent.messages import TextBlock, assistant, check_invariant
from agent.model.pricing import DEFAULT_MODEL
from agent.store.listing import list_sessions
from frontend import session_open as factory
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, Events, make_args, settle, type_and_send, wait_ready
from tui.app import EddyApp
from tui.screens.resume import ResumeScreen
from tui.screens.rewind import RewindScreen
from tui.widgets.conversation.message_line import MessageLine
from tui.widgets.conversation.user_prompt import UserPrompt

APP_PY = "def total(xs):\n    return sum(xs) - 1\n"
FIXED = "def total(xs):\n    return sum(xs)\n"


def real_app(workspace: Path, model: Any, *extra: str) -> tuple[EddyApp, Events]:
    """The app as ``eddy`` builds it (saved sessions, checkpoints, default tools)."""
    events = Events()
    app = EddyApp(make_args(workspace, *extra), model=model, frozen_clock=True, event_hook=events)
    return app, events


def texts(app: EddyApp, kind: str | None = None) -> list[str]:
    return [line.text for line in app.query(MessageLine) if kind is None or line.kind == kind]


def user_prompts(app: EddyApp) -> list[str]:
    return [p.text for p in app.main.conversation.query(UserPrompt)]


def all_text(messages: list[Any]) -> str:
    return "\n".join(b.text for m in messages for b in m.content if isinstance(b, TextBlock))


async def wait_screen(pilot: Any, cls: type) -> Any:
    for _ in range(200):
        if isinstance(pilot.app.screen, cls):
            return pilot.app.screen
        await pilot.pause()
    raise AssertionError(f"{cls.__name__} never showed (screen: {pilot.app.screen!r})")


async def wait_main(pilot: Any) -> None:
    for _ in range(200):
        if pilot.app.screen is pilot.app.main:
            return
        await pilot.pause()
    raise AssertionError("the main screen never came back")


async def test_esc_esc_restores_code_and_conversation(workspace: Path) -> None:
    (workspace / "app.py").write_text(APP_PY)
    edit = {"file_path": "app.py", "old_string": "sum(xs) - 1", "new_string": "sum(xs)"}
    model = ScriptedModel(
        [
            "Hello! What shall we fix?",
            assistant("Reading it.", tool_call("r1", "Read", file_path="app.py")),
            assistant("Fixing.", tool_call("e1", "Edit", **edit)),
            "Fixed the off-by-one.",
            "Something else, then.",
        ]
    )
    app, events = real_app(workspace, model, "--permission-mode", "acceptEdits")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished, 1)
        await type_and_send(pilot, "fix the off-by-one in app.py")
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
        assert (workspace / "app.py").read_text() == FIXED
        app.main.status.context_tokens = -1  # whatever the calls said: the rewind must set it

        await pilot.press("escape", "escape")
        rewind = await wait_screen(pilot, RewindScreen)
        assert [e.prompt for e in rewind.entries] == ["hello", "fix the off-by-one in app.py"]
        await pilot.press("enter")  # the newest prompt is highlighted
        assert rewind.step == "mode"
        await pilot.press("1")  # restore code and conversation
        await wait_main(pilot)
        finished = await events.wait_for(ev.RewindFinished)
        await app.workers.wait_for_complete()
        await pilot.pause()

        assert finished.mode == "both" and finished.restored == ("app.py",)
        assert (workspace / "app.py").read_text() == APP_PY
        assert app.main.prompt.text == "fix the off-by-one in app.py"
        assert not app.main.completion.shown
        assert app.focused is app.main.prompt
        # the view is the rewound conversation, marked as such
        assert user_prompts(app) == ["hello"]
        assert any("rewound to before: fix the off-by-one" in t for t in texts(app))
        assert any(t.startswith("Rewound: 1 file restored") for t in texts(app, "notice"))
        # the status line shows the context of what was kept, not of the rewound-away turn
        assert app.main.status.context_tokens == app.session.context_tokens > 0

        app.main.prompt.load_text("")
        await type_and_send(pilot, "do something else")
        await events.wait_for(ev.TurnFinished, 3)
    sent = model.requests[-1].messages
    check_invariant(sent)
    assert [m.role for m in sent] == ["user", "assistant", "user"]
    assert sent[0].content[0] == TextBlock("hello")
    assert sent[-1].content[-1] == TextBlock("do something else")
    assert "off-by-one" not in all_text(sent)


async def test_rewind_command_and_never_mind(workspace: Path) -> None:
    model = ScriptedModel(["One."])
    app, events = real_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/rewind")
        await pilot.pause()
        assert any("No prompts yet" in t for t in texts(app))
        await type_and_send(pilot, "first")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        await type_and_send(pilot, "/rewind")
        await wait_screen(pilot, RewindScreen)
        await pilot.press("enter", "4")  # never mind
        await wait_main(pilot)
        assert not events.of(ev.RewindFinished)
        assert app.focused is app.main.prompt
        assert len(app.session.history) == 2


async def saved_session(workspace: Path, prompt: str, answer: str) -> str:
    """Run one prompt in a saved session (as ``eddy -p`` would) and return its id."""
    args = make_args(workspace)
    args = args.replace(model=DEFAULT_MODEL)
    opened = factory.build_session(
        args, lambda e: None, headless=False, model=ScriptedModel([answer])
    )
    session = opened.session
    session.submit(ops.SubmitPrompt(prompt))
    await session.wait_idle()
    await session.close()
    assert session.transcript is not None
    session.transcript.close()
    return session.config.session_id


async def test_resume_without_id_shows_the_picker_and_restores_the_choice(
    workspace: Path,
) -> None:
    first = await saved_session(workspace, "alpha: add the login form", "Added it.")
    second = await saved_session(workspace, "beta: explain the cache", "It caches.")
    model = ScriptedModel(["Continuing alpha."])
    app, events = real_app(workspace, model, "--resume")
    async with app.run_test(size=SIZE) as pilot:
        picker = await wait_screen(pilot, ResumeScreen)
        assert app.session is None  # nothing is built before the pick
        assert [s.session_id for s in picker.sessions] == [second, first]
        await pilot.press(*"alpha")
        await pilot.press("enter")
        await wait_main(pilot)
        await wait_ready(app, pilot)
        assert app.session.config.session_id == first
        assert user_prompts(app) == ["alpha: add the login form"]
        assert any("Resumed a session of 2 messages" in t for t in texts(app))
        await type_and_send(pilot, "and the logout button")
        await events.wait_for(ev.TurnFinished)
    sent = model.requests[-1].messages
    check_invariant(sent)
    assert sent[0].content[0] == TextBlock("alpha: add the login form")
    assert sent[-1].content[-1] == TextBlock("and the logout button")
    assert "beta" not in all_text(sent)


async def test_resume_picker_cancelled_starts_a_new_session(workspace: Path) -> None:
    old = await saved_session(workspace, "an old prompt", "Old answer.")
    app, _ = real_app(workspace, ScriptedModel([]), "--resume")
    async with app.run_test(size=SIZE) as pilot:
        await wait_screen(pilot, ResumeScreen)
        await pilot.press("escape")
        await wait_ready(app, pilot)
        assert app.session.config.session_id != old
        assert app.session.history == []
        assert app.focused is app.main.prompt


async def test_resume_without_sessions_starts_a_new_one(workspace: Path) -> None:
    app, _ = real_app(workspace, ScriptedModel([]), "--resume")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        assert app.screen is app.main
        assert any("No earlier session" in t for t in texts(app))


async def test_clear_resume_and_rename(workspace: Path) -> None:
    model = ScriptedModel(["First answer.", "Second answer.", "Back in the first."])
    app, events = real_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "the first session's prompt")
        await events.wait_for(ev.TurnFinished, 1)
        await settle(app, pilot)
        await type_and_send(pilot, "/rename Login work")
        await pilot.pause()
        assert any("renamed to “Login work”" in t for t in texts(app))
        first = app.session.config.session_id

        await type_and_send(pilot, "/clear")
        await app.workers.wait_for_complete()
        await wait_ready(app, pilot)
        assert app.session.config.session_id != first
        assert app.session.history == []
        assert user_prompts(app) == []
        assert any("New session" in t and first in t for t in texts(app))
        assert app.main.status.cost == 0 and app.main.status.turns == 0

        await type_and_send(pilot, "the second session's prompt")
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
        second = app.session.config.session_id

        await type_and_send(pilot, "/resume")
        picker = await wait_screen(pilot, ResumeScreen)
        # the current session is not offered; the renamed one shows its title
        assert [s.session_id for s in picker.sessions] == [first]
        assert picker.sessions[0].title == "Login work"
        await pilot.press("enter")
        await wait_main(pilot)
        await app.workers.wait_for_complete()
        await wait_ready(app, pilot)
        assert app.session.config.session_id == first
        assert user_prompts(app) == ["the first session's prompt"]
        await type_and_send(pilot, "go on")
        await events.wait_for(ev.TurnFinished, 3)
    sent = model.requests[-1].messages
    check_invariant(sent)
    assert sent[0].content[0] == TextBlock("the first session's prompt")
    assert "second session" not in all_text(sent)
    ids = {s.session_id for s in list_sessions(workspace)}
    assert {first, second} <= ids


async def test_a_rewind_can_be_undone_from_the_same_list(workspace: Path) -> None:
    model = ScriptedModel(
        [
            assistant("Creating it.", tool_call("w1", "Write", file_path="new.txt", content="x\n")),
            "Made.",
        ]
    )
    app, events = real_app(workspace, model, "--permission-mode", "acceptEdits")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "make new.txt")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert (workspace / "new.txt").exists()
        await type_and_send(pilot, "/rewind")
        listed = await wait_screen(pilot, RewindScreen)
        assert [e.summary for e in listed.entries] == ["new.txt created +1"]  # by its name
        await pilot.press("enter", "1")
        await events.wait_for(ev.RewindFinished)
        await wait_main(pilot)
        await app.workers.wait_for_complete()
        assert not (workspace / "new.txt").exists()  # the session created it: deleted
        assert app.session.history == [] and user_prompts(app) == []
        assert app.main.prompt.text == "make new.txt"

        app.main.prompt.load_text("")
        await pilot.pause()
        await pilot.press("escape", "escape")
        rewind = await wait_screen(pilot, RewindScreen)
        assert [e.redo for e in rewind.entries] == [True]
        await pilot.press("enter")  # the redo entry: undo the rewind
        await events.wait_for(ev.RewindFinished, 2)
        await wait_main(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert (workspace / "new.txt").read_text() == "x\n"
        assert user_prompts(app) == ["make new.txt"]
        shown = texts(app)
        undone = next(i for i, t in enumerate(shown) if "rewind undone" in t)
        assert shown[undone + 1] == "Rewind undone: 1 file put back, the conversation is back."
        assert not any(t.startswith("Rewound") for t in shown[undone:])  # not "Rewound: ..."
        assert app.main.prompt.text == ""
        check_invariant(app.session.history, at_rest=True)


async def test_resume_with_an_unknown_id_keeps_the_session(workspace: Path) -> None:
    app, _ = real_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        current = app.session
        await type_and_send(pilot, "/resume nope-123")
        await pilot.pause()
        assert any("No session 'nope-123'" in t for t in texts(app, "error"))
        assert app.session is current
