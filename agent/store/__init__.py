"""Transcripts: append-only JSONL files, one per session.

- transcript.py: ``Transcript``, the open file a session appends to; forks.
- format.py: what each record holds and how it is written as a line.
- listing.py: listing a project's sessions fast (``--continue``, ``--resume``, the picker).
- load.py: replaying a transcript into a history, with what a crash left behind repaired.
- repair.py: the history repairs that make a replayed history pass ``check_invariant``.
"""
