"""Running a config: the runner (``_runner``), where (sample, epoch) pairs run (``_executor``:
a local pool, ``_pool``, or Ray workers, ``_ray``; the model sources they open,
``_sources``), one pair from prepare to scored result (``_sample``), the samples a sample
waits for (``_dependencies``), stateful environments (``_environment``), simulated users
(``_user``), the configured tools and MCP servers (``_tools``, ``_mcp``), scoring
(``_scoring``) with judges (``_judges``), progress reporting (``_reporting``), spans sent as
results are written (``_otel_live``), one pair served to an agent that runs its own loop
elsewhere (``_served_episode``, ``agentloop serve``) and re-scoring a finished run
(``_rescore``).

Uses ``agents`` (one sample's agent of your own, and the tool server), ``stats``,
``rundir``, ``data`` and ``config``, within the harness; ``exchange`` uses it.
"""
