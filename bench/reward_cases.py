"""The generated cases of the reward benchmark (``bench/rewards.py``): tool-call pairs
(every case distinct, about half of them perturbed) and QA prediction/gold pairs, from a
fixed seed."""

from __future__ import annotations

import json
import random
from typing import Any

WORDS = [
    *("paris", "london", "tower", "river", "bridge", "capital", "france", "england", "museum"),
    *("city", "north", "south", "old", "new", "king", "queen", "war", "peace", "year"),
    *("century", "first", "second", "third", "great", "small", "red", "blue", "green"),
    *("the", "a", "an", "of", "in", "on", "at", "by", "for", "with", "from", "1889", "1066"),
    *("42", "3.14", "yes", "no", "einstein", "curie", "newton", "darwin"),
]
TOOLS = ["get_weather", "search", "lookup", "calculator", "send_email", "book_flight"]
KEYS = ["city", "query", "id", "unit", "limit", "to", "date", "flags", "exact", "price"]


def _value(rnd: random.Random) -> Any:
    kind = rnd.randrange(6)
    if kind == 0:
        return " ".join(rnd.choices(WORDS, k=rnd.randint(1, 3)))
    if kind == 1:
        return rnd.randint(0, 1000)
    if kind == 2:
        return round(rnd.uniform(0, 100), 2)
    if kind == 3:
        return rnd.random() < 0.5
    if kind == 4:
        return [rnd.randint(0, 9) for _ in range(rnd.randint(0, 3))]
    return {"nested": rnd.choice(WORDS), "n": rnd.randint(0, 5)}


def _call(rnd: random.Random, i: int) -> dict[str, Any]:
    args = {k: _value(rnd) for k in rnd.sample(KEYS, rnd.randint(1, 4))}
    return {"id": f"call_{i}", "type": "function",
            "function": {"name": rnd.choice(TOOLS), "arguments": json.dumps(args)}}  # fmt: skip


def _perturb(rnd: random.Random, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ground truth: equal ~45% of the time, otherwise subtly different."""
    truth = json.loads(json.dumps(calls))
    kind = rnd.randrange(20)
    if kind < 9 or not truth:
        return truth
    if kind < 12:
        rnd.shuffle(truth)
    elif kind < 15:
        args = json.loads(truth[0]["function"]["arguments"])
        key = rnd.choice(list(args))
        args[key] = float(args[key]) if type(args[key]) is int else "changed"  # 1 -> 1.0 too
        truth[0]["function"]["arguments"] = json.dumps(args)
    elif kind < 17:
        truth.pop()
    elif kind < 19:
        truth[0]["function"]["name"] = "other_tool"
    else:
        truth.append(_call(rnd, 99))
    return truth


def tool_cases(n: int, seed: int) -> list[dict[str, Any]]:
    rnd = random.Random(seed)
    cases = []
    for i in range(n):
        calls = [_call(rnd, j) for j in range(rnd.randint(1, 4))]
        messages = [
            {"role": "system", "content": "You are helpful."},
            {
                "role": "user",
                "content": f"Request number {i}: " + " ".join(rnd.choices(WORDS, k=8)),
            },
            {"role": "assistant", "content": None, "tool_calls": calls},
        ]
        cases.append({"messages": messages, "ground_truth": {"tool_calls": _perturb(rnd, calls)}})
    return cases


def qa_pairs(n: int, seed: int) -> list[tuple[str, str | list[str]]]:
    """Distinct (prediction, gold) pairs: short answers, some sentences, some gold lists."""
    rnd = random.Random(seed + 1)
    seen: set[str] = set()
    pairs: list[tuple[str, str | list[str]]] = []
    while len(pairs) < n:
        gold = " ".join(rnd.choices(WORDS, k=rnd.randint(1, 4)))
        words = gold.split() + rnd.choices(WORDS, k=rnd.randint(0, 6))
        rnd.shuffle(words)
        prediction = " ".join(words).capitalize() + rnd.choice(["", ".", "!", ", I think."])
        golds: str | list[str] = gold
        if rnd.random() < 0.2:
            golds = [gold, " ".join(rnd.choices(WORDS, k=2))]
        key = prediction + "|" + json.dumps(golds)
        if key not in seen:
            seen.add(key)
            pairs.append((prediction, golds))
    return pairs
