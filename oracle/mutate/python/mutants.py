"""Lists the mutants of one Python source file with the standard library's
ast: reads the file's text on stdin, writes a JSON list of edits
{"op", "start", "end", "repl"} (byte offsets into the text) on stdout.

Functions decorated @verifier (the environment's tests) and docstrings
are left alone, and so are descriptions (a description= argument, a
"description" key): they reach the agent's tool list, which no artifact
records."""

import ast
import copy
import json
import sys

BOUNDARY = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
NEGATED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
ARITHMETIC = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult}
OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
       ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
       ast.FloorDiv: "//"}
WRITERS = {"append", "extend", "insert", "update", "pop", "remove", "clear", "setdefault", "add", "discard"}


def main():
    src = sys.stdin.buffer.read()
    text = src.decode("utf-8")
    tree = ast.parse(text)
    lines = src.split(b"\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def off(lineno, col):  # col_offset is in UTF-8 bytes
        return starts[lineno - 1] + col

    def span(node):
        return off(node.lineno, node.col_offset), off(node.end_lineno, node.end_col_offset)

    def seg(node):
        a, b = span(node)
        return src[a:b].decode("utf-8")

    edits = []
    skip = set()

    def add(op, node, repl):
        a, b = span(node)
        edits.append({"op": op, "start": a, "end": b, "repl": repl})

    def replaced(node, **fields):
        n = copy.copy(node)
        for k, v in fields.items():
            setattr(n, k, v)
        return ast.unparse(n)

    def splice(op, node, left, right, old, new, whole):
        """Replaces the operator old between left and right by new, keeping
        the text around it; where the gap holds more than the operator
        (parentheses, a comment), the mutated node as ast.unparse writes it."""
        a, b = off(left.end_lineno, left.end_col_offset), off(right.lineno, right.col_offset)
        text = src[a:b].decode("utf-8")
        if " ".join(text.split()) == old:
            lead = text[:len(text) - len(text.lstrip())]
            trail = text[len(text.rstrip()):]
            edits.append({"op": op, "start": a + len(lead.encode()), "end": b - len(trail.encode()), "repl": new})
        else:
            add(op, node, whole)

    def skip_strings(node):
        for n in ast.walk(node):
            if isinstance(n, ast.Constant):
                skip.add(id(n))

    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            skip.add(id(body[0].value))  # a docstring
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name == "verifier":
                    for n in ast.walk(node):
                        skip.add(id(n))
        if isinstance(node, ast.keyword) and node.arg == "description":
            skip_strings(node.value)
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value == "description":
                    skip_strings(k)
                    skip_strings(v)
        if isinstance(node, ast.JoinedStr):
            skip_strings(node)  # the parts of an f-string are no literals of their own

    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno"):
            continue
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            t = type(node.ops[0])
            for op, table in (("boundary", BOUNDARY), ("negate", NEGATED)):
                if t in table:
                    splice(op, node, node.left, node.comparators[0], OPS[t], OPS[table[t]], replaced(node, ops=[table[t]()]))
        elif isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            if not any(isinstance(s, ast.Constant) and isinstance(s.value, str) for s in (node.left, node.right)):
                t = type(node.op)
                splice("arithmetic", node, node.left, node.right, OPS[t], OPS[ARITHMETIC[t]], replaced(node, op=ARITHMETIC[t]()))
        elif isinstance(node, ast.BoolOp) and len(node.values) == 2:
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            splice("logical", node, node.values[0], node.values[1], old, new,
                   replaced(node, op=ast.Or() if isinstance(node.op, ast.And) else ast.And()))
        elif isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, int) and not isinstance(v, bool):
                add("constant", node, repr(v + 1))
            elif isinstance(v, str) and v != "":
                add("empty-string", node, '""')
        elif isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                add("return-zero", node.value, "None")
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], (ast.Subscript, ast.Attribute)):
                add("no-write", node, "pass")
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            f = node.value.func
            if isinstance(f, ast.Attribute) and f.attr in WRITERS:
                add("no-write", node, "pass")
        elif isinstance(node, ast.Delete):
            add("no-write", node, "pass")
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            test = node.test
            if id(test) not in skip:
                if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                    add("negate", test, seg(test.operand) if isinstance(test.operand, (ast.Name, ast.Call, ast.Attribute, ast.Subscript)) else "(" + seg(test.operand) + ")")
                else:
                    add("negate", test, "not (" + seg(test) + ")")
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in ("sorted", "sort"):
                rev = [k for k in node.keywords if k.arg == "reverse"]
                if rev:
                    add("sort-order", rev[0].value, "not (" + seg(rev[0].value) + ")")
                else:
                    end = span(node)[1]
                    edits.append({"op": "sort-order", "start": end - 1, "end": end, "repl": ", reverse=True)"})
            elif name in ("min", "max") and isinstance(f, ast.Name):
                add("sort-order", f, "max" if name == "min" else "min")

    out = []
    for e in edits:
        mutated = src[:e["start"]] + e["repl"].encode("utf-8") + src[e["end"]:]
        try:
            ast.parse(mutated)
        except SyntaxError:
            continue  # an edit that does not parse is no mutant
        out.append(e)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
