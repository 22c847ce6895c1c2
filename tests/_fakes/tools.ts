/** A fake tool registry: handlers by name, records every dispatch. */
import type { ToolDef } from "../../llm/provider.ts";
import type {
  ToolCall,
  ToolDispatchContext,
  ToolOutcome,
  ToolRegistry,
} from "../../tools/registry.ts";

/** A handler returns the model-facing result text, or a full outcome. */
export type FakeHandler = (
  args: unknown,
  ctx: ToolDispatchContext,
) => Promise<string | ToolOutcome> | string | ToolOutcome;

/** The fake registry plus what it saw. */
export interface FakeRegistry extends ToolRegistry {
  /** Every dispatched call, in order. */
  readonly calls: ToolCall[];
}

/** Builds a registry whose tools are the given handlers. */
export function createFakeRegistry(
  handlers: Record<string, FakeHandler>,
): FakeRegistry {
  const calls: ToolCall[] = [];
  return {
    calls,
    advertise(granted): ToolDef[] {
      return Object.keys(handlers)
        .filter((n) => granted.includes(n))
        .map((name) => ({ name, parameters: { type: "object" } }));
    },
    async dispatch(call, ctx): Promise<ToolOutcome> {
      calls.push(structuredClone(call));
      const handler = handlers[call.name];
      if (handler === undefined || !ctx.granted.includes(call.name)) {
        return {
          kind: "feedback",
          toolId: "unknown_tool",
          displayInput: {},
          summary: "unknown tool",
          modelResult: "Unknown tool",
          outcome: "error",
          code: "tool_failed",
        };
      }
      const out = await handler(call.args, ctx);
      if (typeof out !== "string") return out;
      return {
        kind: "ok",
        toolId: call.name,
        displayInput: call.args as Record<string, unknown>,
        summary: out.slice(0, 500),
        modelResult: out,
      };
    },
  };
}
