// One rollout the way the original runner makes it: a fresh process that
// imports the environment and the agent, builds the world, runs the agent
// with its tools, grades it and writes the result. The benchmarks start
// one such process per rollout to compare with oracle's hosts.
//
//   node [--import tsx] runone.mjs ENVIRONMENT AGENT TASK.json
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [envPath, agentPath, taskPath] = process.argv.slice(2);
const mod = await import(pathToFileURL(envPath).href);
const agent = (await import(pathToFileURL(agentPath).href)).default;
const task = JSON.parse(readFileSync(taskPath, "utf8"));
const state = mod.createState();
const initial = structuredClone(state);
const tools = new Map(mod.bindTools(state).map((t) => [t.name, t]));
let calls = 0;
const callTool = async (name, input) => {
  calls += 1;
  return tools.get(name).execute(input);
};
const out = await agent({ task: task.instruction, tools: [...tools.values()].map(({ name, description, inputSchema }) => ({ name, description, inputSchema })), callTool, signal: new AbortController().signal });
const verifier = mod.verifiers.find((v) => v.id === task.verifierId);
const outcome = verifier.check(state, initial, { agentOutput: String(out?.output ?? ""), task });
const checks = Array.isArray(outcome) ? outcome : outcome.checks;
process.stdout.write(JSON.stringify({ passed: checks.every((c) => c.passed || !c.required), calls, final: state }, null, 2) + "\n");
