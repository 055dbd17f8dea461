"""SubagentStop hooks (agent/hooks) run when a child has answered: a block's reason is the
child's next prompt (one more model call of the child, not the parent's), and the hook is told
which agent stopped."""

from __future__ import annotations

import json
from pathlib import Path

from agent import ops
from agent.hooks.config import load_hooks
from agent.messages import ToolResultBlock, assistant, check_invariant
from agent.open import add_hooks
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.subagents.attach import attach_subagents
from agent.subagents.definitions import load_agents
from tests.agent.hooks.scripts import on, script
from tests.fakes.scripted import tool_call
from tests.helpers.events import Events
from tests.helpers.subagents import TreeModel

BLOCK_ONCE = """
seen="$(dirname "$0")/seen.json"
if [ -e "$seen" ]; then exit 0; fi
cat > "$seen"
echo '{"decision": "block", "reason": "also check b.py"}'
"""


async def test_a_subagent_stop_block_sends_the_child_on_with_the_reason(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    hooks = on("SubagentStop", "", script(tmp_path, "block_once.sh", BLOCK_ONCE))
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5")
    config.policy.mode = "bypassPermissions"
    config.hooks = load_hooks([("test settings", {"hooks": hooks})], [])
    call = tool_call("p1", "Agent", description="look", prompt="find it", subagent_type="Explore")
    model = TreeModel(
        {
            "go": [assistant(call), "parent done"],
            "find it": ["a.py has it", "a.py and b.py have it"],
        }
    )
    events = Events()
    from tools import default_tools

    session = Session(config, model, default_tools(), events)
    add_hooks(session)
    attach_subagents(session, load_agents(ws, home=tmp_path / "home"))
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()

    child = model.by_prompt["find it"]
    assert len(child) == 2  # the block sent the child on once; the second stop was let go
    assert "also check b.py" in json.dumps(child[1].messages[-1].to_param())
    for request in [*child, *model.by_prompt["go"]]:
        check_invariant(list(request.messages))
    (result,) = [b for m in session.history for b in m.content if isinstance(b, ToolResultBlock)]
    assert str(result.content).startswith("a.py and b.py have it")
    told = json.loads((tmp_path / "seen.json").read_text())
    assert told["hook_event_name"] == "SubagentStop" and told["agent_type"] == "Explore"
    assert told["stop_hook_active"] is False


DENY_ECHO = """
input="$(cat)"
case "$input" in
  *'"echo secret'*) echo "no secrets from agents" >&2; exit 2 ;;
esac
exit 0
"""


async def test_a_pre_tool_use_hook_judges_a_subagents_calls_too(tmp_path: Path) -> None:
    """A team's PreToolUse guard holds for a subagent's Bash call as for the main agent's:
    the child's call is refused (an is_error result in its history), nothing runs."""
    ws = tmp_path / "ws"
    ws.mkdir()
    marker = ws / "ran"
    hooks = on("PreToolUse", "Bash", script(tmp_path, "guard.sh", DENY_ECHO))
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5")
    config.policy.mode = "bypassPermissions"
    config.hooks = load_hooks([("test settings", {"hooks": hooks})], [])
    call = tool_call(
        "p1", "Agent", description="look", prompt="find it", subagent_type="general-purpose"
    )
    bash = tool_call("c1", "Bash", command=f"echo secret > {marker}")
    model = TreeModel(
        {"go": [assistant(call), "parent done"], "find it": [assistant(bash), "refused"]}
    )
    events = Events()
    from tools import default_tools

    session = Session(config, model, default_tools(), events)
    add_hooks(session)
    attach_subagents(session, load_agents(ws, home=tmp_path / "home"))
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()

    assert not marker.exists()
    child = model.by_prompt["find it"]
    last = json.dumps(child[1].messages[-1].to_param())
    assert "A PreToolUse hook refused this Bash call: no secrets from agents" in last
