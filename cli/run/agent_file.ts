/**
 * `--agent` / `agent run <agent>` resolution (a path, or an id looked up in
 * the project's `.relavium/agents/`) and agent file loading with
 * `parseAgentYaml`. Errors name the file, the line and the key path. The
 * YAML library and zod load only when an agent file is read.
 *
 * @module
 */
import { join, resolve } from "../../schema/paths.ts";
import type { Agent } from "../../schema/agent.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";

/**
 * What an agent argument names.
 */
export type AgentRef = { kind: "path"; path: string } | {
  kind: "id";
  id: string;
};

/**
 * Tool ids an authored agent may list. An unknown id is a
 * load error.
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
 */
export function classifyAgentRef(ref: string): AgentRef {
  if (/[\\/]/.test(ref) || /\.ya?ml$/i.test(ref)) {
    return { kind: "path", path: ref };
  }
  return { kind: "id", id: ref };
}

/**
 * Decodes and validates agent file text.
 *
 * @param text The YAML text.
 * @param file The file name used in errors.
 * @returns The agent as authored, or an `invalid_agent` fault naming the
 * file, the line and the key path of every problem.
 */
export async function parseAgentText(
  text: string,
  file: string,
): Promise<Result<Agent, CliFault>> {
  const { parseAgentYaml } = await import("../../schema/agent_file.ts");
  const r = parseAgentYaml(text, { file, knownTools: KNOWN_TOOL_IDS });
  return r.ok
    ? r
    : err(fault("invalid_agent", `Invalid agent: ${r.error.message}`));
}

/**
 * Reads and validates an agent file.
 *
 * @param path The file path.
 * @returns The agent, or a fault: `not_found`, `invalid_agent` (also a
 * directory, a device, FIFO or socket, or a file over 1 MiB) or
 * `internal` (unreadable).
 */
export async function loadAgentFile(
  path: string,
): Promise<Result<Agent, CliFault>> {
  const { describeFileProblem, readRegularFile } = await import(
    "../../host/regular_file.ts"
  );
  const read = await readRegularFile(path);
  if (!read.ok) {
    const problem = read.error;
    if (problem.kind === "missing") {
      return err(fault("not_found", `Agent file not found: ${path}`));
    }
    if (problem.kind === "unreadable") {
      return err(
        fault("internal", `Cannot read agent file ${path}: ${problem.why}`),
      );
    }
    return err(fault(
      "invalid_agent",
      `Invalid agent: ${describeFileProblem(path, problem)}`,
    ));
  }
  const text = new TextDecoder().decode(read.value);
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
    const { KEBAB_ID } = await import("../../schema/agent.ts");
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
