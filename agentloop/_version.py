"""agentloop's version, in a module of its own: what records it (a run's header) need not
import the package's public API.
"""

__version__ = "0.1.0"
