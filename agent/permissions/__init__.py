"""Pure permission policy: mode and rules -> allow / ask / deny (no I/O, no UI).

- policy.py: ``Policy``, ``Rule``, modes and the decision for one call.
- protected.py: shell commands that write to or name a protected place (they always ask).
- bash.py: the check of one Bash command line, part by part.
- paths.py: path rules (gitignore-style) and protected files.
- program_rule.py: the rule "yes, don't ask again" saves for a command.
"""

from typing import TYPE_CHECKING

from agent.lazy import exports

if TYPE_CHECKING:
    from agent.permissions.policy import Policy, Rule, cycle_mode

__all__ = ["Policy", "Rule", "cycle_mode"]

__getattr__ = exports(
    __name__,
    {
        "Policy": "agent.permissions.policy",
        "Rule": "agent.permissions.policy",
        "cycle_mode": "agent.permissions.policy",
    },
)
