// oracle's Node host: loads an environment module in the original runner's
// contract (createState, bindTools, verifiers) and runs agent modules
// (default async function agent({task, tools, callTool, signal})), speaking
// the environment protocol (docs/environment-protocol.md) on stdin and
// stdout. oracle writes this file into a private folder and starts it with
// node; it is not meant to be run by hand.
//
//   node host.mjs --name NAME [--env ENTRYPOINT] [--tsx TSX_API] --hooks HOOKS --silo SILO
//                 --cjs CJS_HOOKS [--min-node MAJOR] [--cache DIR]
//
// stdout carries protocol lines only: whatever the environment's code
// prints there (console.log, process.stdout.write) goes to stderr.
//
// With --cache, a folder of oracle's own in the user's cache, the host
// keeps there which .js files turned out to be plain CommonJS, so that its
// next start skips finding that out again (see cjs.mjs); what a module
// does is the same with or without it.

import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const PROTOCOL = 1;

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) {
  args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
}

const writeOut = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);

function send(line) {
  writeOut(line + "\n");
}

function sendError(id, code, message) {
  send(JSON.stringify({ type: "error", id, error: { code, message: String(message) } }));
}

// The Node that runs this host must be new enough: checked here, before
// anything an older Node lacks is imported, rather than by a node
// --version of oracle's before every start.
const minNode = Number(args["min-node"] ?? 20);
if (Number(process.versions.node.split(".")[0]) < minNode) {
  sendError(0, "load_failed", `${process.execPath} is Node ${process.version}; the Node host needs Node ${minNode} or newer: install it, or set ORACLE_NODE to its path`);
  process.exit(1);
}

const { register } = await import("node:module");
const { createHash } = await import("node:crypto");

// recordName is the name of the record cjs.mjs keeps in the cache folder:
// what a .js file loads as depends on this Node, its flags and the tsx (or
// none) whose hooks see it, so each of those has a record of its own.
async function recordName(tsx) {
  let version = "";
  if (tsx) {
    try {
      const { statSync } = await import("node:fs");
      const st = statSync(tsx, { bigint: true });
      version = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    } catch {
      version = "unknown";
    }
  }
  const key = [process.version, process.arch, process.execArgv.join(" "), process.env.NODE_OPTIONS ?? "", tsx ?? "", version].join("\0");
  return `cjs-${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`;
}

// errorText is the first line of what was thrown (its stack goes to stderr).
function errorText(err) {
  if (err instanceof Error) {
    const text = err.message || err.name;
    const cut = text.indexOf("\n");
    return cut < 0 ? text : text.slice(0, cut);
  }
  try {
    return typeof err === "string" ? err : JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

// A request's error, with the code the protocol names.
class HostError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// json is JSON.stringify that names what it could not write.
function json(value, what) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new HostError("not_json", `${what} is not JSON: ${errorText(err)}`);
  }
  return text === undefined ? "null" : text;
}

function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// loadHooks registers oracle's resolve hook, then tsx's, which therefore
// runs first and asks oracle's for what it resolves (see hooks.mjs), then,
// with a cache, the one that loads known plain CommonJS files without
// either (see cjs.mjs), which runs before both.
async function loadHooks() {
  register(pathToFileURL(args.hooks).href, { data: { silo: pathToFileURL(args.silo).href, root: args.root ? pathToFileURL(args.root).href + "/" : "" } });
  if (args.tsx) {
    const api = await import(pathToFileURL(args.tsx).href);
    api.register();
  }
  if (args.cache && args.cjs) {
    const { port1, port2 } = new MessageChannel();
    port1.unref();
    register(pathToFileURL(args.cjs).href, { data: { file: join(args.cache, await recordName(args.tsx)), port: port2 }, transferList: [port2] });
    port1.on("message", (msg) => {
      if (Array.isArray(msg?.exports)) {
        exportNames(msg.exports);
      }
    });
    recordPort = port1;
  }
}

// recordPort tells cjs.mjs to write what it learnt, once a module and all
// it imports are loaded; cjs.mjs answers with the large CommonJS files an
// ES module imported, and is told the names that Node's import of each
// gave (see exportNames).
let recordPort = null;

