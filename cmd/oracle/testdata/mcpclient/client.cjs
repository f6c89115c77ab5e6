// Drives `oracle serve` with the official TypeScript MCP client
// (@modelcontextprotocol/sdk), over stdio, one server process per session.
//
//   node client.cjs NODE_MODULES RUNS_DIR COMMAND [ARGS...]
//
// COMMAND ARGS start the server for crm TASK-008. Prints "ok" on success;
// any failed check throws and exits non-zero.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

const [nodeModules, runs, command, ...args] = process.argv.slice(2);
const sdk = createRequire(path.join(nodeModules, 'noop.js'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');

function check(ok, what) {
  if (!ok) throw new Error('check failed: ' + what);
}

async function connect() {
  const client = new Client({ name: 'ts-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
  await client.connect(transport);
  return client;
}

function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

function results() {
  return fs.readdirSync(runs)
    .filter((name) => !name.startsWith('.'))
    .map((name) => JSON.parse(fs.readFileSync(path.join(runs, name, 'result.json'), 'utf8')));
}

async function main() {
  const client = await connect();
  const instructions = client.getInstructions() || '';
  check(instructions.includes('Rosalind Achebe'), 'instructions hold the task: ' + instructions);

  const prompt = await client.getPrompt({ name: 'TASK-008' });
  check(prompt.messages[0].content.text.includes('Pebblecreek Dental'), 'the prompt is the instruction');

  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  check(byName.get_lead && byName.get_lead.inputSchema.properties.leadId, 'get_lead is listed with its schema');
  check(byName.get_lead.description.length > 0, 'get_lead has a description');
  check(byName.get_lead.annotations && byName.get_lead.annotations.readOnlyHint === true, 'get_lead is readOnlyHint');
  check(byName.submit_answer, 'submit_answer is listed');

  // an invalid input: a tool result with isError, naming the pointer, never a JSON-RPC error
  let r = await client.callTool({ name: 'get_lead', arguments: { leadId: 7 } });
  check(r.isError === true && text(r).includes('/leadId'), 'invalid input rejected with a pointer: ' + text(r));
  r = await client.callTool({ name: 'get_lead', arguments: { leadId: 'LEAD-999' } });
  check(r.isError === true && text(r).includes('not_found'), 'a tool error: ' + text(r));
  r = await client.callTool({ name: 'update_lead', arguments: {
    actorUserId: 'USR-002', leadId: 'LEAD-007', status: 'disqualified',
    disqualifyReason: 'Student research project, no buying intent' } });
  check(!r.isError, 'update_lead: ' + text(r));
  r = await client.callTool({ name: 'submit_answer', arguments: { answer: "Disqualified Rosalind Achebe's lead (LEAD-007)." } });
  check(!r.isError && !/pass|reward|verdict/i.test(text(r)), 'submit_answer, no grade in the reply: ' + text(r));

  // the run folder is written before the reply
  const first = results();
  check(first.length === 1, 'one run folder after submit_answer, got ' + first.length);
  check(first[0].verdict === 'pass' && first[0].toolCalls === 3 && first[0].toolErrors === 2,
    'result.json: ' + JSON.stringify(first[0]));
  await client.close();

  // a second session gets a fresh world
  const second = await connect();
  r = await second.callTool({ name: 'get_lead', arguments: { leadId: 'LEAD-007' } });
  check(!r.isError && !text(r).includes('disqualified'), 'second session sees the lead as it was: ' + text(r));
  await second.close();
  console.log('ok');
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
