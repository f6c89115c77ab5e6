"""oracle's Python host: loads an environment module written against
oracle_env (create_state, @tool, @verifier) and speaks the environment
protocol (docs/environment-protocol.md) on stdin and stdout. oracle writes
this file into a private folder and starts it with python3; it is not meant
to be run by hand.

    python3 host.py --name NAME --env ENTRYPOINT

stdout carries protocol lines only: what the environment's code prints goes
to stderr.
"""

import importlib.util
import json
import os
import sys

PROTOCOL = 1

_out = sys.stdout.buffer
sys.stdout = sys.stderr


def send(text):
    _out.write(text.encode("utf-8") + b"\n")
    _out.flush()


def dumps(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class HostError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def send_error(id, code, message):
    send(dumps({"type": "error", "id": id, "error": {"code": code, "message": str(message)}}))


def describe(err):
    text = str(err)
    return type(err).__name__ + (": " + text if text else "")


def to_json(value, what):
    try:
        return dumps(value)
    except (TypeError, ValueError) as err:
        raise HostError("not_json", "%s is not JSON: %s" % (what, err))


def parse_args(argv):
    args = {}
    for i in range(0, len(argv) - 1, 2):
        args[argv[i].lstrip("-")] = argv[i + 1]
    return args


def load(entry):
    folder = os.path.dirname(os.path.abspath(entry))
    if folder not in sys.path:
        sys.path.insert(1, folder)  # after the host's folder: its oracle_env wins
    name = os.path.splitext(os.path.basename(entry))[0]
    spec = importlib.util.spec_from_file_location(name, entry)
    if spec is None or spec.loader is None:
        raise HostError("load_failed", "%s is not a Python module" % entry)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    if not callable(getattr(module, "create_state", None)):
        raise HostError("load_failed", "%s does not define create_state(); an environment module defines it and registers its tools and verifiers with oracle_env's @tool and @verifier" % entry)
    import oracle_env

    tools, verifiers = {}, {}
    for t in oracle_env._tools:
        if t.name in tools:
            raise HostError("load_failed", "%s: two tools named %s" % (entry, t.name))
        tools[t.name] = t
    for v in oracle_env._verifiers:
        if v.id in verifiers:
            raise HostError("load_failed", "%s: two verifiers with id %s" % (entry, v.id))
        verifiers[v.id] = v
    return module, tools, verifiers


class Host(object):
    def __init__(self, module, tools, verifiers):
        self.module = module
        self.tools = tools
        self.verifiers = verifiers
        self.worlds = {}
        self.last_initial = {}

    def world(self, msg):
        w = self.worlds.get(msg.get("world"))
        if w is None:
            raise HostError("no_world", "no world %s is open" % msg.get("world"))
        return w

    def new_state(self):
        try:
            state = self.module.create_state()
        except Exception as err:
            raise HostError("open_failed", "create_state() raised %s" % describe(err))
        if not isinstance(state, dict):
            raise HostError("state_not_object", "create_state() returned %s, not a dict" % type(state).__name__)
        return state

    def open(self, msg):
        if msg.get("world") in self.worlds:
            raise HostError("bad_request", "world %s is already open" % msg.get("world"))
        state = self.new_state()
        text = to_json(state, "the state create_state() returned")
        task = msg.get("task") or {}
        self.worlds[msg.get("world")] = {"state": state, "initial_text": text, "task": task, "done": []}
        # an initial state the same as the last one sent for the task is not sent again
        if self.last_initial.get(task.get("id")) == text:
            return '{"type":"opened","id":%d,"same":true}' % msg["id"]
        self.last_initial[task.get("id")] = text
        return '{"type":"opened","id":%d,"state":%s}' % (msg["id"], text)

    def execute(self, t, state, input):
        import oracle_env

        try:
            return to_json(t.fn(state, input), "the output of %s" % t.name), False
        except oracle_env.ToolError as err:
            out = {"code": str(err.code), "message": str(err.message)}
            if err.details is not None:
                out["details"] = err.details
            try:
                return to_json(out, "the error of %s" % t.name), True
            except HostError as bad:
                return dumps({"code": "tool_error", "message": bad.message}), True
        except HostError as err:
            return dumps({"code": "tool_error", "message": err.message}), True
        except Exception as err:
            return dumps({"code": "tool_error", "message": describe(err)}), True

    def rebuild(self, w):
        """Puts the world back as it was before a failed call: a fresh
        state with the calls that succeeded replayed on it."""
        state = self.new_state()
        for name, input in w["done"]:
            out, failed = self.execute(self.tools[name], state, json.loads(input))
            if failed:
                raise HostError("replay_diverged", "replaying %s to undo a failed call failed (the environment is not deterministic): %s" % (name, out))
        w["state"] = state

    def call(self, msg):
        w = self.world(msg)
        t = self.tools.get(msg.get("tool"))
        if t is None:
            raise HostError("no_tool", "no tool %s" % msg.get("tool"))
        input = msg.get("input")
        if input is None:
            input = {}
        kept = dumps(input)
        out, failed = self.execute(t, w["state"], input)
        if failed:
            self.rebuild(w)
        else:
            w["done"].append((t.name, kept))
        return '{"type":"result","id":%d,"isError":%s,"output":%s}' % (msg["id"], "true" if failed else "false", out)

    def state(self, msg):
        w = self.world(msg)
        if not isinstance(w["state"], dict):
            raise HostError("state_not_object", "the state is %s, not a dict" % type(w["state"]).__name__)
        return '{"type":"state","id":%d,"state":%s}' % (msg["id"], to_json(w["state"], "the state"))

    def verify(self, msg):
        import oracle_env

        w = self.world(msg)
        task = w["task"]
        v = self.verifiers.get(task.get("verifierId"))
        if v is None:
            raise HostError("no_verifier", "no verifier %s for task %s" % (task.get("verifierId"), task.get("id")))
        try:
            # the initial state as JSON made it, read back when needed
            checks = v.fn(w["state"], json.loads(w["initial_text"]), oracle_env.Context(msg.get("agentOutput") or "", task))
        except Exception as err:
            raise HostError("verifier_threw", "verifier %s raised %s" % (v.id, describe(err)))
        if isinstance(checks, tuple):
            checks = list(checks)
        if not isinstance(checks, list):
            raise HostError("verifier_result", "verifier %s returned %s, not a list of checks" % (v.id, type(checks).__name__))
        return '{"type":"verified","id":%d,"checks":%s}' % (msg["id"], to_json(checks, "the checks of verifier %s" % v.id))

    def close(self, msg):
        self.worlds.pop(msg.get("world"), None)
        return '{"type":"closed","id":%d}' % msg["id"]


def main():
    args = parse_args(sys.argv[1:])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        host = Host(*load(args["env"]))
    except HostError as err:
        send_error(0, err.code, err.message)
        return 1
    except BaseException as err:
        send_error(0, "load_failed", "importing %s raised %s" % (args.get("env"), describe(err)))
        return 1
    hello = {
        "type": "hello",
        "protocol": PROTOCOL,
        "name": args.get("name", ""),
        "tools": [{"name": t.name, "description": t.description, "inputSchema": t.input_schema, "readOnly": t.read_only}
                  for t in host.tools.values()],
        "verifiers": [{"id": v.id, "taskId": v.task, "name": v.name} for v in host.verifiers.values()],
    }
    send(to_json(hello, "the hello"))
    handlers = {"open": host.open, "call": host.call, "state": host.state, "verify": host.verify, "close": host.close}
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            send_error(0, "bad_request", "not JSON: %r" % line[:60])
            continue
        id = msg.get("id", 0) if isinstance(msg, dict) else 0
        try:
            h = handlers.get(msg.get("type")) if isinstance(msg, dict) else None
            if h is None:
                raise HostError("bad_request", "unknown request type %r" % (msg.get("type") if isinstance(msg, dict) else msg))
            send(h(msg))
        except HostError as err:
            send_error(id, err.code, err.message)
        except Exception as err:
            send_error(id, "internal", describe(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
