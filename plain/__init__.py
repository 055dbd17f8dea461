"""``eddy --plain``: a line-oriented front end over the engine, built on prompt-toolkit.

For screen readers, minimal terminals and people who want their scrollback: output is printed
as plain lines above an always-active prompt; nothing redraws the screen.
"""
