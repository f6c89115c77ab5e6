// A world of a CRM's size for the benchmarks of the Node host: twelve
// collections of thirty records (360 records, about 70 KB of JSON), a read
// tool of a few bytes, reads and writes of records, a listing.
const COLLECTIONS = ["accounts", "contacts", "leads", "opportunities", "activities", "users", "stages", "products", "quotes", "orders", "tickets", "notes"];

const seed = { now: "2026-03-16" };
for (const [c, name] of COLLECTIONS.entries()) {
  const rows = {};
  for (let i = 1; i <= 30; i++) {
    const id = `${name.slice(0, 3).toUpperCase()}-${String(i).padStart(3, "0")}`;
    rows[id] = {
      id,
      name: `${name} number ${i}`,
      ownerId: `USR-${String((i % 7) + 1).padStart(3, "0")}`,
      amount: { amount: i * 1250.5 + c, currency: "USD" },
      status: i % 3 ? "open" : "closed",
      createdDate: `2026-0${1 + (i % 9)}-1${i % 10}`,
      tags: [`t${i % 4}`, `c${c}`],
      notes: null,
    };
  }
  seed[name] = rows;
}

export function createState() {
  return structuredClone(seed);
}

const object = (properties, required = []) => ({ type: "object", properties, required, additionalProperties: false });

export function bindTools(state) {
  return [
    { name: "get_clock", description: "today", inputSchema: object({}), readOnly: true, async execute() { return { output: { today: state.now } }; } },
    {
      name: "get_record", description: "one record", readOnly: true,
      inputSchema: object({ collection: { type: "string" }, id: { type: "string" } }, ["collection", "id"]),
      async execute({ collection, id }) {
        const r = state[collection]?.[id];
        return r ? { output: structuredClone(r) } : { output: { code: "not_found", message: `no ${id}` }, isError: true };
      },
    },
    {
      name: "list_open", description: "open records of a collection", readOnly: true,
      inputSchema: object({ collection: { type: "string" } }, ["collection"]),
      async execute({ collection }) {
        return { output: Object.values(state[collection] ?? {}).filter((r) => r.status === "open").map((r) => ({ id: r.id, name: r.name, amount: r.amount })) };
      },
    },
    {
      name: "update_record", description: "sets a field of a record",
      inputSchema: object({ collection: { type: "string" }, id: { type: "string" }, field: { type: "string" }, value: {} }, ["collection", "id", "field", "value"]),
      async execute({ collection, id, field, value }) {
        const r = state[collection]?.[id];
        if (!r) {
          return { output: { code: "not_found", message: `no ${id}` }, isError: true };
        }
        r[field] = value;
        return { output: { id, [field]: value } };
      },
    },
  ];
}

export const verifiers = [
  {
    id: "VER-001", taskId: "TASK-001", name: "ACC-001 is won",
    check: (final) => [{ label: "ACC-001 is won", passed: final.accounts["ACC-001"].status === "won", detail: "", required: true }],
  },
];
