"""A run's config: the ``EvalConfig`` model and its fields (``_fields``), reading a file and
its ``--set``/``--unset`` overrides (``_loading``, YAML without duplicate keys ``_yaml``), the
tool and environment specs (``_tool_specs``), ``@file`` prompts (``_prompt_files``), the
rewards it names (``_rewards``), model prices (``_pricing``) and the input files that decide
a run's results (``_inputs``).

The lowest layer of the harness: it uses the engine, models, benchmarks and evals, never
another part of the harness.
"""
