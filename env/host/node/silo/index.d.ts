// Types of the authoring helpers oracle's Node host supplies as @burn0/silo
// (see index.mjs). They follow the original runner's documented contract.

export type JsonSchema = Record<string, unknown>;
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type ToolInput = Record<string, unknown>;
export type ToolErrorCode =
  | "invalid_input"
  | "not_found"
  | "invalid_state"
  | "not_allowed"
  | "limit_exceeded"
  | "conflict"
  | (string & {});

export type ToolDefinition = { name: string; description: string; inputSchema: JsonSchema };
export type ToolResult = { output: unknown; isError?: boolean };
export type Tool = ToolDefinition & { readOnly?: boolean; execute: (input: unknown) => Promise<ToolResult> };
export type SiloTool<State> = ToolDefinition & { readOnly?: boolean; run: (state: State, input: ToolInput) => unknown };

export type CheckKind = "required" | "optional" | "forbidden" | "coverage";
export type VerifierCheck = { label: string; passed: boolean; detail: string; required: boolean; kind?: CheckKind };
export type SiloTask = {
  id: string;
  title: string;
  instruction: string;
  difficulty?: string;
  verifierId: string;
  entities?: string[];
  /** the task's own data for its world, as the task file has it */
  initialState?: JsonValue;
  /** the world the environment makes for the task, by a name it knows */
  variant?: string;
};
/** one tool call of the rollout, as calls.json records it: output or error */
export type ToolCall = { tool: string; input: JsonValue; output?: JsonValue; error?: { code: string; message: string; details?: JsonValue } };
export type VerifierContext = { agentOutput: string; task: SiloTask; calls: ToolCall[] };
export type VerifierOutcome = {
  verifierId: string;
  taskId: string;
  passed: boolean;
  reward: number;
  requiredPassed: number;
  requiredTotal: number;
  failedRequired: string[];
  checks: VerifierCheck[];
};
export type VerifierSpec<State> = {
  id: string;
  taskId: string;
  name: string;
  check: (finalState: State, initialState: State, context: VerifierContext) => VerifierCheck[];
};
export type SiloVerifier = {
  id: string;
  taskId: string;
  name: string;
  check: (finalState: unknown, initialState: unknown, context: VerifierContext) => VerifierOutcome;
};
export type EnvironmentModule = {
  /** task is the task of the world being made; undefined when the host binds the tools to learn them */
  createState(task?: SiloTask): unknown;
  bindTools(state: unknown): Tool[];
  verifiers: SiloVerifier[];
};

export declare class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly details: unknown;
  constructor(code: ToolErrorCode, message: string, details?: unknown);
}
export declare function toolError(code: ToolErrorCode, message: string, details?: unknown): ToolError;
export declare function defineTool<State>(tool: SiloTool<State>): SiloTool<State>;
export declare function bindTools<State>(state: State, tools: SiloTool<State>[]): Tool[];
export declare function defineVerifier<State>(spec: VerifierSpec<State>): SiloVerifier;
export declare function check(label: string, passed: boolean, detail?: string): VerifierCheck;
export declare function optional(label: string, passed: boolean, detail?: string): VerifierCheck;
export declare function forbid(label: string, violated: boolean, detail?: string): VerifierCheck;
export declare function covered(label: string, complete: boolean, detail?: string): VerifierCheck;
