"""Pure permission policy: mode and rules -> allow / ask / deny (no I/O, no UI).

- policy.py: ``Policy``, modes and the decision for one call.
- rule.py: ``Rule`` (``Tool`` or ``Tool(specifier)``) and what a rule names.
- places.py: the one list of places that configure or extend eddy (writes there always ask).
- protected.py: shell commands that write to or name a protected place (they always ask).
- bash.py: the check of one Bash command line, part by part.
- bash_paths.py: the checks of the paths one part names (reads, redirections, cd, file commands).
- paths.py: path rules (gitignore-style) and the rule saved for a path.
- program_rule.py: the rule "yes, don't ask again" saves for a command.
- wildcard.py: Claude Code's wildcard Bash rules (``Bash(git * main)``).
- why.py: ``/permissions why``, the decision for one imagined call and the rule behind it.
"""
