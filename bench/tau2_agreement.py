"""Agreement of agentloop's τ²-bench bridge with τ²-bench's own evaluator and environments.

For every task of each domain, scripted cases are built from the task's ground-truth actions
(no user model is needed: the cases are the calls a conversation made):

- ``canonical``: the ground-truth actions in order, each by its requestor, and a last agent
  message saying every ``communicate_info`` string;
- ``dropped``: without the last state-changing action (the last action when none changes state);
- ``wrong_arg``: the first compared argument of the first state-changing action (of the first
  action when none changes state) changed: a string gets a suffix, a number grows by one, a
  list loses its last item, ...;
- ``extra_write``: the canonical calls and one more state-changing call (mock: a new task;
  airline: a certificate for the task's user; retail: a new address for the task's user;
  telecom: the user switches data saver mode on its phone; banking_knowledge: a new email for
  the task's user);
- ``retyped``: the canonical calls with the first whole-number argument of the state-changing
  actions sent as a float (``2`` as ``2.0``), else the first boolean one as a number (``True``
  as ``1``): the same value to Python's ``==``, another to τ²-bench's database hash (tasks
  with neither have no such case); banking_knowledge: first the first whole number inside a
  discoverable call's JSON ``arguments`` (which τ²-bench 1.0.1 reads as one JSON number);
- ``extra_read`` (banking_knowledge): the canonical calls, then a discoverable read the ground
  truth does not make, unlocked and called (τ²-bench 1.0.1 no longer logs it).

banking_knowledge's cases are scored under each offline retrieval config (``no_knowledge``,
``full_kb``, ``golden_retrieval``, ``bm25``, ``bm25_grep``, ``grep_only``: the rows differ in
their policy and tools), against τ²-bench's verdict (which no retrieval config changes). Its
retrieval is compared too, with τ²-bench's own pipelines on the same documents in the same
(file-name) order: the documents and scores ``KB_search`` (BM25) and ``grep`` find for the same
queries (per task: its first two required documents' titles and the opening of its user's
instructions; each title's longest word and the first title as grep patterns), the texts the
two tools answer with (the time a search took aside), and the policy each config puts in the
system prompt (``golden_retrieval``'s for every task).

In telecom (dual control) the ground-truth actions are mostly the user's, on its phone: each
call runs on its requestor's side, and the user's tools' schemas are compared too.

Each case is judged twice:

- by τ²-bench: ``bench/tau2_reference.py`` in the separate ``.venv-tau2ref`` (the official
  ``tau2`` package of the sierra-research/tau2-bench repository, its evaluator unmodified:
  ``EnvironmentEvaluator``, ``ActionEvaluator``, ``CommunicateEvaluator``), one process for all
  cases, on the same databases;
- by agentloop: the calls run in order in ``tau2_environment`` (their texts), and
  ``tau2_score`` (the scoring core of ``tau2_verdict``) on the same conversation.

Compared per case: the DB check, each action check, each env assertion, each communicate
check, and the text (and error flag) of every call; once per domain, the tools' schemas
(banking_knowledge: with each search tool too).
NL assertions need an LLM judge and are not compared. Prints figures per domain and kind and
every difference. Target: the same DB and action verdicts on every case.

Without ``.venv-tau2ref`` (installed by hand from a checkout of the tau2-bench repository,
see the τ²-bench page of the docs) it says so and measures nothing.

Run: ``.venv/bin/python bench/tau2_agreement.py [--domains mock,airline] [--limit N]
[--every-task] [--no-page]`` (``--every-task``: every task, not only the ``base`` split that
τ²-bench runs by default; ``--no-page``: print only, the page under docs/ left as it is).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentloop.benchmarks.tau2._banking import read_log_allowlist  # noqa: E402
from agentloop.benchmarks.tau2._data import (  # noqa: E402  # noqa: E402
    domain_db,
    domain_policy,
    domain_tasks,
    knowledge_base,
    tau2_data_dir,
    tau2_row,
)
from agentloop.benchmarks.tau2._env import DOMAINS, Tau2Environment, tau2_environment  # noqa: E402
from agentloop.benchmarks.tau2._retrieval import (  # noqa: E402
    OFFLINE_CONFIGS,
    bm25_search,
    grep_search,
    knowledge_policy,
)
from agentloop.benchmarks.tau2._verdict import Conversation, tau2_score  # noqa: E402

REFERENCE_PYTHON = ROOT / ".venv-tau2ref" / "bin" / "python"
KINDS = ("canonical", "dropped", "wrong_arg", "extra_write", "retyped", "extra_read")
BANKING = "banking_knowledge"
_EXTRA_READS = ("get_debit_dispute_status_7483", "get_user_dispute_history_7291")
# Known causes of difference -> explanation (also on the τ²-bench page of the docs).
KNOWN: dict[str, str] = {
    "raise": "an env assertion whose function raises (a task that was never created) makes "
    "τ²-bench's evaluator raise, and its runner records an infrastructure error its metrics "
    "leave out; agentloop scores that assertion as not met (raised, the exception as its "
    "reason; the DB check computed as usual) and says τ²-bench's outcome (tau2_error)",
}

Call = tuple[str, str, dict[str, Any]]


def _mutates(domain: str, requestor: str, name: str) -> bool:
    toolkit = DOMAINS[domain]()[3 if requestor == "user" else 1]
    return toolkit is not None and name in toolkit.tool_names() and toolkit.info(name).mutates


def _perturbed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "X"
    if isinstance(value, list):
        return value[:-1] if len(value) > 1 else [*value, *value]
    if isinstance(value, dict):
        return {**value, "extra": "X"}
    return "X"


def _user_of(domain: str, actions: list[dict[str, Any]]) -> str:
    users = [a["arguments"]["user_id"] for a in actions if "user_id" in (a.get("arguments") or {})]
    return users[0] if users else next(iter(_first_users(domain)))


def _first_users(domain: str) -> Any:
    db = domain_db(domain)[0]["users"]
    return db["data"] if domain == BANKING else db


def _extra_write(domain: str, actions: list[dict[str, Any]]) -> Call:
    if domain == BANKING:
        user = _user_of(domain, actions)
        return ("assistant", "change_user_email", {"user_id": user, "new_email": "x@example.com"})
    if domain == "mock":
        return ("assistant", "create_task", {"user_id": "user_1", "title": "Extra task"})
    if domain == "telecom":
        return ("user", "toggle_data_saver_mode", {})
    users = [a["arguments"]["user_id"] for a in actions if "user_id" in (a.get("arguments") or {})]
    user = users[0] if users else next(iter(domain_db(domain)[0]["users"]))
    if domain == "retail":
        address = {
            "address1": "1 Extra Street",
            "address2": "",
            "city": "Springfield",
            "state": "IL",
            "country": "USA",
            "zip": "62701",
        }
        return ("assistant", "modify_user_address", {"user_id": user, **address})
    return ("assistant", "send_certificate", {"user_id": user, "amount": 50})


def _retyped_json(calls: list[Call]) -> list[Call] | None:
    """banking_knowledge: the first whole number inside a discoverable call's JSON arguments
    written as a float (``25`` as ``25.0``)."""
    for i, (_, name, arguments) in enumerate(calls):
        if not name.startswith("call_discoverable") or not isinstance(
            arguments.get("arguments"), str
        ):
            continue
        try:
            given = json.loads(arguments["arguments"])
        except ValueError:
            continue
        for key, value in given.items():
            if type(value) is int:
                changed = copy.deepcopy(calls)
                changed[i][2]["arguments"] = json.dumps({**given, key: float(value)})
                return changed
    return None


def _retyped(domain: str, actions: list[dict[str, Any]], calls: list[Call]) -> list[Call] | None:
    """The calls with one number retyped (see the module doc), or None."""
    if domain == BANKING and (found := _retyped_json(calls)) is not None:
        return found
    writes = [
        i
        for i, a in enumerate(actions)
        if _mutates(domain, a.get("requestor") or "assistant", a["name"])
    ]
    for kind, convert in ((int, float), (bool, int)):
        for i in writes:
            for key, value in calls[i][2].items():
                if type(value) is kind:
                    changed = copy.deepcopy(calls)
                    changed[i][2][key] = convert(value)
                    return changed
    return None


def cases_of(domain: str, task: dict[str, Any]) -> list[dict[str, Any]]:
    """The scripted cases of one task (see the module doc)."""
    criteria = task.get("evaluation_criteria") or {}
    actions = list(criteria.get("actions") or [])
    calls: list[Call] = [
        (a.get("requestor") or "assistant", a["name"], copy.deepcopy(a.get("arguments") or {}))
        for a in actions
    ]
    text = " ".join(criteria.get("communicate_info") or []) or "Done."
    out = {"canonical": calls}
    if calls:
        writes = [
            i
            for i, a in enumerate(actions)
            if _mutates(domain, a.get("requestor") or "assistant", a["name"])
        ]
        drop = writes[-1] if writes else len(calls) - 1
        out["dropped"] = calls[:drop] + calls[drop + 1 :]
        # the first compared argument of the first state-changing action (else of any action)
        order = writes + [i for i in range(len(actions)) if i not in writes]
        for i in order:
            action = actions[i]
            keys = action.get("compare_args")
            keys = list(action.get("arguments") or {}) if keys is None else keys
            if keys:
                changed = copy.deepcopy(calls)
                changed[i][2][keys[0]] = _perturbed(changed[i][2][keys[0]])
                out["wrong_arg"] = changed
                break
    out["extra_write"] = [*calls, _extra_write(domain, actions)]
    retyped = _retyped(domain, actions, calls)
    if retyped is not None:
        out["retyped"] = retyped
    if domain == BANKING:  # a read the ground truth does not make (τ²-bench 1.0.1: not logged)
        allowed = set(read_log_allowlist(actions))
        read = next(r for r in _EXTRA_READS if r not in allowed)
        user = json.dumps({"user_id": _user_of(domain, actions)})
        out["extra_read"] = [
            *calls,
            ("assistant", "unlock_discoverable_agent_tool", {"agent_tool_name": read}),
            (
                "assistant",
                "call_discoverable_agent_tool",
                {"agent_tool_name": read, "arguments": user},
            ),
        ]
    return [
        {
            "key": f"{domain}/{task['id']}/{kind}",
            "domain": domain,
            "kind": kind,
            "task": task,
            "calls": [list(c) for c in kind_calls],
            "agent_text": text,
        }
        for kind, kind_calls in out.items()
    ]


def ours(case: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """agentloop's texts and checks of one case."""
    env = tau2_environment(row)
    texts = [list(env.call(side, name, args)) for side, name, args in case["calls"]]
    conversation = Conversation(
        stop_reason="user_stop",
        calls=[(side, name, args, True) for side, name, args in case["calls"]],
        agent_texts=[case["agent_text"]],
    )
    # NL assertions need a judge and are not compared: left out of the basis (retail 1.0.1)
    row = copy.deepcopy(row)
    criteria = row["ground_truth"]["evaluation_criteria"] or {}
    if "NL_ASSERTION" in (criteria.get("reward_basis") or []):
        criteria["reward_basis"] = [b for b in criteria["reward_basis"] if b != "NL_ASSERTION"]
    details = tau2_score(conversation, row).details
    return {
        "texts": texts,
        "db_match": details.db_match,
        "env_assertions": [c.met for c in details.env_assertions],
        "actions": [a.matched for a in details.actions],
        "communicate": [c.met for c in details.communicate],
        "tau2_error": details.tau2_error,
    }


