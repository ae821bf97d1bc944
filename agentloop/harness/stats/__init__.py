"""The figures of a run: its summary (``_summary``: means, pass rates, pass@k, latency,
cost, with ``_estimators``), error bars (``_error_bars``), breakdowns by metadata
(``_breakdown``), reliability across epochs (``_reliability``), errors by who caused them
(``_causes``), benchmarks' own figures (``_benchmarks``), the summary file written
(``_summary_file``), comparisons of runs (``_compare``, over comparable task sets:
``_task_sets``; the accuracy-cost Pareto front: ``_pareto``) and the sample size a
comparison needs (``_power``).

Uses ``rundir`` (to read finished runs), ``data`` and ``config``, within the harness.
"""
