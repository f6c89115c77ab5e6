// Module resolution hooks of oracle's Node host (registered with
// module.register before tsx's, so that tsx asks them what it resolves):
//
//   - "@burn0/silo", the original runner's authoring package, resolves as
//     usual where the environment's project has it (inside the project's
//     folder: one in a node_modules above it, which anyone who can write
//     there could have planted, is not taken), and otherwise to the
//     compatible module oracle supplies;
//   - a TypeScript file of the project (.ts, outside node_modules) loads as
//     an ES module even where no package.json says "type": "module", as
//     environments written for the original runner expect.

let silo = "";
let root = ""; // the project's folder, as a file: URL ending in "/"

export function initialize(data) {
  silo = data?.silo ?? "";
  root = data?.root ?? "";
}

export async function resolve(specifier, context, next) {
  let r;
  try {
    r = await next(specifier, context);
  } catch (err) {
    if (specifier === "@burn0/silo" && silo !== "" && err?.code === "ERR_MODULE_NOT_FOUND") {
      return { url: silo, format: "module", shortCircuit: true };
    }
    throw err;
  }
  if (specifier === "@burn0/silo" && silo !== "" && root !== "" && !String(r.url).startsWith(root)) {
    return { url: silo, format: "module", shortCircuit: true };
  }
  if (typeof r.url === "string" && r.url.startsWith("file:") && r.url.endsWith(".ts") && !r.url.includes("/node_modules/") && r.format !== "module") {
    return { ...r, format: "module" };
  }
  return r;
}