def _retrieval_asked(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """banking_knowledge's retrieval questions: per task, the titles of its first two required
    documents and the opening of its user's instructions as KB_search queries; the longest
    word of each title, and the first title whole, as grep patterns; and the policies (the
    golden documents' per task, every other configuration's once)."""
    kb = knowledge_base()
    bm25: list[str] = []
    grep: list[str] = []
    for task in tasks:
        refs = (task.get("required_documents") or [])[:2]
        titles = [kb.by_id[r].title if r in kb.by_id else r for r in refs]
        instructions = str((task.get("user_scenario") or {}).get("instructions", ""))
        bm25 += [*titles, " ".join(instructions.split()[:12])]
        grep += [max(t.split(), key=len) for t in titles if t.split()] + titles[:1]
    policies = [
        [f"{config}/{task['id']}", config, task]
        for i, task in enumerate(tasks)
        for config in OFFLINE_CONFIGS
        if config == "golden_retrieval" or i == 0
    ]
    return {"bm25": bm25, "grep": grep, "policies": policies}


def _untimed(text: str) -> str:
    return re.sub(r"\[Timing: [^\]]*\]$", "[Timing]", text)


def _same_hits(mine: list[tuple[str, float]], theirs: list[list[Any]]) -> bool:
    return [d for d, _ in mine] == [d for d, _ in theirs] and all(
        abs(a - b) <= 1e-9 * max(1.0, abs(b)) for (_, a), (_, b) in zip(mine, theirs, strict=True)
    )


def _retrieval_agreement(
    asked: dict[str, Any], theirs: dict[str, Any]
) -> tuple[dict[str, int], list[str]]:
    kb = knowledge_base()
    counts: Counter[str] = Counter()
    differences = []
    env = Tau2Environment(BANKING, options={"retrieval_config": "bm25_grep"})
    tools = {"bm25": ("KB_search", "query"), "grep": ("grep", "pattern")}
    for kind, search in (("bm25", bm25_search(kb)), ("grep", grep_search(kb))):
        for query, expected, text in zip(
            asked[kind], theirs[kind], theirs[f"{kind}_texts"], strict=True
        ):
            got = search(query)
            same = _same_hits(got, expected)
            counts[f"{kind}:queries"] += 1
            counts[f"{kind}:agree"] += int(same)
            counts[f"{kind}:hits"] += len(expected)
            name, argument = tools[kind]
            mine = env.call("assistant", name, {argument: query})[0]
            # the time a search took is the one part that varies from call to call
            same_text = _untimed(mine) == _untimed(text)
            counts[f"{kind}:texts_agree"] += int(same_text)
            if not same_text:
                differences.append(f"{BANKING} {name} {query!r:.80}: the tool's texts differ")
            if not same:
                differences.append(
                    f"{BANKING} {kind} {query!r:.80}: agentloop {got!r:.300} "
                    f"τ²-bench {expected!r:.300}"
                )
    for key, config, task in asked["policies"]:
        mine = knowledge_policy(kb, config, task.get("required_documents"))
        same = mine == theirs["policies"][key]
        counts["policies"] += 1
        counts["policies:agree"] += int(same)
        if not same:
            differences.append(f"{BANKING} policy {key}: differs")
    return dict(counts), differences


def _reference(
    cases: list[dict[str, Any]], asked: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.json"
        path.write_text(json.dumps({"cases": cases, "retrieval": asked}), encoding="utf-8")
        done = subprocess.run(
            [
                str(REFERENCE_PYTHON),
                str(ROOT / "bench" / "tau2_reference.py"),
                str(path),
                str(tau2_data_dir()),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise SystemExit(f"the reference failed:\n{done.stderr[-3000:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return lines[0], {line["key"]: line for line in lines[1:]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--limit", type=int, default=None, help="tasks per domain")
    parser.add_argument(
        "--every-task",
        action="store_true",
        help="every task of a domain, not only its base split (telecom: 2,285 instead of 114)",
    )
    args = parser.parse_args()
    domains = [d for d in args.domains.split(",") if d]
    if not REFERENCE_PYTHON.exists():
        print(
            f"reference: {REFERENCE_PYTHON.relative_to(ROOT)} is missing (the official tau2 "
            "package, installed by hand: see docs/pages/tau2.md); nothing measured"
        )
        return 0
    started = time.perf_counter()
    cases: list[dict[str, Any]] = []
    rows: dict[str, dict[str | None, dict[str, Any]]] = {}
    asked = None
    for domain in domains:
        policy = domain_policy(domain)
        tasks = domain_tasks(domain, every=args.every_task)[: args.limit]
        for task in tasks:
            # banking_knowledge: the same case scored under each offline retrieval config
            configs: tuple[str | None, ...] = OFFLINE_CONFIGS if domain == BANKING else (None,)
            row = {c: tau2_row(domain, task, policy, retrieval_config=c) for c in configs}
            for case in cases_of(domain, task):
                rows[case["key"]] = row
                cases.append(case)
        if domain == BANKING:
            asked = _retrieval_asked(tasks)
    schemas, reference = _reference(cases, asked)
    took_reference = time.perf_counter() - started
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    differences = []
    for domain in domains:
        env = Tau2Environment(domain)
        mine, expected = env.tool_schemas(), schemas["schemas"][domain]
        if env.user_toolkit is not None:  # the user's tools too (telecom's phone)
            mine = [*mine, *env.tool_schemas("user")]
            expected = [*expected, *schemas["user_schemas"][domain]]
        if domain == BANKING:  # with each search tool
            for config in ("bm25", "grep_only", "bm25_grep"):
                searching = Tau2Environment(domain, options={"retrieval_config": config})
                mine = [*mine, *searching.tool_schemas()]
                expected = [*expected, *schemas["schemas"][f"{domain}/{config}"]]
        same = json.dumps(mine, sort_keys=True) == json.dumps(expected, sort_keys=True)
        totals[domain]["schemas_same"] += int(same)
        if not same:
            differences.append(f"{domain}: tool schemas differ")
    retrieval: dict[str, int] = {}
    if asked is not None:
        retrieval, found = _retrieval_agreement(asked, schemas["retrieval"])
        differences += found
    scored = [(case, row) for case in cases for row in rows[case["key"]].values()]
    for case, row in scored:
        theirs, got = reference[case["key"]], ours(case, row)
        count = totals[case["domain"]]
        count["cases"] += 1
        count[f"cases:{case['kind']}"] += 1
        raised = theirs.get("env_error")
        if raised:
            count["reference_raised"] += 1
            differences.append(
                f"{case['key']}: τ²-bench's evaluator raised ({raised:.200}); agentloop: DB "
                f"{got['db_match']}, env assertions {got['env_assertions']}, "
                f"{'says so (tau2_error)' if got['tau2_error'] else 'DOES NOT SAY SO'} -- "
                f"known: {KNOWN['raise']}"
            )
        elif got["tau2_error"]:
            differences.append(f"{case['key']}: agentloop says τ²-bench would raise; it did not")
        for what in ("db_match", "actions", "env_assertions", "communicate", "texts"):
            if raised and what in ("db_match", "env_assertions"):
                count[f"{what}:agree"] += 1  # nothing to compare with: listed above
                continue
            agree = got[what] == theirs[what]
            count[f"{what}:agree"] += int(agree)
            if not agree:
                differences.append(
                    f"{case['key']}: {what}: agentloop {got[what]!r:.300} "
                    f"τ²-bench {theirs[what]!r:.300}"
                )
        count["strict_replay"] += int(theirs["strict_replay"])
        count["db_match:reference_true"] += int(bool(theirs["db_match"]))
        count["actions:reference_all"] += int(all(theirs["actions"]))
    took = time.perf_counter() - started
    print(f"{len(cases)} cases in {took:.0f} s ({took_reference:.0f} s of it τ²-bench's side)\n")
    print(
        "| domain | cases | DB verdict | action verdicts | env assertions | communicate "
        "| call texts | strict replay | tool schemas |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for domain in domains:
        c = totals[domain]
        n = c["cases"]
        print(
            f"| {domain} | {n} | {c['db_match:agree']}/{n} | {c['actions:agree']}/{n} | "
            f"{c['env_assertions:agree']}/{n} | {c['communicate:agree']}/{n} | "
            f"{c['texts:agree']}/{n} | {c['strict_replay']}/{n} | "
            f"{'same' if c['schemas_same'] else 'DIFFER'} |"
        )
    print("\nτ²-bench's own verdicts, per domain and kind (DB match / every action matched):")
    for domain in domains:
        for kind in KINDS:
            keys = [c for c in cases if c["domain"] == domain and c["kind"] == kind]
            if keys:
                db = sum(bool(reference[c["key"]]["db_match"]) for c in keys)
                act = sum(all(reference[c["key"]]["actions"]) for c in keys)
                print(
                    f"  {domain:8} {kind:12} {len(keys):4} cases: DB match {db:4}, "
                    f"actions all matched {act:4}"
                )
    raised = sum(totals[d]["reference_raised"] for d in domains)
    if retrieval:
        r = retrieval
        print(
            f"\n{BANKING} retrieval, by τ²-bench's own pipelines on the same documents: "
            f"KB_search (BM25) {r['bm25:agree']}/{r['bm25:queries']} queries the same documents "
            f"and scores ({r['bm25:hits']} hits) and {r['bm25:texts_agree']} the same text "
            f"(its time taken aside), grep {r['grep:agree']}/{r['grep:queries']} "
            f"({r['grep:hits']} hits) and {r['grep:texts_agree']} the same text, "
            f"policies {r['policies:agree']}/{r['policies']} the same "
            f"text (each case above scored under each of {', '.join(OFFLINE_CONFIGS)})"
        )
    print(f"\ncases where τ²-bench's evaluator raised (not compared on DB/assertions): {raised}")
    print(f"differences: {len(differences)}")
    for line in differences:
        print(f"  {line}")
    ok = all(
        totals[d]["db_match:agree"] == totals[d]["cases"]
        and totals[d]["actions:agree"] == totals[d]["cases"]
        for d in domains
    )
    return 0 if ok else 1


if __name__ == "__main__":
    if "--no-page" in sys.argv:  # a measurement of its own, the published page left as it is
        sys.argv.remove("--no-page")
        raise SystemExit(main())
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_page import publish

    raise SystemExit(publish("tau2-agreement", main))
