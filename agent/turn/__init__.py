"""One turn of the agent loop (docs/loop.md, docs/loop.md) and what it is made of.

- loop.py: ``Turn``, the loop step by step; outcome.py: its limits, outcome and unusual exits;
  race.py: Esc against whatever the turn awaits; sink.py: the stream of one model call.
- runner.py: a response's tool calls (validate, gate, run, results in tool_use order);
  toolset.py: the tools a call finds and a request offers.
- normalise.py: the one way an assistant message enters the history.
- compact.py: summarising the old part of a history (the session decides when).
"""
