"""``agentloop serve CONFIG --sample-id ID``: one row's episode for an agent elsewhere.

It prints three lines, ``NAME=VALUE`` each (a shell can ``eval`` them): the MCP endpoint
(``AGENTLOOP_MCP_URL``), the base URL of the episode's routes (``AGENTLOOP_URL``) and the
bearer token (``AGENTLOOP_TOKEN``). The episode ends when the agent posts ``/score``, a
limit ends it, or the process gets SIGINT or SIGTERM; its result line is then written in a
new run directory, printed as one JSON line, and the command exits: 0 when the result is
not an error, 1 when it is (see ``agentloop.harness.run._served_episode``).
"""

from __future__ import annotations

import argparse
import json
import signal
from typing import Any

from rich.console import Console

__all__ = ["cmd_serve"]


def cmd_serve(args: argparse.Namespace, out: Console) -> int:
    import anyio

    from agentloop.harness.config._loading import load_config
    from agentloop.harness.run._served_episode import serve_episode

    flags = {"output_dir": args.output_dir} if args.output_dir else {}
    config = load_config(args.config, args.sets, flags)

    async def serve() -> dict[str, Any]:
        # Opened first: a signal that comes right after the lines are printed is not lost.
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with serve_episode(
                config, args.sample_id, args.epoch, config_path=args.config
            ) as served:
                server = served.server
                print(f"AGENTLOOP_MCP_URL={server.url}", flush=True)
                print(f"AGENTLOOP_URL={server.base_url}", flush=True)
                print(f"AGENTLOOP_TOKEN={server.token}", flush=True)
                async with anyio.create_task_group() as group:

                    async def close_on_signal() -> None:
                        async for _ in signals:
                            await served.close()
                            return

                    group.start_soon(close_on_signal)
                    done = await served.episode.finished()
                    group.cancel_scope.cancel()
        result: dict[str, Any] = done["result"]
        return result

    result = anyio.run(serve)
    print(json.dumps(result), flush=True)
    return 0 if result.get("status") == "ok" else 1
