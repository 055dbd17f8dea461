"""The model of bash the permission layer uses: commands parsed, never matched as strings.

- lexer.py, parser.py: words, quoting, expansions, lists and pipelines -> parsed commands.
- words.py: the vocabulary they share.
- wrappers.py: commands seen through (env, timeout, xargs, ...).
- readonly.py: which commands only read; variables.py: which assignments are safe.
"""
