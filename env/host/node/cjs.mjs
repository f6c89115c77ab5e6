// A load hook of oracle's Node host, registered after tsx's so that it runs
// first: a .js file that an earlier start of the host saw load as plain
// CommonJS (format commonjs, no source: Node's CommonJS loader reads it)
// loads so again without the work that found it out, Node's detection of
// module syntax and tsx's scan for it, which read and parse the whole
// file (the TypeScript compiler that the original runner's package
// imports is 9 MB of .js).
//
// A file is known by its path, its identity (device, inode, size,
// modification and change times: a file written again or replaced is
// looked at afresh) and the format its resolution gave (none, or
// commonjs: a package.json that changes its "type" changes that). The
// record is one per Node, Node flags and tsx (see host.mjs), in oracle's
// own folder of the user's cache. It only ever saves work: an entry that
// does not match the file exactly as it is now, or a record that is
// missing, unreadable, too big or not a record, is no record, and the
// file loads as it would without this hook. Two hosts that start at once
// each write the whole record under a name of their own and rename it
// into place, so a reader sees one record or the other, never a mix.
//
// A large such file (256 KiB or more) that an ES module imported also
// keeps the names of the exports Node's import of it gave (the host asks
// Node for them once the import is done), and what its reexports depend
// on: every file a require("...") of a string in it resolves to, as
// CommonJS resolves it, with that file's identity and, in turn, what its
// own requires resolve to. A later import of it, while its identity and
// all of those still hold, loads a small ES module in its place that
// requires the file through the CommonJS loader, as Node's own import of a
// CommonJS file does (Module._load; the same module instance as any
// require of it), and exports module.exports as default and each recorded
// name as Node's import does (an own property's value, or undefined). That
// skips Node's reading of the whole file for its export names (a lexer
// over 9 MB of .js). A require of such a file from a CommonJS module that
// a load hook gave the source of (Node resolves and loads those through
// the hooks) resolves to the file's URL with #oracle-cjs added, which
// loads as Node loads it.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

// A record over this size, or with more entries, is dropped and begun
// again (a project's node_modules has a few thousand .js files at most).
const maxBytes = 4 << 20;
const maxEntries = 20000;

// A file's export names are kept from this size on (below it Node finds
// them in a few milliseconds), up to so many names, and while what its
// requires resolve to is at most so many files of at most so many bytes.
const minNamedBytes = 256 << 10;
const maxNames = 50000;
const maxDepFiles = 256;
const maxDepBytes = 64 << 20;

// The fragment a require of a file with recorded names resolves to, from a
// CommonJS module whose source a load hook gave.
const direct = "#oracle-cjs";

// The end of the entry of a large plain CommonJS file whose names are not
// kept (its requires are too many, or one is not plainly a string).
const unnamed = "!";

let file = "";
// path → identity key (plain CommonJS), or {k: key, n: names, d: deps}
let known = new Map();
let saving = null;
let changed = false;
let port = null;
// URLs of large plain CommonJS files loaded in this process, whose export
// names the host is to be asked for
const asking = new Set();
// URLs of CommonJS modules loaded with a source from a load hook
const sourced = new Set();

export function initialize(data) {
  file = typeof data?.file === "string" ? data.file : "";
  known = read(file);
  port = data?.port;
  if (port !== undefined && typeof port.on === "function") {
    port.on("message", message);
    port.unref();
  } else {
    port = null;
  }
}

function message(msg) {
  if (msg === "save") {
    if (asking.size > 0 && port !== null) {
      port.postMessage({ exports: [...asking] });
      asking.clear();
    }
    write();
  } else if (typeof msg === "object" && msg !== null && typeof msg.names === "object" && msg.names !== null) {
    for (const [url, names] of Object.entries(msg.names)) {
      named(url, names);
    }
    write();
  }
}

// named records names, the export names of Node's import of url, where
// the file is still as it was recorded, plain CommonJS.
function named(url, names) {
  let p, key;
  try {
    p = fileURLToPath(url);
    key = identity(p);
  } catch {
    return;
  }
  const e = known.get(p);
  const k = typeof e === "string" ? e : e?.k;
  if (typeof k !== "string" || !k.startsWith(key + ":") || k.endsWith(unnamed)) {
    return;
  }
  if (!validNames(names)) {
    known.set(p, k + unnamed);
    changed = true;
    return;
  }
  const d = deps(p);
  // k + "!": plain CommonJS whose names are not kept, not asked for again
  known.set(p, d === null ? k + unnamed : { k, n: names, d });
  changed = true;
}

function validNames(n) {
  if (!Array.isArray(n) || n.length > maxNames) {
    return false;
  }
  const seen = new Set();
  for (const name of n) {
    if (typeof name !== "string" || name === "default" || !name.isWellFormed() || seen.has(name)) {
      return false;
    }
    seen.add(name);
  }
  return true;
}

