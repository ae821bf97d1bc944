"""A run's data: dataset files (``_dataset``), a row and the ``Sample`` it becomes
(``_rows``), the messages a sample sends (``_prompt``), which rows run and in which order
(``_selection``), and the checks before the first sample of what the rows bind and
expect (``_row_tools``) and of their fields (``_row_fields``).

Uses ``config`` only, within the harness.
"""
