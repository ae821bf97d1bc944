"""A stateful notebook tool, showing the class-based ``BaseTool`` style.

``NotebookTool`` keeps keyed text notes on the instance, so one instance is one
notebook: create a fresh one per evaluation sample (``tools.default_tools()``
does). The arguments have an explicit pydantic ``args_schema`` whose validator
rejects impossible combinations (``write`` without ``text``) before the tool
runs, so the engine reports them as invalid arguments.

The logic is one small synchronous core (:meth:`NotebookTool.apply`): it only
touches memory, so ``_arun`` calls it directly instead of hopping to a thread,
and a lock keeps concurrent calls of one round from interleaving.
"""

from __future__ import annotations

import threading
from typing import Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForToolRun,
    CallbackManagerForToolRun,
)
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, Field, PrivateAttr, model_validator

__all__ = ["MAX_KEY_LENGTH", "MAX_NOTES", "MAX_TEXT_LENGTH", "NotebookInput", "NotebookTool"]

MAX_NOTES = 100
"""Most notes one notebook holds."""
MAX_KEY_LENGTH = 64
"""Longest note key, in characters."""
MAX_TEXT_LENGTH = 2000
"""Longest note text, in characters."""

Action = Literal["write", "read", "list", "delete"]


class NotebookInput(BaseModel):
    """Arguments of the notebook tool."""

    action: Action = Field(
        description="write (create or replace a note), read, list (all keys) or delete."
    )
    key: str = Field(
        default="",
        max_length=MAX_KEY_LENGTH,
        description="The note's name; required for write, read and delete.",
    )
    text: str = Field(
        default="",
        max_length=MAX_TEXT_LENGTH,
        description="The note's content; required for write.",
    )

    @model_validator(mode="after")
    def _check_needed_fields(self) -> NotebookInput:
        if self.action != "list" and not self.key.strip():
            raise ValueError(f"action {self.action!r} needs a non-empty key")
        # An explicitly empty note is allowed; a forgotten text is not.
        if self.action == "write" and "text" not in self.model_fields_set:
            raise ValueError("action 'write' needs text")
        return self


class NotebookTool(BaseTool):
    """Keyed text notes that persist across the calls of one run."""

    name: str = "notebook"
    description: str = (
        "A scratch notebook that keeps notes between tool calls. "
        "Actions: write (key, text) saves a note, read (key) returns it, "
        "list returns all keys, delete (key) removes a note."
    )
    args_schema: type[BaseModel] = NotebookInput

    notes: dict[str, str] = Field(default_factory=dict)
    """The notebook's contents, key -> text."""
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def apply(self, action: Action, key: str = "", text: str = "") -> str:
        """Perform one notebook action and describe the outcome.

        Raises:
            ToolException: the note does not exist, or the notebook is full.
        """
        name = key.strip()
        with self._lock:
            if action == "list":
                if not self.notes:
                    return "The notebook is empty."
                return f"{len(self.notes)} note(s): " + ", ".join(sorted(self.notes))
            if action == "write":
                if name not in self.notes and len(self.notes) >= MAX_NOTES:
                    raise ToolException(f"notebook: full ({MAX_NOTES} notes); delete one first")
                self.notes[name] = text
                plural = "" if len(text) == 1 else "s"
                return f"Saved note {name!r} ({len(text)} character{plural})."
            if name not in self.notes:
                known = ", ".join(sorted(self.notes)) or "none"
                raise ToolException(f"notebook: no note named {name!r}; existing notes: {known}")
            if action == "read":
                return self.notes[name]
            if action == "delete":
                del self.notes[name]
                return f"Deleted note {name!r}."
        raise ToolException(f"notebook: unknown action {action!r}")

    def _run(
        self,
        action: Action,
        key: str = "",
        text: str = "",
        run_manager: CallbackManagerForToolRun | None = None,
    ) -> str:
        return self.apply(action, key, text)

    async def _arun(
        self,
        action: Action,
        key: str = "",
        text: str = "",
        run_manager: AsyncCallbackManagerForToolRun | None = None,
    ) -> str:
        return self.apply(action, key, text)
