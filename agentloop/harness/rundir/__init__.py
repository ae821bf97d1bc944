"""A run directory's life: its files, written so a kill loses nothing (``_files``), its
writer lock (``_lock``), and its header ``run.json``: written, read, and compared by a
resume (``_header``).

Uses ``data`` and ``config``, within the harness.
"""
