"""The benchmark world of bench.mjs, for the Python host."""

import json

from oracle_env import ToolError, check, tool, verifier

COLLECTIONS = ["accounts", "contacts", "leads", "opportunities", "activities", "users", "stages", "products",
               "quotes", "orders", "tickets", "notes"]

_seed = {"now": "2026-03-16"}
for c, name in enumerate(COLLECTIONS):
    rows = {}
    for i in range(1, 31):
        rid = "%s-%03d" % (name[:3].upper(), i)
        rows[rid] = {"id": rid, "name": "%s number %d" % (name, i), "ownerId": "USR-%03d" % (i % 7 + 1),
                     "amount": {"amount": i * 1250.5 + c, "currency": "USD"}, "status": "open" if i % 3 else "closed",
                     "createdDate": "2026-0%d-1%d" % (1 + i % 9, i % 10), "tags": ["t%d" % (i % 4), "c%d" % c], "notes": None}
    _seed[name] = rows
_SEED = json.dumps(_seed)


def create_state():
    return json.loads(_SEED)


def obj(props, required=()):
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


@tool(description="today", input_schema=obj({}), read_only=True)
def get_clock(state, input):
    return {"today": state["now"]}


@tool(description="one record", input_schema=obj({"collection": {"type": "string"}, "id": {"type": "string"}}, ["collection", "id"]), read_only=True)
def get_record(state, input):
    r = state.get(input["collection"], {}).get(input["id"])
    if r is None:
        raise ToolError("not_found", "no " + input["id"])
    return r


@tool(description="open records of a collection", input_schema=obj({"collection": {"type": "string"}}, ["collection"]), read_only=True)
def list_open(state, input):
    return [{"id": r["id"], "name": r["name"], "amount": r["amount"]} for r in state.get(input["collection"], {}).values() if r["status"] == "open"]


@tool(description="sets a field of a record",
      input_schema=obj({"collection": {"type": "string"}, "id": {"type": "string"}, "field": {"type": "string"}, "value": {}}, ["collection", "id", "field", "value"]))
def update_record(state, input):
    r = state.get(input["collection"], {}).get(input["id"])
    if r is None:
        raise ToolError("not_found", "no " + input["id"])
    r[input["field"]] = input["value"]
    return {"id": input["id"], input["field"]: input["value"]}


@verifier(id="VER-001", task="TASK-001", name="ACC-001 is won")
def ver_001(final, initial, ctx):
    return [check("ACC-001 is won", final["accounts"]["ACC-001"]["status"] == "won")]
