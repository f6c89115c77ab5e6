// Lists the mutants of one TypeScript or JavaScript file with the
// TypeScript compiler API: node mutants.cjs TYPESCRIPT_JS FILE_NAME reads
// the file's text on stdin and writes a JSON list of edits
// {"op", "start", "end", "repl"} (byte offsets into the text) on stdout.
// Descriptions (a description: property), import paths, property names,
// types and case values are left alone.
"use strict";

const ts = require(process.argv[1]);
const name = process.argv[2] || "file.ts";
const text = require("fs").readFileSync(0, "utf8");
const kind = /\.(m|c)?js$/i.test(name) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
const sf = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, kind);
const K = ts.SyntaxKind;

const edits = [];
const bytes = (pos) => Buffer.byteLength(text.slice(0, pos), "utf8");
const add = (op, start, end, repl) => edits.push({ op, start: bytes(start), end: bytes(end), repl });
const addNode = (op, node, repl) => add(op, node.getStart(sf), node.getEnd(), repl);
const src = (node) => text.slice(node.getStart(sf), node.getEnd());

const BOUNDARY = { [K.LessThanToken]: "<=", [K.LessThanEqualsToken]: "<", [K.GreaterThanToken]: ">=", [K.GreaterThanEqualsToken]: ">" };
const NEGATED = { [K.EqualsEqualsEqualsToken]: "!==", [K.ExclamationEqualsEqualsToken]: "===", [K.EqualsEqualsToken]: "!=", [K.ExclamationEqualsToken]: "==" };
const ARITHMETIC = { [K.PlusToken]: "-", [K.MinusToken]: "+", [K.AsteriskToken]: "/", [K.SlashToken]: "*" };
const LOGICAL = { [K.AmpersandAmpersandToken]: "||", [K.BarBarToken]: "&&" };
const ASSIGN = new Set([K.EqualsToken, K.PlusEqualsToken, K.MinusEqualsToken, K.AsteriskEqualsToken, K.SlashEqualsToken]);
const WRITERS = new Set(["push", "pop", "shift", "unshift", "splice", "set", "delete", "add", "clear", "fill", "reverse"]);

const isStringy = (n) => n && (n.kind === K.StringLiteral || n.kind === K.NoSubstitutionTemplateLiteral || n.kind === K.TemplateExpression);
const isWritable = (n) => n && (n.kind === K.PropertyAccessExpression || n.kind === K.ElementAccessExpression);

const skip = new Set();
function skipAll(node) {
  skip.add(node);
  ts.forEachChild(node, skipAll);
}

function visit(node) {
  if (skip.has(node)) return;
  switch (node.kind) {
    case K.ImportDeclaration:
    case K.ExportDeclaration:
    case K.ImportEqualsDeclaration:
    case K.TypeAliasDeclaration:
    case K.InterfaceDeclaration:
    case K.LiteralType:
    case K.TypeReference:
    case K.CaseClause && node.expression ? -1 : -2:
      return;
    case K.CaseClause:
      skipAll(node.expression);
      break;
    case K.PropertyAssignment:
      if (node.name && (node.name.text === "description")) {
        skipAll(node);
        return;
      }
      skip.add(node.name);
      break;
    case K.BinaryExpression: {
      const t = node.operatorToken;
      if (ASSIGN.has(t.kind)) break;
      for (const [op, table] of [["boundary", BOUNDARY], ["negate", NEGATED], ["arithmetic", ARITHMETIC], ["logical", LOGICAL]]) {
        const to = table[t.kind];
        if (to === undefined) continue;
        if (op === "arithmetic" && t.kind === K.PlusToken && (isStringy(node.left) || isStringy(node.right))) continue;
        add(op, t.getStart(sf), t.getEnd(), to);
      }
      break;
    }
    case K.IfStatement:
    case K.WhileStatement:
    case K.ConditionalExpression: {
      const test = node.kind === K.ConditionalExpression ? node.condition : node.expression;
      if (test.kind === K.PrefixUnaryExpression && test.operator === K.ExclamationToken) {
        addNode("negate", test, src(test.operand));
      } else {
        addNode("negate", test, "!(" + src(test) + ")");
      }
      break;
    }
    case K.NumericLiteral: {
      const v = Number(node.text);
      if (Number.isInteger(v) && /^[0-9]+$/.test(node.text)) addNode("constant", node, String(v + 1));
      break;
    }
    case K.StringLiteral:
    case K.NoSubstitutionTemplateLiteral:
      if (node.text !== "" && node.parent.kind !== K.ExpressionStatement) {
        addNode("empty-string", node, node.kind === K.StringLiteral ? '""' : "``");
      }
      break;
    case K.ReturnStatement:
      if (node.expression && !(node.expression.kind === K.Identifier && node.expression.text === "undefined") &&
          node.expression.kind !== K.NullKeyword) {
        addNode("return-zero", node.expression, "undefined");
      }
      break;
    case K.ExpressionStatement: {
      const e = node.expression;
      const write =
        (e.kind === K.BinaryExpression && ASSIGN.has(e.operatorToken.kind) && isWritable(e.left)) ||
        ((e.kind === K.PostfixUnaryExpression || e.kind === K.PrefixUnaryExpression) &&
          (e.operator === K.PlusPlusToken || e.operator === K.MinusMinusToken) && isWritable(e.operand)) ||
        e.kind === K.DeleteExpression ||
        (e.kind === K.CallExpression && e.expression.kind === K.PropertyAccessExpression && WRITERS.has(e.expression.name.text));
      if (write) addNode("no-write", node, ";");
      break;
    }
    case K.CallExpression: {
      const f = node.expression;
      if (f.kind === K.PropertyAccessExpression && (f.name.text === "sort" || f.name.text === "toSorted") && node.arguments.length === 1) {
        const fn = node.arguments[0];
        if ((fn.kind === K.ArrowFunction || fn.kind === K.FunctionExpression) && fn.parameters.length === 2) {
          const [a, b] = fn.parameters;
          add("sort-order", a.getStart(sf), b.getEnd(), src(b) + ", " + src(a));
        }
      }
      if (f.kind === K.PropertyAccessExpression && f.expression.kind === K.Identifier && f.expression.text === "Math" &&
          (f.name.text === "min" || f.name.text === "max")) {
        addNode("sort-order", f.name, f.name.text === "min" ? "max" : "min");
      }
      if (f.kind === K.PropertyAccessExpression && f.name.text === "localeCompare" && node.arguments.length >= 1) {
        add("sort-order", f.expression.getStart(sf), node.arguments[0].getEnd(),
          src(node.arguments[0]) + "." + "localeCompare(" + src(f.expression));
      }
      break;
    }
  }
  ts.forEachChild(node, visit);
}

visit(sf);

// an edit whose text no longer parses is no mutant
const out = [];
const buf = Buffer.from(text, "utf8");
for (const e of edits) {
  const mutated = Buffer.concat([buf.subarray(0, e.start), Buffer.from(e.repl, "utf8"), buf.subarray(e.end)]).toString("utf8");
  const m = ts.createSourceFile(name, mutated, ts.ScriptTarget.Latest, false, kind);
  if (m.parseDiagnostics && m.parseDiagnostics.length > 0) continue;
  out.push(e);
}
process.stdout.write(JSON.stringify(out));
