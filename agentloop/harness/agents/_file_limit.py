"""This process's limit on open files, raised for many agents in other processes at once.

Each external agent's episode holds a listening socket, its clients' connections and the
command's three pipes: about four descriptors at rest, more while requests are in flight
(over 400 at the peak of 100 concurrent agents, ``bench/concurrent_agents.py``). A common soft
limit (1024 on Linux, 256 on macOS) is then reached at a concurrency of a few dozen to a
few hundred, and an episode past it fails on ``EMFILE``. The hard limit is what the system
allows a user: the soft one is raised to it, once, as servers do at start-up; a lower hard
limit, or a platform without ``resource`` (Windows), is left as it is.
"""

from __future__ import annotations

import functools

__all__ = ["raise_file_limit"]

_ENOUGH = 65536
"""No higher: a few hundred agents need a few thousand descriptors."""


@functools.cache
def raise_file_limit() -> int | None:
    """The soft limit on open files after raising it toward the hard limit (None where
    the platform has no such limit)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = _ENOUGH if hard == resource.RLIM_INFINITY else min(hard, _ENOUGH)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (OSError, ValueError):  # macOS refuses above OPEN_MAX: keep what there is
            return soft
        return wanted
    return soft
