/**
 * `--agent` / `agent run <agent>` resolution (DECISIONS.md 21) and agent
 * file loading: YAML (core schema, one mapping document) then the strict
 * `parseAgent`. Errors name the file, the line and the key path. The YAML
 * library is imported only here, when an agent file is read
 * (DECISIONS.md 36).
 *
 * @module
 */
import { join, resolve } from "node:path";
import type { Agent } from "../../schema/agent.ts";
import { KEBAB_ID, parseAgent } from "../../schema/agent.ts";
import { formatPath } from "../../schema/issues.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";
import { type YamlPositions, yamlPositions } from "./yaml_positions.ts";

/** Aliases beyond this are refused (alias-expansion bombs). */
const MAX_ALIASES = 100;

/**
 * What an agent argument names.
 *
 * @example Value
 * ```ts
 * import type { AgentRef } from "./agent_file.ts";
 * const r: AgentRef = { kind: "id", id: "reviewer" };
 * ```
 */
export type AgentRef = { kind: "path"; path: string } | {
  kind: "id";
  id: string;
};

/**
 * Tool ids an authored agent may list (tools.md §2). An unknown id is a
 * load error (DECISIONS.md 34).
 *
 * @example Check
 * ```ts
 * import { KNOWN_TOOL_IDS } from "./agent_file.ts";
 * import assert from "node:assert/strict";
 * assert.ok(KNOWN_TOOL_IDS.includes("read_file"));
 * ```
 */
export const KNOWN_TOOL_IDS: readonly string[] = [
  "read_file",
  "list_directory",
  "write_file",
  "run_command",
  "git_status",
  "git_commit",
  "http_request",
  "web_search",
  "mcp_call",
  "read_clipboard",
  "notify",
];

/**
 * Classifies an agent argument: a path when it contains a separator or
 * ends in `.yaml`/`.yml`, else an id.
 *
 * @param ref The argument.
 * @returns The classification.
 *
 * @example Path or id
 * ```ts
 * import { classifyAgentRef } from "./agent_file.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(classifyAgentRef("reviewer"), { kind: "id", id: "reviewer" });
 * assert.deepEqual(classifyAgentRef("a.agent.yaml"), { kind: "path", path: "a.agent.yaml" });
 * assert.deepEqual(classifyAgentRef("agents/x"), { kind: "path", path: "agents/x" });
 * ```
 */
export function classifyAgentRef(ref: string): AgentRef {
  if (/[\\/]/.test(ref) || /\.ya?ml$/i.test(ref)) {
    return { kind: "path", path: ref };
  }
  return { kind: "id", id: ref };
}

function splitIssuePath(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[1] !== undefined) out.push(m[1]);
  }
  return out;
}

/**
 * Decodes and validates agent file text.
 *
 * @param text The YAML text.
 * @param file The file name used in errors.
 * @returns The agent as authored, or an `invalid_agent` fault.
 *
 * @example A misspelt key names its line
 * ```ts
 * import { parseAgentText } from "./agent_file.ts";
 * import assert from "node:assert/strict";
 * const r = await parseAgentText("id: a\nmodel: m\nprovider: openai\nsystem_prompt: s\ncolour: red\n", "a.agent.yaml");
 * assert.equal(r.ok, false);
 * if (!r.ok) assert.equal(r.error.message, "Invalid agent: a.agent.yaml:5: colour: unknown key");
 * ```
 */
