"""One writer per run directory: an exclusive ``flock`` on ``<run dir>/writer.lock``.

The kernel drops the lock when the process holding it ends, however it ends (SIGKILL
included), so a lock file left behind never blocks a resume: it only tells a refused
writer which pid holds the lock. (No lock where ``fcntl`` does not exist, i.e. Windows.)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agentloop.errors import AgentloopError

__all__ = ["LOCK_FILE", "RunLock", "RunLockedError"]

LOCK_FILE = "writer.lock"


class RunLockedError(AgentloopError):
    """Another process (or another open of this process) is writing the run directory."""


def _who(path: Path) -> str:
    """Who holds the lock, as far as the pid in the file tells."""
    try:
        pid = path.read_text(encoding="utf-8").strip()
    except OSError:
        pid = ""
    if pid == str(os.getpid()):
        return f"this process (pid {pid}) is already writing it"
    if pid.isdigit():
        return f"another agentloop process (pid {pid}) is writing it"
    return "another process is writing it"


class RunLock:
    """The held lock of one run directory; ``release`` (or process exit) gives it up.

    flock locks belong to an open file, so a second open in this same process is
    refused too.
    """

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.path = run_dir / LOCK_FILE
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if sys.platform != "win32":
            import fcntl

            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(self._fd)
                self._fd = None
                raise RunLockedError(f"cannot write to {run_dir}: {_who(self.path)}") from None
        os.ftruncate(self._fd, 0)
        os.write(self._fd, f"{os.getpid()}\n".encode())

    def release(self) -> None:
        """Give the lock up (the file stays; it only names the last holder)."""
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor drops the flock
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None
