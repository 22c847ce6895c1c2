/**
 * One registered tool per MCP tool: the server's description and input
 * schema (`$schema` dropped; the top level must be an object schema),
 * a top-level argument check (an object, the required keys, no unknown
 * key when the schema closes its properties; the server checks the
 * rest), policy `egress: "mcp"` (governed: approval decides every
 * call), a preview naming server, tool, arguments and the tool's hints
 * (a `destructiveHint` makes the approval non-cacheable; no hint lowers
 * approval), and a dispatch that calls the tool with the server's
 * timeout and the turn's abort signal.
 *
 * @module
 */
import type { ValidationIssue } from "../../schema/issues.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { boundModelText } from "../bound.ts";
import type { ToolDefinition, ToolRunResult } from "../tool.ts";
import type {
  McpAnnotations,
  McpConnection,
  McpToolInfo,
} from "./connection.ts";
import { mcpResultText } from "./result.ts";

/** The arguments of an MCP tool: any JSON object. */
export type McpArgs = Record<string, unknown>;

/** The model-facing schema of a listed tool, or why it is unusable. */
export function modelSchema(
  info: McpToolInfo,
): Result<Record<string, unknown>, string> {
  const { $schema: _, ...schema } = info.inputSchema;
  if (schema["type"] !== "object") {
    return err("its input schema is not an object schema");
  }
  const props = schema["properties"];
  if (
    props !== undefined &&
    (typeof props !== "object" || props === null || Array.isArray(props))
  ) {
    return err("its input schema's properties are not an object");
  }
  return ok(schema);
}

function checkTop(
  schema: Record<string, unknown>,
  raw: unknown,
): Result<McpArgs, ValidationIssue[]> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return err([{ path: "", message: "arguments must be a JSON object" }]);
  }
  const args = raw as McpArgs;
  const issues: ValidationIssue[] = [];
  const required = Array.isArray(schema["required"])
    ? schema["required"].filter((k): k is string => typeof k === "string")
    : [];
  for (const key of required) {
    if (!(key in args)) issues.push({ path: key, message: "is required" });
  }
  const props = schema["properties"] as Record<string, unknown> | undefined;
  if (schema["additionalProperties"] === false) {
    for (const key of Object.keys(args)) {
      if (props === undefined || !(key in props)) {
        issues.push({ path: key, message: "unknown key" });
      }
    }
  }
  return issues.length === 0 ? ok(args) : err(issues);
}

/** The hints worth showing a person, as words. */
export function hintWords(a: McpAnnotations | undefined): string[] {
  if (a === undefined) return [];
  const out: string[] = [];
  if (a.readOnlyHint === true) out.push("read-only");
  if (a.destructiveHint === true) out.push("destructive");
  if (a.idempotentHint === true) out.push("idempotent");
  if (a.openWorldHint === true) out.push("open-world");
  return out;
}

/** `text` with each of `secrets` replaced by `[redacted]`. */
function withhold(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s !== "") out = out.replaceAll(s, "[redacted]");
  return out;
}

/**
 * The tool definition of one MCP tool.
 *
 * @param id The tool id (`mcp_<server>_<tool>`, already unique).
 * @param info The tool as listed.
 * @param connection Its server's connection.
 * @param schema Its model schema (from {@linkcode modelSchema}).
 * @param maxResultBytes The server's own result bound, if lower.
 * @param secrets Values read from the environment for the server: each
 *   is withheld from its results and failures.
 * @returns The definition.
 */
export function mcpToolDefinition(
  id: string,
  info: McpToolInfo,
  connection: McpConnection,
  schema: Record<string, unknown>,
  maxResultBytes?: number,
  secrets: readonly string[] = [],
): ToolDefinition<McpArgs> {
  const hints = hintWords(info.annotations);
  const destructive = info.annotations?.destructiveHint === true;
  return {
    id,
    description: info.description === ""
      ? `The ${info.name} tool of the MCP server ${connection.id}`
      : info.description,
    llmParams: schema,
    parse: (raw) => checkTop(schema, raw),
    policy: {
      fsScoped: false,
      spawnsProcess: false,
      egress: "mcp",
      requiresGateApproval: false,
    },
    policyTarget(args) {
      const shown = `${connection.id} ${info.name} ${JSON.stringify(args)}`;
      return {
        url: `mcp://${connection.id}/${encodeURIComponent(info.name)}`,
        command: hints.length === 0 ? shown : `${shown} [${hints.join(", ")}]`,
        ...(destructive ? { uncacheable: true } : {}),
      };
    },
    async dispatch(args, _host, ctx): Promise<ToolRunResult> {
      const r = await connection.callTool(info.name, args, ctx.signal);
      if (!r.ok) {
        return {
          ok: false,
          error: r.kind === "closed"
            ? {
              kind: "unavailable",
              message: `(MCP server ${connection.id} ${r.message})`,
            }
            : { kind: "failed", message: withhold(r.message, secrets) },
        };
      }
      const text = withhold(mcpResultText(r), secrets);
      if (maxResultBytes === undefined) return { ok: true, value: text };
      const bounded = boundModelText(text, {
        maxBytes: Math.min(maxResultBytes, ctx.limits.resultBytes),
        maxLines: ctx.limits.resultLines,
      });
      return { ok: true, value: bounded.text };
    },
  };
}
