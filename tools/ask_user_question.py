"""AskUserQuestion: multiple-choice questions for the user, answered in a dialog.

The session asks (``ctx.dialogs``, :mod:`agent.session.dialogs`): the TUI shows a dialog, line
mode numbered choices; every question also offers "Other" with free text. Headless, nobody can
answer: the call fails with a result that tells the model to decide itself.
"""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult

HEADLESS = (
    "AskUserQuestion was not run: eddy runs headless (-p), so nobody can answer questions. "
    "Make the decision yourself with your best judgment, say which choice you made and why, "
    "and continue."
)
OTHER = "Other"
"""The choice every question offers besides the model's options: free text."""


def answer_text(questions: list[dict[str, Any]], answers: dict[str, str]) -> str:
    """The result the model reads (Claude Code's wording), questions in their order."""
    pairs = ", ".join(
        f'"{q["question"]}"="{answers[q["question"]]}"'
        for q in questions
        if q["question"] in answers
    )
    return (
        f"User has answered your questions: {pairs}. You can now continue with the user's "
        "answers in mind."
    )


def check_questions(questions: list[dict[str, Any]]) -> None:
    """What the schema cannot say: distinct, non-blank questions and labels.

    Raises:
        ToolError: naming the first problem.
    """
    seen: set[str] = set()
    for i, q in enumerate(questions):
        text = str(q["question"]).strip()
        if not text:
            raise ToolError(f"questions[{i}].question must not be blank")
        if text in seen:
            raise ToolError(f"questions[{i}].question repeats an earlier question: {text!r}")
        seen.add(text)
        labels = [str(o["label"]).strip() for o in q["options"]]
        if any(not label for label in labels):
            raise ToolError(f"questions[{i}] has an option with a blank label")
        if len(set(labels)) != len(labels):
            raise ToolError(f"questions[{i}] has two options with the same label")
        if OTHER in labels:
            raise ToolError(
                f'questions[{i}]: do not offer "{OTHER}"; every question offers it already'
            )


_OPTION = {
    "type": "object",
    "properties": {
        "label": {
            "type": "string",
            "description": "The display text for this option that the user will see and "
            "select. Should be concise (1-5 words) and clearly describe the choice.",
        },
        "description": {
            "type": "string",
            "description": "Explanation of what this option means or what will happen if "
            "chosen. Useful for providing context about trade-offs or implications.",
        },
    },
    "required": ["label", "description"],
    "additionalProperties": False,
}
_QUESTION = {
    "type": "object",
    "properties": {
        "question": {
            "type": "string",
            "description": "The complete question to ask the user. Should be clear, specific, "
            "and end with a question mark.",
        },
        "header": {
            "type": "string",
            "description": "Very short label displayed as a chip/tag (max 12 chars). "
            'Examples: "Auth method", "Library", "Approach".',
        },
        "options": {
            "type": "array",
            "minItems": 2,
            "maxItems": 4,
            "items": _OPTION,
            "description": "The available choices for this question. Must have 2-4 options. "
            'There should be no "Other" option, that will be provided automatically.',
        },
        "multiSelect": {
            "type": "boolean",
            "description": "Set to true to allow the user to select multiple options instead "
            "of just one.",
        },
    },
    "required": ["question", "header", "options", "multiSelect"],
    "additionalProperties": False,
}


class AskUserQuestionTool:
    """The AskUserQuestion tool (Claude Code's name and input fields)."""

    name = "AskUserQuestion"
    description = (
        "Use this tool when you need to ask the user questions during execution: to gather "
        "preferences or requirements, clarify ambiguous instructions, or let them choose "
        "between approaches.\n"
        "Usage notes:\n"
        '- Users will always be able to select "Other" to provide custom text input.\n'
        "- Use multiSelect: true to allow multiple answers to be selected for a question.\n"
        '- If you recommend an option, make it the first one and add "(Recommended)" at the '
        "end of its label.\n"
        "- In plan mode, use it to clarify requirements before finalizing the plan, not to "
        "ask whether the plan is ready (ExitPlanMode does that)."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": 4,
                "items": _QUESTION,
                "description": "Questions to ask the user (1-4 questions)",
            }
        },
        "required": ["questions"],
        "additionalProperties": False,
    }
    read_only = False  # one dialog at a time: never run beside another call

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """None: it asks, it touches nothing."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The headers of the questions."""
        questions = args.get("questions") or []
        return ", ".join(str(q.get("header", "")) for q in questions if isinstance(q, dict))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Ask the user and return their answers; see the description."""
        questions = list(args["questions"])
        check_questions(questions)
        if ctx.dialogs is None:
            raise ToolError(HEADLESS)
        answers = await ctx.dialogs.ask_questions(ctx.call_id, questions)
        if not answers:
            raise ToolError("The user closed the questions without answering any.")
        return ToolResult(answer_text(questions, answers))


TOOL = AskUserQuestionTool()