export async function parseAgentText(
  text: string,
  file: string,
): Promise<Result<Agent, CliFault>> {
  const YAML = await import("js-yaml");
  const bad = (message: string): { ok: false; error: CliFault } =>
    err(fault("invalid_agent", `Invalid agent: ${message}`));
  let value: unknown;
  let positions: YamlPositions;
  try {
    // Core schema: no timestamps, no custom tags; duplicate keys and a
    // second document are errors.
    value = YAML.load(text, { schema: YAML.CORE_SCHEMA });
    positions = yamlPositions(text);
  } catch (e) {
    const mark = (e as { mark?: { line?: number } }).mark;
    const reason = (e as { reason?: string }).reason ??
      "cannot be read as YAML";
    if (/single document|input is empty|expected a document/.test(reason)) {
      return bad(`${file}: must be a single mapping document`);
    }
    const where = typeof mark?.line === "number" ? `:${mark.line + 1}` : "";
    return bad(`${file}${where}: ${reason.replace(/ \(\d+:\d+\)$/, "")}`);
  }
  if (positions.aliases > MAX_ALIASES) {
    return bad(`${file}: too many YAML aliases`);
  }
  const lineFor = (path: string): string => {
    const parts = splitIssuePath(path);
    for (let n = parts.length; n > 0; n--) {
      const line = positions.lines.get(formatPath(parts.slice(0, n)));
      if (line !== undefined) return `:${line}`;
    }
    return "";
  };
  const parsed = parseAgent(value, file);
  if (parsed.ok) {
    const unknown = (parsed.value.tools ?? []).findIndex((t) =>
      !KNOWN_TOOL_IDS.includes(t)
    );
    if (unknown === -1) return ok(parsed.value);
    return bad(
      `${file}${
        lineFor(`tools[${unknown}]`)
      }: tools[${unknown}]: unknown tool "${parsed.value.tools?.[unknown]}"`,
    );
  }
  const lines = parsed.error.issues.map((issue) =>
    `${file}${lineFor(issue.path)}: ${
      issue.path === "" ? "(root)" : issue.path
    }: ${issue.message}`
  );
  return bad(lines.join("\n"));
}

/**
 * Reads and validates an agent file.
 *
 * @param path The file path.
 * @returns The agent, or a fault: `not_found` or `invalid_agent`.
 *
 * @example Missing file
 * ```ts
 * import { loadAgentFile } from "./agent_file.ts";
 * import assert from "node:assert/strict";
 * const r = await loadAgentFile("/nonexistent/a.agent.yaml");
 * assert.equal(r.ok ? "" : r.error.code, "not_found");
 * ```
 */
export async function loadAgentFile(
  path: string,
): Promise<Result<Agent, CliFault>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return err(fault("not_found", `Agent file not found: ${path}`));
    }
    if (e instanceof Deno.errors.IsADirectory) {
      return err(
        fault("invalid_agent", `Invalid agent: ${path} is a directory`),
      );
    }
    const why = e instanceof Error ? e.name : "unknown error";
    return err(fault("internal", `Cannot read agent file ${path}: ${why}`));
  }
  return await parseAgentText(text, path);
}

/**
 * Resolves an agent argument to a file and loads it: a path is relative to
 * the effective cwd; an id is looked up as
 * `<project>/.relavium/agents/<id>.agent.yaml`.
 *
 * @param ref The `--agent` / `agent run` argument.
 * @param where The effective cwd and the project root, if any.
 * @returns The agent and its file, or a fault.
 *
 * @example An id needs a project
 * ```ts
 * import { resolveAgentRef } from "./agent_file.ts";
 * import assert from "node:assert/strict";
 * const r = await resolveAgentRef("reviewer", { cwd: "/tmp" });
 * assert.equal(r.ok ? "" : r.error.code, "not_found");
 * ```
 */
export async function resolveAgentRef(
  ref: string,
  where: { cwd: string; projectRoot?: string },
): Promise<Result<{ agent: Agent; file: string }, CliFault>> {
  const kind = classifyAgentRef(ref);
  let file: string;
  if (kind.kind === "path") {
    file = resolve(where.cwd, kind.path);
  } else {
    if (!KEBAB_ID.test(kind.id)) {
      return err(fault(
        "invalid_agent",
        `Invalid agent id "${kind.id}": expected a kebab-case id or a file path`,
      ));
    }
    if (where.projectRoot === undefined) {
      return err(fault(
        "not_found",
        `No agent "${kind.id}": no project (.relavium/ folder) found from ${where.cwd}`,
      ));
    }
    file = join(
      where.projectRoot,
      ".relavium",
      "agents",
      `${kind.id}.agent.yaml`,
    );
    try {
      await Deno.stat(file);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        return err(
          fault("not_found", `No agent "${kind.id}": ${file} does not exist`),
        );
      }
    }
  }
  const loaded = await loadAgentFile(file);
  return loaded.ok ? ok({ agent: loaded.value, file }) : loaded;
}