// exportNames tells cjs.mjs the named exports Node gave the import of each
// of urls, CommonJS files already imported (so that import() here only
// returns what is loaded): the keys of the module namespace. A file whose
// import failed is left out.
async function exportNames(urls) {
  const names = {};
  await Promise.all(urls.filter((u) => typeof u === "string" && u.startsWith("file:")).map(async (url) => {
    try {
      names[url] = Object.keys(await import(url)).filter((k) => k !== "default");
    } catch {
      // no names for a file whose import failed
    }
  }));
  recordPort?.postMessage({ names });
}

function saveRecord() {
  recordPort?.postMessage("save");
}

// env is the environment module, with its tools' specs and its verifiers
// by id; null for a host that runs agents only.
let env = null;

function toolMap(tools, where) {
  if (!Array.isArray(tools)) {
    throw new HostError("load_failed", `${where}: bindTools(state) returned ${typeof tools}, not an array of tools`);
  }
  const byName = new Map();
  for (const [i, t] of tools.entries()) {
    if (!isObject(t) || typeof t.name !== "string" || t.name === "" || typeof t.execute !== "function") {
      throw new HostError("load_failed", `${where}: tool ${i} of bindTools(state) has no name or no execute function`);
    }
    if (byName.has(t.name)) {
      throw new HostError("load_failed", `${where}: two tools named ${t.name}`);
    }
    byName.set(t.name, t);
  }
  return byName;
}

async function loadEnvironment(entry) {
  const mod = await import(pathToFileURL(entry).href);
  saveRecord();
  for (const [name, type] of [["createState", "function"], ["bindTools", "function"]]) {
    if (typeof mod[name] !== type) {
      throw new HostError("load_failed", `${entry} does not export ${name}(); an environment module exports createState, bindTools and verifiers`);
    }
  }
  if (!Array.isArray(mod.verifiers)) {
    throw new HostError("load_failed", `${entry} does not export verifiers (an array); an environment module exports createState, bindTools and verifiers`);
  }
  const probe = mod.createState(); // no task: the tools' specs only
  const tools = [...toolMap(mod.bindTools(probe), entry).values()].map((t) => ({
    name: t.name,
    description: typeof t.description === "string" ? t.description : "",
    inputSchema: t.inputSchema ?? { type: "object" },
    readOnly: t.readOnly === true,
  }));
  const verifiers = new Map();
  for (const [i, v] of mod.verifiers.entries()) {
    if (!isObject(v) || typeof v.id !== "string" || typeof v.check !== "function") {
      throw new HostError("load_failed", `${entry}: verifier ${i} has no id or no check function`);
    }
    if (verifiers.has(v.id)) {
      throw new HostError("load_failed", `${entry}: two verifiers with id ${v.id}`);
    }
    verifiers.set(v.id, v);
  }
  return { mod, tools, verifiers };
}

// --- worlds ------------------------------------------------------------------

const worlds = new Map();

function world(msg) {
  const w = worlds.get(msg.world);
  if (!w) {
    throw new HostError("no_world", `no world ${msg.world} is open`);
  }
  return w;
}

function stateJSON(state, what) {
  if (!isObject(state)) {
    throw new HostError("state_not_object", `${what} is ${Array.isArray(state) ? "an array" : state === null ? "null" : typeof state}, not an object`);
  }
  return json(state, what);
}

function bind(state) {
  return toolMap(env.mod.bindTools(state), "bindTools");
}

// plain reports whether v is JSON data (plain objects, arrays, strings,
// finite numbers, booleans, null), which its JSON text copies faithfully.
function plain(v) {
  if (v === null) {
    return true;
  }
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(v);
    case "object": {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          if (!plain(v[i])) {
            return false;
          }
        }
        return true;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        return false;
      }
      for (const k in v) {
        if (!plain(v[k])) {
          return false;
        }
      }
      return true;
    }
  }
  return false;
}

// initialOf is the pristine initial state of a world, for its verifier and
// to rebuild it: a copy made when the world opened (structuredClone, as the
// original runner makes it), or, for a state of JSON data, read from its
// JSON text when first needed, which is the same and cheaper.
function initialOf(w) {
  if (w.initial === undefined) {
    w.initial = JSON.parse(w.initialText);
  }
  return w.initial;
}

