"""oracle's Python host: loads an environment module written against
oracle_env (create_state, @tool, @verifier), runs agent modules of the
shape agent(task, tools, call_tool), and speaks the environment protocol
(docs/environment-protocol.md) on stdin and stdout. oracle writes this file
into a private folder and starts it with python3; it is not meant to be run
by hand.

    python3 host.py --name NAME [--env ENTRYPOINT]

Without --env the host runs agents only. stdout carries protocol lines
only: what the environment's or an agent's code prints goes to stderr.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

PROTOCOL = 1

_out = sys.stdout.buffer
sys.stdout = sys.stderr
_send_lock = threading.Lock()

JSON = Any  # what json.loads makes: dict, list, str, int, float, bool, None


def send(text: str) -> None:
    with _send_lock:
        _out.write(text.encode("utf-8") + b"\n")
        _out.flush()


def dumps(value: JSON) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class HostError(Exception):
    """A request's error, with the code the protocol names."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def send_error(id: int, code: str, message: object) -> None:
    send(dumps({"type": "error", "id": id, "error": {"code": code, "message": str(message)}}))


def describe(err: BaseException) -> str:
    text = str(err)
    return type(err).__name__ + (": " + text if text else "")


def to_json(value: JSON, what: str) -> str:
    try:
        return dumps(value)
    except (TypeError, ValueError) as err:
        raise HostError("not_json", f"{what} is not JSON: {err}") from None