function validDeps(d) {
  return Array.isArray(d) && d.length <= maxDepFiles * 64 && d.every((x) => Array.isArray(x) && x.length === 4 && x.every((s) => typeof s === "string"));
}

// requires returns the strings that require( calls in source name (a
// superset of those Node's lexer takes for reexports, which are all
// require("...") or require('...'), with blanks or comments before the
// string), or null where one is not plainly a string (an escape in it).
function requires(source) {
  const specs = new Set();
  const re = /\brequire\b/g;
  for (let m = re.exec(source); m !== null; m = re.exec(source)) {
    let i = skipBlank(source, m.index + 7);
    if (source[i] !== "(") {
      continue;
    }
    i = skipBlank(source, i + 1);
    const q = source[i];
    if (q !== "'" && q !== '"' && q !== "`") {
      continue;
    }
    const end = source.indexOf(q, i + 1);
    if (end < 0) {
      return null;
    }
    const spec = source.slice(i + 1, end);
    if (/[\\\n\r]|\$\{/.test(spec)) {
      return null;
    }
    specs.add(spec);
  }
  return [...specs];
}

// skipBlank returns the index of the first character from i on that is
// neither white space nor in a comment.
function skipBlank(source, i) {
  for (;;) {
    while (i < source.length && /\s/.test(source[i])) {
      i++;
    }
    if (source.startsWith("/*", i)) {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (source.startsWith("//", i)) {
      const end = source.indexOf("\n", i + 2);
      i = end < 0 ? source.length : end + 1;
    } else {
      return i;
    }
  }
}

// deps returns what the export names of the file at p depend on besides
// the file itself: for each require("x") in it, and in turn in each file
// one resolves to, [from, x, what x resolves to from there ("" for
// nothing or a builtin), that file's identity]; or null where that is too
// much, unreadable, or comes back to p.
function deps(p) {
  const out = [];
  const seen = new Set([p]);
  let bytes = 0;
  const visit = (from) => {
    let source;
    try {
      source = fs.readFileSync(from, "utf8");
    } catch {
      return false;
    }
    bytes += source.length;
    const specs = requires(source);
    if (specs === null || bytes > maxDepBytes) {
      return false;
    }
    for (const spec of specs) {
      if (isBuiltin(spec)) {
        continue; // as it is for this Node, whose record this is
      }
      const to = resolveFrom(from, spec);
      if (to === "") {
        out.push([from, spec, "", ""]);
        continue;
      }
      if (to === p) {
        return false;
      }
      let id;
      try {
        id = identity(to);
      } catch {
        return false;
      }
      out.push([from, spec, to, id]);
      if (seen.has(to) || to.endsWith(".json") || to.endsWith(".node")) {
        continue;
      }
      seen.add(to);
      if (seen.size > maxDepFiles || !visit(to)) {
        return false;
      }
    }
    return true;
  };
  return visit(p) ? out : null;
}

const requirers = new Map();

// resolveFrom is what require(spec) in the file from resolves to: a file's
// path, or "" for a builtin or nothing.
function resolveFrom(from, spec) {
  if (isBuiltin(spec)) {
    return "";
  }
  try {
    let r = requirers.get(from);
    if (r === undefined) {
      r = createRequire(from);
      requirers.set(from, r);
    }
    const to = r.resolve(spec);
    return path.isAbsolute(to) ? to : "";
  } catch {
    return "";
  }
}

// holds reports whether deps d of the file at p are as they were
// recorded: each require resolves from p, or from a file an earlier one
// resolved to, to the same file, and that file has the same identity.
function holds(p, d) {
  const reached = new Set([p]);
  for (const [from, spec, to, id] of d) {
    if (!reached.has(from) || resolveFrom(from, spec) !== to) {
      return false;
    }
    if (to !== "") {
      try {
        if (identity(to) !== id) {
          return false;
        }
      } catch {
        return false;
      }
      reached.add(to);
    }
  }
  return true;
}

// wrapper is the ES module that loads the CommonJS file at p as Node's
// import of it does (Module._load(p), as Node's own loader calls it), with
// the named exports names, each read once after the load as Node reads
// them (only an own property counts; a getter that throws gives
// undefined). Node reads them in the order its lexer found them, this in
// the namespace's order: only getters with side effects could tell.
function wrapper(p, names) {
  const lines = [
    'import Module from "node:module";',
    `const m = Module._load(${JSON.stringify(p)}, undefined, false);`,
    "const has = Object.prototype.hasOwnProperty;",
    "function get(k) {",
    "  if (!has.call(m, k)) return undefined;",
    "  try { return m[k]; } catch { return undefined; }",
    "}",
  ];
  const exported = ["m as default"];
  names.forEach((n, i) => {
    lines.push(`const e${i} = get(${JSON.stringify(n)});`);
    exported.push(`e${i} as ${JSON.stringify(n)}`);
  });
  lines.push(`export { ${exported.join(", ")} };`);
  return lines.join("\n") + "\n";
}

// read returns the entries of the record at p, or none.
function read(p) {
  const entries = new Map();
  try {
    const st = fs.statSync(p);
    if (!st.isFile() || st.size > maxBytes) {
      return entries;
    }
    const data = JSON.parse(fs.readFileSync(p, "utf8"));
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      return entries;
    }
    for (const [k, v] of Object.entries(data)) {
      if (entries.size >= maxEntries) {
        break;
      }
      if (typeof v === "string") {
        entries.set(k, v);
      } else if (typeof v === "object" && v !== null && typeof v.k === "string" && validNames(v.n) && validDeps(v.d)) {
        entries.set(k, { k: v.k, n: v.n, d: v.d });
      }
    }
  } catch {
    // no record yet, or none worth reading
  }
  return entries;
}

function identity(p) {
  return identityAndSize(p)[0];
}

function identityAndSize(p) {
  const st = fs.statSync(p, { bigint: true });
  if (!st.isFile()) {
    throw new Error("not a file");
  }
  return [`${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`, Number(st.size)];
}

// save writes the record a little later, once for a burst of new files,
// or when the host says a module and its imports are loaded.
function save() {
  changed = true;
  if (saving === null) {
    saving = setTimeout(write, 20);
  }
}

function write() {
  clearTimeout(saving);
  saving = null;
  if (file === "" || !changed) {
    return;
  }
  changed = false;
  if (known.size > maxEntries) {
    known.clear();
  }
  let text = JSON.stringify(Object.fromEntries(known));
  if (Buffer.byteLength(text) > maxBytes) {
    // too big to be read again: the names go, the formats stay
    for (const [p, e] of known) {
      if (typeof e === "object") {
        known.set(p, e.k);
      }
    }
    text = JSON.stringify(Object.fromEntries(known));
  }
  // wx: a name of this host's own, never a file (or a link) already there
  const tmp = `${file}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(tmp, text, { mode: 0o600, flag: "wx" });
    fs.renameSync(tmp, file);
  } catch {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing was written
    }
  }
}

function plainAttributes(context) {
  const a = context.importAttributes ?? context.importAssertions;
  return a === undefined || a === null || Object.keys(a).length === 0;
}

// resolve gives a require of a file with recorded names, from a CommonJS
// module whose source a load hook gave, the file's URL with #oracle-cjs:
// Node's loader keeps one module per URL and expects that of a required
// file to be its own CommonJS one.
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (sourced.has(context.parentURL) && typeof r?.url === "string" && r.url.startsWith("file:") && !r.url.includes("#")) {
    try {
      if (typeof known.get(fileURLToPath(r.url)) === "object") {
        return { ...r, url: r.url + direct };
      }
    } catch {
      // not a file's URL
    }
  }
  return r;
}

export async function load(url, context, next) {
  const format = context.format ?? "";
  if (!url.startsWith("file:") || !url.endsWith(".js") || (format !== "" && format !== "commonjs") || !plainAttributes(context)) {
    return note(url, await next(url, context));
  }
  let p, key, size;
  try {
    p = fileURLToPath(url);
    [key, size] = identityAndSize(p);
    key = `${key}:${format}`;
  } catch {
    return note(url, await next(url, context));
  }
  const e = known.get(p);
  if (e === key || e === key + unnamed) {
    if (e === key && size >= minNamedBytes) {
      asking.add(url);
    }
    return { format: "commonjs", responseURL: url, source: null, shortCircuit: true };
  }
  if (typeof e === "object" && e.k === key) {
    if (holds(p, e.d)) {
      return { format: "module", responseURL: url, source: wrapper(p, e.n), shortCircuit: true };
    }
    // what its reexports depend on changed: its names are found afresh
    known.set(p, key);
    asking.add(url);
    save();
    return { format: "commonjs", responseURL: url, source: null, shortCircuit: true };
  }
  const r = note(url, await next(url, context));
  if (r?.format === "commonjs" && r.source == null && (r.responseURL === undefined || r.responseURL === url)) {
    known.set(p, key);
    if (size >= minNamedBytes) {
      asking.add(url);
    }
    save();
  } else if (known.delete(p)) {
    save();
  }
  return r;
}

// note keeps the URLs of CommonJS modules loaded with a source.
function note(url, r) {
  if (r?.format === "commonjs" && r.source != null) {
    sourced.add(typeof r.responseURL === "string" ? r.responseURL : url);
  }
  return r;
}
