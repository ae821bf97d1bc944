"""``python -m agentloop.cli``: the ``agentloop`` command."""

import sys

from agentloop.cli._commands import main

sys.exit(main())
