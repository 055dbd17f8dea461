"""What the front ends show of the tools the API runs itself (frontend/server_blocks.py)."""

from __future__ import annotations

from frontend.server_blocks import server_tool_lines


def test_another_server_tool_says_it_ran_and_calls_keep_the_order_of_the_message() -> None:
    content = [
        {"type": "server_tool_use", "id": "s1", "name": "code_execution", "input": {}},
        {"type": "server_tool_use", "id": "s2", "name": "web_search", "input": {"query": "a  b"}},
        {"type": "code_execution_tool_result", "tool_use_id": "s1", "content": {}},
        {"type": "web_search_tool_result", "tool_use_id": "s2", "content": []},
        {"type": "tool_result", "tool_use_id": "c1", "content": "a client tool's: not shown"},
        {"type": "bash_code_execution_tool_result", "tool_use_id": "s9", "content": {}},
        "not a block",
    ]
    assert server_tool_lines(content) == [
        ("Server tool code_execution ran", []),
        ('Web search "a b": 0 results', []),
        ("Server tool bash_code_execution ran", []),  # its call was in an earlier message
    ]
