"""Runs in and out of other tools' formats: a finished run as an Inspect eval log
(``_inspect_export``), an Inspect log's samples as a scored run (``_inspect_import``), and
OpenTelemetry traces of an agent run elsewhere, scored here (``_trace_import``).

The top layer of the harness: it uses ``run`` (to prepare, run and score samples),
``stats``, ``rundir``, ``data`` and ``config``.
"""
