/**
 * Custom tools, declared once in the shape of the Vercel AI SDK's
 * `tool({ description, inputSchema, execute })`: the registry derives the
 * parser, the model-facing JSON Schema and the policy from it.
 *
 * @module
 */
import {
  defineTool,
  type ToolDefinition,
  type ToolInputSchema,
  type ToolRunResult,
} from "./tool.ts";

/** What `execute` gets besides its parsed input. */
export interface ToolExecuteOptions {
  /** Aborts with the turn: pass it to everything that takes one. */
  signal: AbortSignal;
  /** The workspace directory (canonical, as configured). */
  workingDir: string;
}

/** A custom tool's declaration, the argument of {@linkcode tool}. */
export interface Tool<I> {
  /** The tool's name as the model sees it: `[A-Za-z0-9_-]`, 1–64 chars. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /**
   * The input contract: a strict zod object. Calls are parsed with it
   * (every problem goes back to the model with its key path), and the
   * model sees its JSON Schema (input side; `.describe()` texts included).
   */
  inputSchema: ToolInputSchema<I>;
  /**
   * Runs one parsed call. The value it returns (or resolves to) goes back
   * to the model as text: a string as is, anything else as JSON. A throw
   * is a `tool_failed` outcome carrying the error's message.
   */
  execute(input: I, options: ToolExecuteOptions): unknown;
  /**
   * `true` for a tool without side effects: it runs without approval and
   * in every mode. Otherwise (the default) each call is governed like an
   * `os` action: the turn policy's approval decides, and the read-only
   * modes refuse it.
   */
  readOnly?: boolean;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function messageOf(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.trim() === "" ? "the tool failed" : text;
}

/**
 * Declares a custom tool once. Register the result with
 * `createToolRegistry({ tools: [...allBuiltinTools(), myTool], … })` and
 * grant it by name like a built-in.
 *
 * @param spec Name, description, input schema, `execute`, `readOnly`.
 * @returns The tool definition the registry runs.
 * @throws {TypeError} When the name is not 1–64 of `[A-Za-z0-9_-]`.
 *
 * @example A read-only tool, called through a registry
 * ```ts
 * import { createDenoToolEffects, createToolRegistry, tool } from "@relavium/session/tools";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const weather = tool({
 *   name: "weather",
 *   description: "The weather in a city",
 *   inputSchema: z.strictObject({ city: z.string().min(1).describe("City name") }),
 *   execute: ({ city }) => ({ city, sky: "clear" }),
 *   readOnly: true,
 * });
 * const registry = createToolRegistry({
 *   tools: [weather],
 *   host: createDenoToolEffects(),
 *   context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
 *   permissions: () => "granted",
 * });
 * assert.deepEqual(registry.advertise(["weather"], undefined)[0]?.parameters, {
 *   type: "object",
 *   properties: { city: { type: "string", minLength: 1, description: "City name" } },
 *   required: ["city"],
 *   additionalProperties: false,
 * });
 * const ctx = {
 *   signal: new AbortController().signal,
 *   granted: ["weather"],
 *   interactive: false,
 *   emitApproval: () => {},
 *   admit: () => ({ allow: true as const }),
 * };
 * const ok = await registry.dispatch({ id: "c1", name: "weather", args: { city: "Oslo" } }, ctx);
 * assert.equal(ok.kind === "ok" && ok.modelResult, '{"city":"Oslo","sky":"clear"}');
 * const bad = await registry.dispatch({ id: "c2", name: "weather", args: {} }, ctx);
 * assert.equal(
 *   bad.kind === "feedback" && bad.modelResult,
 *   "Invalid arguments for weather: city: Invalid input: expected string, received undefined",
 * );
 * ```
 */
export function tool<I>(spec: Tool<I>): ToolDefinition<I> {
  if (!NAME.test(spec.name)) {
    throw new TypeError(
      `Cannot declare tool ${
        JSON.stringify(spec.name)
      }: a name is 1-64 letters, digits, '_' or '-'`,
    );
  }
  const { execute } = spec;
  return defineTool(spec.inputSchema, {
    id: spec.name,
    description: spec.description,
    policy: {
      fsScoped: false,
      spawnsProcess: false,
      requiresGateApproval: false,
      ...(spec.readOnly === true ? {} : { os: true }),
    },
    async dispatch(input, _host, ctx): Promise<ToolRunResult> {
      try {
        const value = await execute(input, {
          signal: ctx.signal,
          workingDir: ctx.workingDir,
        });
        return { ok: true, value };
      } catch (e) {
        return { ok: false, error: { kind: "failed", message: messageOf(e) } };
      }
    },
  });
}
