"""Work done once, idle after start-up, that the first answer would otherwise pay for.

- The SDK client (``import anthropic``, a TLS context): in a thread (agent.model.anthropic).
- The common pygments lexers, whose regular expressions compile on first use (2-20 ms each).
- The default CSS of the widgets a turn mounts. Textual adds a widget class's CSS to the
  stylesheet when its first instance is mounted, and the next style lookup then re-parses
  and re-maps every rule: that lands on the first prompt and the first answer otherwise.
"""

from __future__ import annotations

from typing import Any

from frontend.languages import COMMON_LANGUAGES as HIGHLIGHTED


def warm_up_highlighting() -> None:
    """Make and compile the common pygments lexers (their regular expressions are compiled
    on first use) so the first code block or diff of an answer does not stall the screen."""
    from tui.widgets.conversation.code_highlight import highlight_code

    for language in HIGHLIGHTED:
        highlight_code("x = 1\n", language)


def turn_widget_classes() -> list[type]:
    """The widget classes a turn mounts: prompts, notices, answers, thinking, tool calls
    and their output, permission questions."""
    from textual.widgets import Input

    from tui.widgets.conversation.assistant_text import AssistantText
    from tui.widgets.conversation.diff_view import DiffView
    from tui.widgets.conversation.frozen_markdown import FrozenMarkdown
    from tui.widgets.conversation.message_line import MessageLine
    from tui.widgets.conversation.permission_prompt import PermissionPrompt
    from tui.widgets.conversation.thinking import Thinking
    from tui.widgets.conversation.tool_call import ToolCallBlock
    from tui.widgets.conversation.user_prompt import UserPrompt

    return [
        UserPrompt,
        MessageLine,
        AssistantText,
        FrozenMarkdown,
        Thinking,
        ToolCallBlock,
        DiffView,
        PermissionPrompt,
        Input,
    ]


def register_turn_css(app: Any) -> None:
    """Add the default CSS of ``turn_widget_classes`` to ``app``'s stylesheet now and map
    the rules once, as mounting a first instance of each would (Textual's own
    ``_get_default_css``, on an instance not initialised). Only a head start: if this
    Textual differs, mounting does it as before."""
    from textual.widget import Widget

    sheet = app.stylesheet
    try:
        for cls in turn_widget_classes():
            for read_from, css, tie_breaker, scope in Widget._get_default_css(object.__new__(cls)):
                sheet.add_source(
                    css,
                    read_from=read_from,
                    is_default_css=True,
                    tie_breaker=tie_breaker,
                    scope=scope,
                )
        sheet.rules_map  # noqa: B018 (parses the new sources and maps the rules now)
    except Exception:
        pass
