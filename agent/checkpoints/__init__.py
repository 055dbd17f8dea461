"""Checkpoints: the state of every file before a prompt changed it, and rewind.

- engine.py: ``CheckpointStore``, begin / record / rewind / redo, pruning.
- recorder.py: what the tools and shell commands call before and after a change.
- tracker.py: the snapshot kept up to date (first taken in the background), what changed.
- snapshot.py, scan.py, scope.py: what the engine sees of a workspace and how it walks it.
- watch.py: which directories something happened in (inotify), so only those are looked at.
- gitbase.py: what git's index and object store already hold, so it is not copied.
- blobs.py, files.py: contents by SHA-256 and the store's JSON files.
- records.py: entries, summaries, plans, results.
- restore.py: planning and carrying out a restore of files.
- rewind_list.py: the checkpoints as a front end lists them (``CheckpointEntry``).
"""
