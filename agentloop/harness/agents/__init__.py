"""Agents of your own and what they are served: the config's ``agent:`` (``_own``: a
factory in process, or an agent in another process, a command, ``_command``, or an HTTP
service, ``_http``), what every agent outside agentloop's process gets per call
(``_external``): the row's tools over MCP (``_tool_server``, with this process's open-file
limit raised, ``_file_limit``) and the run's model behind an endpoint (chat completions,
``_model_endpoint``; OpenAI's Responses API, ``_responses_api``; Anthropic's messages,
``_anthropic_messages``).

Uses ``config`` only, within the harness; ``run`` uses it (one sample's agent).
"""
