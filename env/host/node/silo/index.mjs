// The authoring helpers of the original runner's package @burn0/silo, as
// oracle's Node host supplies them to an environment whose project does not
// have that package: the same names, the same behaviour as its documentation
// describes, and oracle's two further check kinds (forbid, covered).

/** A tool's structured failure, which the agent reads as {code, message, details?}. */
export class ToolError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.details = details;
  }
}

/** toolError(code, message, details?) makes a ToolError to throw from a tool's run. */
export function toolError(code, message, details) {
  return new ToolError(code, message, details);
}

/** defineTool returns the tool as it is: {name, description, inputSchema, run(state, input), readOnly?}. */
export function defineTool(tool) {
  return tool;
}

function failure(err) {
  if (err instanceof ToolError) {
    const out = { code: err.code, message: err.message };
    if (err.details !== undefined) {
      out.details = err.details;
    }
    return out;
  }
  return { code: "invalid_state", message: err instanceof Error ? err.message : String(err) };
}

/**
 * bindTools binds tools to one rollout's state: each becomes
 * {name, description, inputSchema, execute(input)}, whose execute runs
 * run(state, input) and resolves to {output} (a copy of what run returned)
 * or, when run throws, to {output: {code, message, details?}, isError: true}.
 */
export function bindTools(state, tools) {
  return tools.map((tool) => {
    const bound = {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      async execute(input) {
        try {
          const output = await tool.run(state, input ?? {});
          return { output: structuredClone(output) ?? null };
        } catch (err) {
          return { output: failure(err), isError: true };
        }
      },
    };
    if (tool.readOnly === true) {
      bound.readOnly = true;
    }
    return bound;
  });
}

/** check is a required check: failing it fails the task. */
export function check(label, passed, detail = "") {
  return { label, passed, detail, required: true };
}

/** optional is corroborating evidence: it moves the reward, it cannot fail the task alone. */
export function optional(label, passed, detail = "") {
  return { label, passed, detail, required: false };
}

/** forbid guards an effect that must not happen: violated true confirms it and fails the task. */
export function forbid(label, violated, detail = "") {
  return { label, passed: !violated, detail, required: true, kind: "forbidden" };
}

/** covered states whether a required observation is complete; incomplete makes the verdict inconclusive. */
export function covered(label, complete, detail = "") {
  return { label, passed: complete, detail, required: false, kind: "coverage" };
}

function kindOf(c) {
  return c.kind ?? (c.required ? "required" : "optional");
}

/**
 * defineVerifier wraps a verifier's check(final, initial, context), which
 * returns a list of checks, into one whose check returns the graded outcome
 * {verifierId, taskId, passed, reward, requiredPassed, requiredTotal,
 * failedRequired, checks}. A list without a required check throws: a task
 * cannot be graded on optional evidence alone.
 */
export function defineVerifier(spec) {
  return {
    id: spec.id,
    taskId: spec.taskId,
    name: spec.name,
    check(finalState, initialState, context) {
      const checks = spec.check(finalState, initialState, context);
      if (!checks.some((c) => kindOf(c) === "required")) {
        throw new Error(`${spec.id} returned no required checks; a task cannot be graded on optional evidence alone.`);
      }
      const counted = checks.filter((c) => kindOf(c) !== "coverage");
      const gating = counted.filter((c) => c.required);
      const failed = gating.filter((c) => !c.passed);
      const incomplete = checks.some((c) => kindOf(c) === "coverage" && !c.passed);
      const passed = counted.filter((c) => c.passed).length;
      return {
        verifierId: spec.id,
        taskId: spec.taskId,
        passed: failed.length === 0 && !incomplete,
        reward: counted.length === 0 ? 0 : Math.round((passed / counted.length) * 100) / 100,
        requiredPassed: gating.length - failed.length,
        requiredTotal: gating.length,
        failedRequired: failed.map((c) => c.label),
        checks,
      };
    },
  };
}
