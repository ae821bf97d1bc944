"""Every evals module's docstring examples run, and every public function has some."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import agentloop.evals as evals
import pytest
from pydantic import BaseModel

_FOUND = pkgutil.iter_modules(evals.__path__, prefix="agentloop.evals.")
MODULES = ["evals", *sorted(name for _, name, _ in _FOUND)]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_pass(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, verbose=False, report=True)
    assert result.failed == 0
    if name != "evals":  # the package only re-exports
        assert result.attempted > 0


@pytest.mark.parametrize(
    "name", [n for n in evals.__all__ if inspect.isfunction(getattr(evals, n))]
)
def test_public_function_has_example(name: str) -> None:
    doc = inspect.getdoc(getattr(evals, name)) or ""
    assert ">>>" in doc, f"{name} has no docstring example"


def test_all_is_complete_and_sorted() -> None:
    assert len(set(evals.__all__)) == len(evals.__all__)
    for name in evals.__all__:
        assert hasattr(evals, name)


def test_result_models_document_every_field() -> None:
    models: list[type[BaseModel]] = [
        evals.RewardResult,
        evals.QAResult,
        evals.ToolMatchDetails,
        evals.BfclDetails,
        evals.CallDiagnostic,
        evals.FunctionCallDetails,
        evals.QADetails,
        evals.AnswerScore,
        evals.AnswerMatchDetails,
        evals.SampleScore,
        evals.LlmJudgeDetails,
        evals.JudgeGrade,
    ]
    for model in models:
        for field_name, info in model.model_fields.items():
            assert info.description, f"{model.__name__}.{field_name} lacks a docstring"
