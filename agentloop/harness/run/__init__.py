"""Running a config: the runner (``_runner``), where (sample, epoch) pairs run (``_executor``:
a local pool, ``_pool``, or Ray workers, ``_ray``; the model sources they open,
``_sources``), one pair from prepare to scored result (``_sample``), stateful environments
(``_environment``), simulated users (``_user``), the configured tools and MCP servers
(``_tools``, ``_mcp``), scoring (``_scoring``) with judges (``_judges``), progress
reporting (``_reporting``) and re-scoring a finished run (``_rescore``).

The top layer of the harness: it may use every other part.
"""