// lastInitial is the initial state's JSON this host last sent, by task: an
// open whose state is the same says so instead of sending it again.
const lastInitial = new Map();

function open(msg) {
  if (worlds.has(msg.world)) {
    throw new HostError("bad_request", `world ${msg.world} is already open`);
  }
  let state;
  try {
    state = env.mod.createState(msg.task); // a createState() of the original ignores it
  } catch (err) {
    throw new HostError("open_failed", `createState() threw: ${errorText(err)}`);
  }
  const text = stateJSON(state, "the state createState() returned");
  const w = { state, initialText: text, initial: plain(state) ? undefined : structuredClone(state), tools: bind(state), task: msg.task, done: [] };
  worlds.set(msg.world, w);
  const task = msg.task?.id ?? "";
  if (lastInitial.get(task) === text) {
    return `{"type":"opened","id":${msg.id},"same":true}`;
  }
  lastInitial.set(task, text);
  return `{"type":"opened","id":${msg.id},"state":${text}}`;
}

async function execute(tool, input) {
  try {
    const r = await tool.execute(input);
    if (!isObject(r)) {
      return { output: { code: "tool_error", message: `tool ${tool.name}'s execute returned ${typeof r}, not {output, isError?}` }, isError: true };
    }
    return r;
  } catch (err) {
    return { output: { code: "tool_error", message: errorText(err) }, isError: true };
  }
}

// rebuild puts the world back as it was before a failed call: a copy of the
// initial state with the calls that succeeded replayed on it.
async function rebuild(w) {
  const state = structuredClone(initialOf(w));
  const tools = bind(state);
  for (const [name, input] of w.done) {
    const r = await execute(tools.get(name), JSON.parse(input));
    if (r.isError === true) {
      throw new HostError("replay_diverged", `replaying ${name} to undo a failed call failed (the environment is not deterministic): ${json(r.output, "its output")}`);
    }
  }
  w.state = state;
  w.tools = tools;
}

async function call(msg) {
  const w = world(msg);
  const tool = w.tools.get(msg.tool);
  if (!tool) {
    throw new HostError("no_tool", `no tool ${msg.tool}`);
  }
  const input = msg.input ?? {};
  const kept = JSON.stringify(input);
  const r = await execute(tool, input);
  let isError = r.isError === true;
  let out;
  try {
    out = json(r.output ?? null, `the output of ${tool.name}`);
  } catch (err) {
    out = JSON.stringify({ code: "tool_error", message: err.message });
    isError = true;
  }
  if (isError) {
    await rebuild(w);
  } else {
    w.done.push([tool.name, kept]);
  }
  return `{"type":"result","id":${msg.id},"isError":${isError},"output":${out}}`;
}

function state(msg) {
  return `{"type":"state","id":${msg.id},"state":${stateJSON(world(msg).state, "the state")}}`;
}

async function verify(msg) {
  const w = world(msg);
  const task = w.task ?? {};
  const v = env.verifiers.get(task.verifierId);
  if (!v) {
    throw new HostError("no_verifier", `no verifier ${task.verifierId} for task ${task.id}`);
  }
  let res;
  try {
    res = await v.check(w.state, initialOf(w), { agentOutput: msg.agentOutput ?? "", task, calls: msg.calls ?? [] });
  } catch (err) {
    throw new HostError("verifier_threw", `verifier ${v.id} threw: ${errorText(err)}`);
  }
  const checks = Array.isArray(res) ? res : isObject(res) && Array.isArray(res.checks) ? res.checks : null;
  if (!checks) {
    throw new HostError("verifier_result", `verifier ${v.id} returned ${Array.isArray(res) ? "an array" : typeof res}, neither a list of checks nor an outcome with checks`);
  }
  const out = checks.map((c) => (isObject(c) ? { label: c.label, passed: c.passed, detail: c.detail, required: c.required, kind: c.kind } : c));
  return `{"type":"verified","id":${msg.id},"checks":${json(out, `the checks of verifier ${v.id}`)}}`;
}

function close(msg) {
  worlds.delete(msg.world);
  return `{"type":"closed","id":${msg.id}}`;
}

