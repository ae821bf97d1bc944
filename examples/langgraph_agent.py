"""LangGraph's prebuilt ReAct agent as an agentloop factory, run in agentloop's process.

    agent: examples/langgraph_agent.py:make_agent

agentloop calls make_agent(model, tools) for each (sample, epoch) with the run's model and
the row's tools, and runs the graph on {"messages": [...]}. Needs
`pip install 'agentloop[langgraph]'`.
"""

import warnings
from typing import Any

from langgraph.warnings import LangGraphDeprecatedSinceV10


def make_agent(model: Any, tools: list[Any], prompt: str | None = None) -> Any:
    with warnings.catch_warnings():  # LangGraph 1.0 points to langchain.agents.create_agent
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, tools, prompt=prompt)
