"""``bfcl_verdict``: 1.0 exactly when BFCL's own AST checker would pass the calls.

The ground truth is agentloop's form (``{"$any": [...]}`` per parameter, wrapped in
``$optional`` when BFCL lists ``""``); it is read as BFCL's lists of acceptable
values and checked with BFCL's rules (``_bfcl_check``). Categories, as
BFCL's runner: ``*irrelevance*`` passes iff no call was made, ``live_relevance`` iff
one was; ``*parallel*`` needs as many calls as expected, paired without order;
``*multiple*`` checks the one call against the expected function; the others need
exactly one call. ``*java*`` and ``*javascript*`` arguments are strings read by BFCL's own
converters (``_bfcl_languages``). ``format_sensitivity``: the reply's text is decoded in
the row's prompt format (``_bfcl_formats``), then checked as its source category.
Known difference: BFCL pairs parallel calls greedily and can reject a correct
reordering; here pairing is maximum bipartite matching.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._bfcl_check import Failure, Unsupported, bfcl_answer, check_call
from ._bfcl_formats import bfcl_prompt_format, decode_reply
from ._bfcl_languages import BfclLanguage, bfcl_language
from ._calls import Call, collect_calls
from ._messages import final_answer_of
from ._pairing import pair
from ._result_models import BfclDetails, RewardResult

__all__ = ["bfcl_answer", "bfcl_verdict"]

BfclResult = RewardResult[BfclDetails]
_UNSUPPORTED = ("multi_turn", "memory", "web_search")
FORMAT_SENSITIVITY = "format_sensitivity"


def _expected(ground_truth: Any) -> list[Call]:
    """The expected calls, read afresh on every call (so an edit in place counts)."""
    exp = collect_calls(ground_truth, [], "expected")
    for e in exp:
        if not isinstance(e.args, dict):
            raise Unsupported("expected arguments are not an object")
    return exp


def _docs(metadata: Mapping[str, Any], row: Mapping[str, Any] | None) -> list[Any]:
    """Function docs: BFCL's own (metadata), else the row's OpenAI tools (their
    JSON-schema type names are mapped in the check)."""
    docs = metadata.get("bfcl_functions")
    if not docs:
        docs = [t.get("function", t) for t in (row or {}).get("tools") or ()]
    return docs if type(docs) is list else list(docs)


_NO_NAME = object()


def _doc(docs: list[Any], name: str, fallback: bool) -> Any:
    """The doc named ``name``; else (``fallback``: BFCL's simple checker takes the
    category's one function) the first doc, else None."""
    first = None
    for doc in docs:
        if type(doc) is dict or isinstance(doc, Mapping):
            found = doc.get("name", _NO_NAME)
            if found == name:
                return doc
            if first is None and found is not _NO_NAME:
                first = doc
    return first if fallback else None


def _kind(category: Any) -> tuple[int, bool, bool]:
    """(relevance: 0, 1 irrelevance or 2 relevance; multiple; parallel) of a category."""
    if not isinstance(category, str) or not category:
        raise ValueError("bfcl_verdict: no category (metadata.bfcl_category or category=)")
    if any(part in category for part in _UNSUPPORTED):
        raise ValueError(f"bfcl_verdict: category {category!r} is not supported")
    relevance = 1 if "irrelevance" in category else 2 if "relevance" in category else 0
    return relevance, "multiple" in category, "parallel" in category


def _check(gen: Call, exp: Call, doc: Any, language: BfclLanguage | None) -> Failure | None:
    """One generated call against one expected call and its doc (``_doc``)."""
    if gen.name != exp.name:
        return "simple_function_checker:wrong_func_name", (
            f"wrong name: expected {exp.name!r}, got {gen.name!r}"
        )
    if doc is None:
        return "bfcl:no_function_doc", f"no function doc for {exp.name!r}"
    return check_call(doc, gen.args, exp.args, language)


def _result(
    score: float, reason: str, category: str, error: str, n_gen: int, n_exp: int
) -> BfclResult:
    details = {
        "category": category,
        "error_type": error,
        "generated_count": n_gen,
        "expected_count": n_exp,
    }
    return BfclResult.model_validate({"score": score, "reason": reason, "details": details})


def bfcl_verdict(
    trajectory: Any,
    ground_truth: Any,
    metadata: Mapping[str, Any] | None = None,
    row: Mapping[str, Any] | None = None,
    *,
    category: str | None = None,
) -> BfclResult:
    """1.0 when BFCL's AST checker would pass every call the model made, else 0.0.

    ``category`` defaults to ``metadata["bfcl_category"]``; function docs come from
    ``metadata["bfcl_functions"]`` (BFCL's types), else the row's OpenAI ``tools``.
    ``details.error_type`` is BFCL's error type of the failure.

    >>> doc = {"name": "area", "parameters": {"type": "dict", "required": ["base"],
    ...        "properties": {"base": {"type": "integer"}, "unit": {"type": "string"}}}}
    >>> meta = {"bfcl_category": "simple_python", "bfcl_functions": [doc]}
    >>> truth = {"tool_calls": [{"name": "area", "arguments": {"base": {"$any": [10]},
    ...          "unit": {"$optional": {"$any": ["units"]}}}}]}
    >>> made = [{"name": "area", "arguments": {"base": 10, "unit": "Units"}}]
    >>> bfcl_verdict(made, truth, meta).score
    1.0
    >>> r = bfcl_verdict([{"name": "area", "arguments": {"base": 10.0}}], truth, meta)
    >>> r.score, r.reason
    (0.0, "simple_python: call 0 ('area'): type of 'base': expected integer, got float")
    """
    metadata = metadata or {}
    category = category or metadata.get("bfcl_category")
    if category == FORMAT_SENSITIVITY:
        return _format_verdict(trajectory, ground_truth, metadata, row)
    relevance, multiple, parallel = _kind(category)
    assert isinstance(category, str)  # _kind raised otherwise
    gen = collect_calls(trajectory, [], "generated", as_sent=True)  # BFCL's strict decoder
    if relevance:
        # BFCL decodes the whole reply: one call it cannot decode means no call at all.
        decoded = bool(gen) and all(isinstance(c.args, dict) for c in gen)
        want_call = relevance == 2
        score = 1.0 if decoded == want_call else 0.0
        said = f"{len(gen)} call(s) made" if decoded else "no decodable call made"
        rule = "a call is expected" if want_call else "no call is expected"
        error = ""  # BFCL's own error types, suffix included
        if not score:
            error = (
                "relevance_error:decoder_failed"
                if want_call
                else ("irrelevance_error:decoder_success")
            )
        return _result(score, f"{category}: {said}; {rule}", category, error, len(gen), 0)
    try:
        return _ast_verdict(category, gen, ground_truth, _docs(metadata, row), multiple, parallel)
    except Unsupported as exc:
        return _result(
            0.0, f"{category}: ground truth: {exc}", category, "bfcl:ground_truth", len(gen), 0
        )


def _format_verdict(
    trajectory: Any, ground_truth: Any, metadata: Mapping[str, Any], row: Any
) -> BfclResult:
    """A format-sensitivity row: the reply's text decoded in the row's prompt format
    (``metadata.bfcl_format``), then checked against the expected calls (``text_calls``
    of the ground truth, or ``tool_calls``) as its source category is (as BFCL's
    runner hands ``ast_checker`` the source entry's id); ``details.category`` is that
    source category, whose rules applied."""
    fmt = bfcl_prompt_format(str(metadata.get("bfcl_format")))
    source = metadata.get("bfcl_source_category")
    relevance, multiple, parallel = _kind(source)
    if relevance:
        raise ValueError(f"bfcl_verdict: {source!r} is not a format-sensitivity source")
    category = FORMAT_SENSITIVITY
    try:
        decoded = decode_reply(final_answer_of(trajectory) or "", fmt)
    except Exception as exc:  # BFCL fails the entry on any decoder error
        reason = f"{category}: the reply does not decode as {fmt.return_format}: {exc}"
        return _result(0.0, reason, category, "ast_decoder:decoder_failed", 0, 0)
    if not all(
        type(c) is dict and len(c) == 1 and type(next(iter(c.values()))) is dict for c in decoded
    ):
        reason = f"{category}: the decoded reply is not a list of calls"
        return _result(0.0, reason, category, "ast_decoder:decoder_wrong_output_format", 0, 0)
    gen = [Call(name=name, args=args, problem=None) for c in decoded for name, args in c.items()]
    if isinstance(ground_truth, Mapping) and "text_calls" in ground_truth:
        ground_truth = {"tool_calls": ground_truth["text_calls"]}
    try:
        return _ast_verdict(
            str(source), gen, ground_truth, _docs(metadata, row), multiple, parallel
        )
    except Unsupported as exc:
        reason = f"{source}: ground truth: {exc}"
        return _result(0.0, reason, str(source), "bfcl:ground_truth", len(gen), 0)


def _ast_verdict(
    category: str,
    gen: list[Call],
    ground_truth: Any,
    docs: list[Any],
    multiple: bool,
    parallel: bool,
) -> BfclResult:
    """The verdict of an AST category (not a relevance one)."""
    exp = _expected(ground_truth)
    language = bfcl_language(category)
    want = len(exp) if parallel or multiple else 1
    if len(gen) != want or not exp:
        reason = f"{category}: wrong count: expected {want} call(s), got {len(gen)}"
        checker = (
            "parallel_function_checker_no_order"
            if parallel
            else ("multiple_function_checker" if multiple else "simple_function_checker")
        )
        error = f"{checker}:wrong_count"
        return _result(0.0, reason, category, error, len(gen), len(exp))
    if not parallel:
        failure = _check(gen[0], exp[0], _doc(docs, exp[0].name, not multiple), language)
        if failure is None:
            return _result(1.0, f"{category}: the call passes", category, "", 1, len(exp))
        reason = f"{category}: call 0 ({gen[0].name!r}): {failure[1]}"
        return _result(0.0, reason, category, failure[0], len(gen), len(exp))
    exp_docs = [_doc(docs, e.name, False) for e in exp]  # once per expected call, as BFCL
    fit = [
        [j for j, doc in enumerate(exp_docs) if _check(g, exp[j], doc, language) is None]
        for g in gen
    ]
    partner = pair(fit, len(exp), strict=False)  # expected -> generated
    if len(partner) == len(exp):
        reason = f"{category}: all {len(exp)} calls pass, paired without order"
        return _result(1.0, reason, category, "", len(gen), len(exp))
    return _parallel_failure(category, gen, exp, exp_docs, partner, language)


def _parallel_failure(
    category: str,
    gen: list[Call],
    exp: list[Call],
    exp_docs: list[Any],
    partner: dict[int, int],
    language: BfclLanguage | None,
) -> BfclResult:
    """Name an expected call nothing could pair with, and why its best candidate failed."""
    j = next(j for j in range(len(exp)) if j not in partner)
    free = [i for i in range(len(gen)) if i not in partner.values()]
    same = [i for i in free if gen[i].name == exp[j].name] or free
    i = same[0]
    failure = _check(gen[i], exp[j], exp_docs[j], language) or ("", "pairing conflict")
    reason = (
        f"{category}: expected call {j} ({exp[j].name!r}) matches no generated call; "
        f"against call {i} ({gen[i].name!r}): {failure[1]}"
    )
    error = "parallel_function_checker_no_order:cannot_find_match"
    return _result(0.0, reason, category, error, len(gen), len(exp))