// --- agents ------------------------------------------------------------------

const agents = new Map();

async function importModule(path) {
  const m = await import(pathToFileURL(path).href);
  saveRecord();
  let fn = m.default;
  if (typeof fn !== "function" && isObject(fn) && typeof fn.default === "function") {
    fn = fn.default; // a module compiled as CommonJS
  }
  if (typeof fn !== "function") {
    throw new Error(`${path} must default-export a function: export default async function agent({ task, tools, callTool, signal })`);
  }
  return fn;
}

async function runAgent(msg) {
  const controller = new AbortController();
  const a = { controller, pending: new Map(), next: 0, reason: "" };
  agents.set(msg.id, a);
  try {
    let fn;
    try {
      fn = await importModule(msg.module);
    } catch (err) {
      sendError(msg.id, "agent_start_failed", `${msg.module} did not load: ${errorText(err)}`);
      return;
    }
    const callTool = (name, input) => {
      if (controller.signal.aborted) {
        return Promise.reject(new Error(`Run ended: ${a.reason}.`));
      }
      const id = ++a.next;
      return new Promise((resolve, reject) => {
        const line = JSON.stringify({ type: "tool_call", id: msg.id, call: id, tool: name, input: input ?? {} });
        a.pending.set(id, { resolve, reject });
        send(line);
      });
    };
    const tools = (msg.tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    const out = await fn({ task: msg.task, tools, callTool, signal: controller.signal });
    send(`{"type":"agent_output","id":${msg.id},"output":${json(isObject(out) ? out.output ?? null : null, "the agent's output")}}`);
  } catch (err) {
    sendError(msg.id, "agent_threw", errorText(err));
  } finally {
    agents.delete(msg.id);
  }
}

function toolResult(msg) {
  const a = agents.get(msg.id);
  const p = a?.pending.get(msg.call);
  if (p) {
    a.pending.delete(msg.call);
    p.resolve({ output: msg.output, isError: msg.isError === true });
  }
}

function stop(msg) {
  const a = agents.get(msg.id);
  if (!a) {
    return;
  }
  a.reason = msg.reason || "stopped";
  a.controller.abort(new Error(`Run ended: ${a.reason}.`));
  for (const p of a.pending.values()) {
    p.reject(new Error(`Run ended: ${a.reason}.`));
  }
  a.pending.clear();
}

// --- the loop ----------------------------------------------------------------

const handlers = { open, call, state, verify, close };

async function handle(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    sendError(0, "bad_request", `not JSON: ${line.slice(0, 60)}`);
    return;
  }
  switch (msg.type) {
    case "agent":
      return runAgent(msg);
    case "tool_result":
      return toolResult(msg);
    case "stop":
      return stop(msg);
    case "ping":
      return send(`{"type":"pong","id":${Number(msg.id)}}`);
  }
  const h = handlers[msg.type];
  try {
    if (!h) {
      throw new HostError("bad_request", `unknown request type ${JSON.stringify(msg.type)}`);
    }
    if (!env) {
      throw new HostError("bad_request", "this host runs agents only; it has no environment");
    }
    send(await h(msg));
  } catch (err) {
    sendError(msg.id, err instanceof HostError ? err.code : "internal", errorText(err));
  }
}

async function main() {
  try {
    await loadHooks();
    if (args.env) {
      env = await loadEnvironment(args.env);
    }
  } catch (err) {
    sendError(0, err instanceof HostError ? err.code : "load_failed", errorText(err));
    if (err instanceof HostError) {
      process.exit(1);
    }
    throw err; // Node prints it on stderr with where it is, and exits
  }
  const hello = {
    type: "hello",
    protocol: PROTOCOL,
    name: args.name ?? "",
    tools: env ? env.tools : [],
    verifiers: env ? [...env.verifiers.values()].map((v) => ({ id: v.id, taskId: v.taskId ?? "", name: v.name ?? "" })) : [],
    agents: true,
  };
  send(json(hello, "the hello"));
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on("line", (line) => {
    if (line.trim() !== "") {
      handle(line);
    }
  });
  rl.on("close", () => process.exit(0));
}

main();
