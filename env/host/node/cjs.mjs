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

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// A record over this size, or with more entries, is dropped and begun
// again (a project's node_modules has a few thousand .js files at most).
const maxBytes = 4 << 20;
const maxEntries = 20000;

let file = "";
let known = new Map();
let saving = null;
let changed = false;

export function initialize(data) {
  file = typeof data?.file === "string" ? data.file : "";
  known = read(file);
  const port = data?.port;
  if (port !== undefined && typeof port.on === "function") {
    port.on("message", write);
    port.unref();
  }
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
      if (typeof v === "string" && entries.size < maxEntries) {
        entries.set(k, v);
      }
    }
  } catch {
    // no record yet, or none worth reading
  }
  return entries;
}

function identity(p) {
  const st = fs.statSync(p, { bigint: true });
  if (!st.isFile()) {
    throw new Error("not a file");
  }
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
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
  // wx: a name of this host's own, never a file (or a link) already there
  const tmp = `${file}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(tmp, JSON.stringify(Object.fromEntries(known)), { mode: 0o600, flag: "wx" });
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

export async function load(url, context, next) {
  const format = context.format ?? "";
  if (!url.startsWith("file:") || !url.endsWith(".js") || (format !== "" && format !== "commonjs") || !plainAttributes(context)) {
    return next(url, context);
  }
  let p, key;
  try {
    p = fileURLToPath(url);
    key = `${identity(p)}:${format}`;
  } catch {
    return next(url, context);
  }
  if (known.get(p) === key) {
    return { format: "commonjs", responseURL: url, source: null, shortCircuit: true };
  }
  const r = await next(url, context);
  if (r?.format === "commonjs" && r.source == null && (r.responseURL === undefined || r.responseURL === url)) {
    known.set(p, key);
    save();
  } else if (known.delete(p)) {
    save();
  }
  return r;
}
