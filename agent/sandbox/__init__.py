"""The OS sandbox under Bash: bubblewrap on Linux, Seatbelt on macOS.

:class:`Sandbox` decides per call (from the gate's grant) whether a command runs inside and
under which profile; :mod:`.detect` probes once whether a sandbox works here; :mod:`.config`
reads the ``sandbox`` settings; :mod:`.bwrap` and :mod:`.seatbelt` build the command lines;
:mod:`.watch` keeps the places that configure eddy that do not exist yet; :mod:`.masks` finds
what Read deny rules name, to mask it.
"""
