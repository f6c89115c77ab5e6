"""Authoring helpers for oracle environments written in Python.

An environment is a module (the manifest's entrypoint, e.g. env.py) that
defines create_state(task) (or create_state(), for one world for every
task) and registers its tools and verifiers with the decorators below.
oracle's Python host supplies this module; it needs nothing but the
standard library.

    from oracle_env import tool, verifier, check, optional, forbid, covered, ToolError

    def create_state(task):
        items = [{"id": "IT-1", "price": 12.5}]
        items += task.get("initialState", {}).get("extraItems", [])  # the task's own data
        return {"now": "2026-03-16", "items": items}

    @tool(description="One item by id.", read_only=True,
          input_schema={"type": "object", "properties": {"id": {"type": "string"}},
                        "required": ["id"], "additionalProperties": False})
    def get_item(state, input):
        for item in state["items"]:
            if item["id"] == input["id"]:
                return item
        raise ToolError("not_found", "no item " + input["id"])

    @verifier(id="VER-001", task="TASK-001", name="The price was read")
    def ver_001(final, initial, ctx):
        read = [c for c in ctx.calls if c["tool"] == "get_item"]
        return [check("answer names the price", "12.5" in ctx.agent_output),
                forbid("another item was read", any(c["input"]["id"] != "IT-1" for c in read))]

create_state(task) receives the task as its file has it (id, instruction,
verifierId, ... and the task's initialState and variant, when it has them:
see docs/environments-ts-python.md), and makes the world of that task. The
state is what json.dumps makes of it: dicts, lists, strings, numbers,
booleans and None. A tool receives the rollout's state and the call's input
(a dict, already validated against input_schema by oracle) and returns the
output the agent reads. A tool that raises leaves the state as it was before
the call: ToolError(code, message, details) reaches the agent as
{code, message, details}, any other exception as code "tool_error".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Context",
    "ToolError",
    "check",
    "covered",
    "forbid",
    "optional",
    "tool",
    "verifier",
]

State = dict[str, Any]
Check = dict[str, Any]


class ToolError(Exception):
    """A tool's failure the agent can act on: not_found, conflict, ..."""

    def __init__(self, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


@dataclass(frozen=True)
class Context:
    """What a verifier knows besides the two states."""

    agent_output: str  # the agent's final output as text ("" for none)
    task: dict[str, Any]  # the task, as tasks/<id>.json has it
    # the rollout's tool calls in order, as calls.json records them: each a
    # dict with "tool", "input" and either "output" or "error"
    calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class _Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    fn: Callable[[State, dict[str, Any]], Any]


@dataclass(frozen=True)
class _Verifier:
    id: str
    task: str
    name: str
    fn: Callable[[State, State, Context], list[Check]]


# The tools and verifiers the environment registered, in order.
_tools: list[_Tool] = []
_verifiers: list[_Verifier] = []


def tool(name: str | Callable[..., Any] | None = None, description: str | None = None,
         input_schema: dict[str, Any] | None = None, read_only: bool = False) -> Any:
    """Registers a tool: fn(state, input) returns what the agent reads.

    name defaults to the function's name, description to its docstring,
    input_schema (a JSON Schema for the input object) to {"type": "object"}.
    read_only=True declares that the tool never changes the state.
    Usable bare (@tool) or with arguments (@tool(description=...)).
    """

    def register(fn: Callable[[State, dict[str, Any]], Any]) -> Callable[[State, dict[str, Any]], Any]:
        doc = (fn.__doc__ or "").strip()
        _tools.append(_Tool(name if isinstance(name, str) else fn.__name__,
                            description if description is not None else doc,
                            input_schema if input_schema is not None else {"type": "object"},
                            bool(read_only), fn))
        return fn

    if callable(name):
        return register(name)
    return register


def verifier(id: str, task: str, name: str = "") -> Callable[[Callable[[State, State, Context], list[Check]]], Any]:
    """Registers the verifier id of a task: fn(final, initial, ctx) returns its checks."""

    def register(fn: Callable[[State, State, Context], list[Check]]) -> Callable[[State, State, Context], list[Check]]:
        _verifiers.append(_Verifier(id, task, name, fn))
        return fn

    return register


def _check(label: str, passed: object, detail: str, required: bool, kind: str) -> Check:
    return {"label": label, "passed": bool(passed), "detail": detail, "required": required, "kind": kind}


def check(label: str, passed: object, detail: str = "") -> Check:
    """A required check: failing it fails the task."""
    return _check(label, passed, detail, True, "required")


def optional(label: str, passed: object, detail: str = "") -> Check:
    """Corroborating evidence: it moves the reward, it cannot fail the task alone."""
    return _check(label, passed, detail, False, "optional")


def forbid(label: str, violated: object, detail: str = "") -> Check:
    """An effect that must not happen: violated=True confirms it and fails the task."""
    return _check(label, not violated, detail, True, "forbidden")


def covered(label: str, complete: object, detail: str = "") -> Check:
    """Whether a required observation is complete: when it is not, the verdict is inconclusive."""
    return _check(label, complete, detail, False, "coverage")