def import_file(path: str, name: str = "") -> ModuleType:
    """Imports the module of a file (as name, by default its file's), with
    its folder on sys.path (after the host's own: its oracle_env wins)."""
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(1, folder)
    name = name or os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise HostError("load_failed", f"{path} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def import_hint(err: BaseException) -> str:
    """What to do about a module that did not import."""
    if isinstance(err, ImportError):
        return (f"; {sys.executable} (Python {sys.version.split()[0]}) cannot import it: install what it needs"
                " for that Python, or set ORACLE_PYTHON to a Python that has it")
    return ""


def takes_task(fn: Callable[..., Any]) -> bool:
    """Whether create_state takes the task: create_state(task), or the
    original create_state() that takes nothing."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params)


@dataclass
class Environment:
    module: ModuleType
    tools: dict[str, Any]
    verifiers: dict[str, Any]
    with_task: bool


def load(entry: str) -> Environment:
    module = import_file(entry)
    if not callable(getattr(module, "create_state", None)):
        raise HostError("load_failed", f"{entry} does not define create_state(); an environment module defines it and registers its tools and verifiers with oracle_env's @tool and @verifier")
    import oracle_env

    tools: dict[str, Any] = {}
    verifiers: dict[str, Any] = {}
    for t in oracle_env._tools:
        if t.name in tools:
            raise HostError("load_failed", f"{entry}: two tools named {t.name}")
        tools[t.name] = t
    for v in oracle_env._verifiers:
        if v.id in verifiers:
            raise HostError("load_failed", f"{entry}: two verifiers with id {v.id}")
        verifiers[v.id] = v
    return Environment(module, tools, verifiers, takes_task(module.create_state))


@dataclass
class World:
    state: dict[str, JSON]
    initial_text: str
    task: dict[str, JSON]
    done: list[tuple[str, str]] = field(default_factory=list)  # the calls that succeeded: tool, input's JSON


class Host:
    def __init__(self, env: Environment | None) -> None:
        self.env = env
        self.worlds: dict[Any, World] = {}
        self.last_initial: dict[Any, str] = {}
        self.agents = Agents()

    def need_env(self) -> Environment:
        if self.env is None:
            raise HostError("bad_request", "this host runs agents only; it has no environment")
        return self.env

    def world(self, msg: dict[str, JSON]) -> World:
        w = self.worlds.get(msg.get("world"))
        if w is None:
            raise HostError("no_world", f"no world {msg.get('world')} is open")
        return w

    def new_state(self, task: dict[str, JSON]) -> dict[str, JSON]:
        env = self.need_env()
        try:
            state = env.module.create_state(task) if env.with_task else env.module.create_state()
        except Exception as err:
            raise HostError("open_failed", f"create_state() raised {describe(err)}") from None
        if not isinstance(state, dict):
            raise HostError("state_not_object", f"create_state() returned {type(state).__name__}, not a dict")
        return state

    def open(self, msg: dict[str, JSON]) -> str:
        if msg.get("world") in self.worlds:
            raise HostError("bad_request", f"world {msg.get('world')} is already open")
        task = msg.get("task") or {}
        state = self.new_state(task)
        text = to_json(state, "the state create_state() returned")
        self.worlds[msg.get("world")] = World(state, text, task)
        # an initial state the same as the last one sent for the task is not sent again
        if self.last_initial.get(task.get("id")) == text:
            return '{"type":"opened","id":%d,"same":true}' % msg["id"]
        self.last_initial[task.get("id")] = text
        return '{"type":"opened","id":%d,"state":%s}' % (msg["id"], text)

    def execute(self, t: Any, state: dict[str, JSON], input: JSON) -> tuple[str, bool]:
        import oracle_env

        try:
            return to_json(t.fn(state, input), f"the output of {t.name}"), False
        except oracle_env.ToolError as err:
            out: dict[str, JSON] = {"code": str(err.code), "message": str(err.message)}
            if err.details is not None:
                out["details"] = err.details
            try:
                return to_json(out, f"the error of {t.name}"), True
            except HostError as bad:
                return dumps({"code": "tool_error", "message": bad.message}), True
        except HostError as err:
            return dumps({"code": "tool_error", "message": err.message}), True
        except Exception as err:
            return dumps({"code": "tool_error", "message": describe(err)}), True

    def rebuild(self, w: World) -> None:
        """Puts the world back as it was before a failed call: a fresh
        state with the calls that succeeded replayed on it."""
        state = self.new_state(w.task)
        for name, input in w.done:
            out, failed = self.execute(self.need_env().tools[name], state, json.loads(input))
            if failed:
                raise HostError("replay_diverged", f"replaying {name} to undo a failed call failed (the environment is not deterministic): {out}")
        w.state = state

    def call(self, msg: dict[str, JSON]) -> str:
        w = self.world(msg)
        t = self.need_env().tools.get(msg.get("tool"))
        if t is None:
            raise HostError("no_tool", f"no tool {msg.get('tool')}")
        input = msg.get("input")
        if input is None:
            input = {}
        kept = dumps(input)
        out, failed = self.execute(t, w.state, input)
        if failed:
            self.rebuild(w)
        else:
            w.done.append((t.name, kept))
        return '{"type":"result","id":%d,"isError":%s,"output":%s}' % (msg["id"], "true" if failed else "false", out)

    def state(self, msg: dict[str, JSON]) -> str:
        w = self.world(msg)
        if not isinstance(w.state, dict):
            raise HostError("state_not_object", f"the state is {type(w.state).__name__}, not a dict")
        return '{"type":"state","id":%d,"state":%s}' % (msg["id"], to_json(w.state, "the state"))

    def verify(self, msg: dict[str, JSON]) -> str:
        import oracle_env

        w = self.world(msg)
        task = w.task
        v = self.need_env().verifiers.get(task.get("verifierId"))
        if v is None:
            raise HostError("no_verifier", f"no verifier {task.get('verifierId')} for task {task.get('id')}")
        ctx = oracle_env.Context(msg.get("agentOutput") or "", task, msg.get("calls") or [])
        try:
            # the initial state as JSON made it, read back when needed
            checks = v.fn(w.state, json.loads(w.initial_text), ctx)
        except Exception as err:
            raise HostError("verifier_threw", f"verifier {v.id} raised {describe(err)}") from None
        if isinstance(checks, tuple):
            checks = list(checks)
        if not isinstance(checks, list):
            raise HostError("verifier_result", f"verifier {v.id} returned {type(checks).__name__}, not a list of checks")
        return '{"type":"verified","id":%d,"checks":%s}' % (msg["id"], to_json(checks, f"the checks of verifier {v.id}"))

    def close(self, msg: dict[str, JSON]) -> str:
        self.worlds.pop(msg.get("world"), None)
        return '{"type":"closed","id":%d}' % msg["id"]

    def hello(self, name: str) -> str:
        env = self.env
        tools = env.tools.values() if env else []
        verifiers = env.verifiers.values() if env else []
        return to_json({
            "type": "hello",
            "protocol": PROTOCOL,
            "name": name,
            "tools": [{"name": t.name, "description": t.description, "inputSchema": t.input_schema, "readOnly": t.read_only}
                      for t in tools],
            "verifiers": [{"id": v.id, "taskId": v.task, "name": v.name} for v in verifiers],
            "agents": True,
        }, "the hello")


# --- agents -------------------------------------------------------------------


class Stopped(Exception):
    """What call_tool raises once the rollout has ended."""


@dataclass
class Agent:
    """One running agent: its pending tool calls, by call number."""

    id: int
    pending: dict[int, queue.Queue[dict[str, JSON]]] = field(default_factory=dict)
    next: int = 0
    reason: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)


class Agents:
    """The agents running in this host, each on a thread of its own; the
    modules they come from are imported once and kept."""

    def __init__(self) -> None:
        self.running: dict[int, Agent] = {}
        self.modules: dict[str, Callable[..., Any]] = {}
        self.import_lock = threading.Lock()

    def function(self, path: str) -> Callable[..., Any]:
        with self.import_lock:
            fn = self.modules.get(path)
            if fn is None:
                try:
                    # a name of its own: agents of two folders may share a file name
                    module = import_file(path, f"oracle_agent_{len(self.modules)}")
                except HostError:
                    raise
                except BaseException as err:
                    raise HostError("agent_start_failed", f"importing {path} raised {describe(err)}{import_hint(err)}") from None
                fn = getattr(module, "agent", None)
                if not callable(fn):
                    raise HostError("agent_start_failed", f"{path} does not define agent(task, tools, call_tool); an agent module defines it")
                self.modules[path] = fn
            return fn

    def start(self, msg: dict[str, JSON]) -> None:
        a = Agent(int(msg["id"]))
        self.running[a.id] = a
        threading.Thread(target=self.run, args=(a, msg), daemon=True).start()

    def run(self, a: Agent, msg: dict[str, JSON]) -> None:
        try:
            try:
                fn = self.function(str(msg.get("module")))
            except HostError as err:
                send_error(a.id, err.code, err.message)
                return
            tools = [{"name": t.get("name"), "description": t.get("description"), "inputSchema": t.get("inputSchema")}
                     for t in msg.get("tools") or []]

            def call_tool(name: str, input: JSON = None) -> dict[str, JSON]:
                with a.lock:
                    if a.reason:
                        raise Stopped(f"Run ended: {a.reason}.")
                    a.next += 1
                    n = a.next
                    box: queue.Queue[dict[str, JSON]] = queue.Queue(1)
                    a.pending[n] = box
                send(dumps({"type": "tool_call", "id": a.id, "call": n, "tool": name, "input": {} if input is None else input}))
                answer = box.get()
                if "stopped" in answer:
                    raise Stopped(answer["stopped"])
                return answer

            try:
                out = fn(task=msg.get("task"), tools=tools, call_tool=call_tool)
                output = out.get("output") if isinstance(out, dict) else None
                send('{"type":"agent_output","id":%d,"output":%s}' % (a.id, to_json(output, "the agent's output")))
            except HostError as err:
                send_error(a.id, "agent_threw", err.message)
            except Exception as err:
                send_error(a.id, "agent_threw", describe(err))
        finally:
            self.running.pop(a.id, None)

    def result(self, msg: dict[str, JSON]) -> None:
        a = self.running.get(msg.get("id"))
        if a is None:
            return
        with a.lock:
            box = a.pending.pop(msg.get("call"), None)
        if box is not None:
            box.put({"output": msg.get("output"), "isError": msg.get("isError") is True})

    def stop(self, msg: dict[str, JSON]) -> None:
        a = self.running.get(msg.get("id"))
        if a is None:
            return
        with a.lock:
            a.reason = str(msg.get("reason") or "stopped")
            pending, a.pending = a.pending, {}
        for box in pending.values():
            box.put({"stopped": f"Run ended: {a.reason}."})


# --- the loop -----------------------------------------------------------------


def serve(host: Host) -> None:
    handlers: dict[str, Callable[[dict[str, JSON]], str]] = {
        "open": host.open, "call": host.call, "state": host.state, "verify": host.verify, "close": host.close,
    }
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            send_error(0, "bad_request", f"not JSON: {line[:60]!r}")
            continue
        if not isinstance(msg, dict):
            send_error(0, "bad_request", f"unknown request type {msg!r}")
            continue
        id = msg.get("id", 0)
        match msg.get("type"):
            case "agent":
                host.agents.start(msg)
                continue
            case "tool_result":
                host.agents.result(msg)
                continue
            case "stop":
                host.agents.stop(msg)
                continue
            case "ping":
                send('{"type":"pong","id":%d}' % int(id))
                continue
        try:
            h = handlers.get(msg.get("type"))
            if h is None:
                raise HostError("bad_request", f"unknown request type {msg.get('type')!r}")
            send(h(msg))
        except HostError as err:
            send_error(id, err.code, err.message)
        except Exception as err:
            send_error(id, "internal", describe(err))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="oracle's Python host (started by oracle)")
    parser.add_argument("--name", default="", help="the environment's name")
    parser.add_argument("--env", help="the environment module; without it the host runs agents only")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    env = None
    if args.env:
        try:
            env = load(args.env)
        except HostError as err:
            send_error(0, err.code, err.message)
            return 1
        except BaseException as err:
            send_error(0, "load_failed", f"importing {args.env} raised {describe(err)}{import_hint(err)}")
            return 1
    host = Host(env)
    send(host.hello(args.name))
    serve(host)
    return 0


if __name__ == "__main__":
    sys.exit(main())
