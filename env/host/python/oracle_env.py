"""Authoring helpers for oracle environments written in Python.

An environment is a module (the manifest's entrypoint, e.g. env.py) that
defines create_state() and registers its tools and verifiers with the
decorators below. oracle's Python host supplies this module; it needs
nothing but the standard library.

    from oracle_env import tool, verifier, check, optional, forbid, covered, ToolError

    def create_state():
        return {"now": "2026-03-16", "items": [{"id": "IT-1", "price": 12.5}]}

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
        return [check("answer names the price", "12.5" in ctx.agent_output)]

The state is what json.dumps makes of it: dicts, lists, strings, numbers,
booleans and None. A tool receives the rollout's state and the call's input
(a dict, already validated against input_schema by oracle) and returns the
output the agent reads. A tool that raises leaves the state as it was before
the call: ToolError(code, message, details) reaches the agent as
{code, message, details}, any other exception as code "tool_error".
"""

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

# The tools and verifiers the environment registered, in order.
_tools = []
_verifiers = []


class ToolError(Exception):
    """A tool's failure the agent can act on: not_found, conflict, ..."""

    def __init__(self, code, message, details=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


class Context(object):
    """What a verifier knows besides the two states."""

    def __init__(self, agent_output, task):
        self.agent_output = agent_output  # the agent's final output as text ("" for none)
        self.task = task  # the task, as tasks/<id>.json has it


class _Tool(object):
    def __init__(self, name, description, input_schema, read_only, fn):
        self.name = name
        self.description = description
        self.input_schema = input_schema
        self.read_only = read_only
        self.fn = fn


class _Verifier(object):
    def __init__(self, id, task, name, fn):
        self.id = id
        self.task = task
        self.name = name
        self.fn = fn


def tool(name=None, description=None, input_schema=None, read_only=False):
    """Registers a tool: fn(state, input) returns what the agent reads.

    name defaults to the function's name, description to its docstring,
    input_schema (a JSON Schema for the input object) to {"type": "object"}.
    read_only=True declares that the tool never changes the state.
    Usable bare (@tool) or with arguments (@tool(description=...)).
    """

    def register(fn):
        doc = (fn.__doc__ or "").strip()
        _tools.append(_Tool(name or fn.__name__, description if description is not None else doc,
                            input_schema if input_schema is not None else {"type": "object"},
                            bool(read_only), fn))
        return fn

    if callable(name):
        fn, name = name, None
        return register(fn)
    return register


def verifier(id, task, name=""):
    """Registers the verifier id of a task: fn(final, initial, ctx) returns its checks."""

    def register(fn):
        _verifiers.append(_Verifier(id, task, name, fn))
        return fn

    return register


def _check(label, passed, detail, required, kind):
    return {"label": label, "passed": bool(passed), "detail": detail, "required": required, "kind": kind}


def check(label, passed, detail=""):
    """A required check: failing it fails the task."""
    return _check(label, passed, detail, True, "required")


def optional(label, passed, detail=""):
    """Corroborating evidence: it moves the reward, it cannot fail the task alone."""
    return _check(label, passed, detail, False, "optional")


def forbid(label, violated, detail=""):
    """An effect that must not happen: violated=True confirms it and fails the task."""
    return _check(label, not violated, detail, True, "forbidden")


def covered(label, complete, detail=""):
    """Whether a required observation is complete: when it is not, the verdict is inconclusive."""
    return _check(label, complete, detail, False, "coverage")
