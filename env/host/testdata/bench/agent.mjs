// The six calls of a benchmark rollout, in the original runner's agent shape.
export default async function agent({ callTool }) {
  await callTool("get_clock", {});
  await callTool("list_open", { collection: "accounts" });
  await callTool("get_record", { collection: "accounts", id: "ACC-001" });
  await callTool("update_record", { collection: "accounts", id: "ACC-001", field: "status", value: "won" });
  await callTool("get_record", { collection: "contacts", id: "CON-002" });
  await callTool("update_record", { collection: "opportunities", id: "OPP-003", field: "notes", value: "ACC-001 won" });
  return { output: "ACC-001 is won." };
}
