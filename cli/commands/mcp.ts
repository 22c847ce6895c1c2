/**
 * MCP from the command line: `relavium mcp list` connects the servers and
 * lists their state and tools; `relavium trust <agent file>` approves the
 * MCP stdio servers written inline in an agent file (their exact command,
 * arguments and environment names), recorded in the Relavium home beside
 * the trusted project files. The MCP SDK loads only for `mcp list`.
 *
 * @module
 */
import type { Agent } from "../../schema/agent.ts";
import type { CliCommand } from "../args.ts";
import { loadCliConfig, type LoadedConfig } from "../config/config.ts";
import { resolveAgentRef } from "../run/agent_file.ts";
import { approvedServers, inlineStdioServers } from "../run/mcp_trust.ts";
import { recordTrust, type TrustedFiles } from "../config/trust_store.ts";
import { fault } from "../fault.ts";
import { stripControl } from "../io/control.ts";
import {
  type CommandEnv,
  type CommandResult,
  configRequestOf,
} from "../command_env.ts";

/**
 * Approves the inline MCP stdio servers of an agent file.
 *
 * @param ctx The command context.
 * @param file The agent file (absolute).
 * @param relaviumDir The Relavium home.
 * @returns 0, or a fault: the agent file's own (`not_found`,
 * `invalid_agent`), `not_found` when it declares no stdio server, or
 * `internal` when the trust file cannot be written.
 */
export async function trustAgentServers(
  ctx: CommandEnv,
  file: string,
  relaviumDir: string,
): Promise<CommandResult> {
  const found = await resolveAgentRef(file, { cwd: ctx.cwd });
  if (!found.ok) return found.error;
  const rows = await inlineStdioServers(found.value.agent, found.value.file);
  if (rows.length === 0) {
    return fault(
      "not_found",
      `Nothing to approve: ${
        stripControl(file)
      } declares no MCP stdio server inline`,
    );
  }
  const entries: TrustedFiles = {};
  for (const r of rows) entries[r.key] = r.hash;
  const saved = await recordTrust(relaviumDir, entries);
  if (!saved.ok) return saved.error;
  if (ctx.globals.json) {
    ctx.io.stdout.write(
      `${
        JSON.stringify({
          approved: rows.map((r) => ({
            server: r.server.id,
            command: r.server.command,
            args: r.server.args ?? [],
            env: Object.keys(r.server.env ?? {}),
          })),
        })
      }\n`,
    );
    return 0;
  }
  ctx.io.stdout.write(
    rows.map((r) =>
      `Approved MCP server ${r.server.id} of ${stripControl(file)}: ${
        stripControl(
          [r.server.command ?? "", ...(r.server.args ?? [])].join(" "),
        )
      }${
        Object.keys(r.server.env ?? {}).length === 0
          ? ""
          : ` (env ${Object.keys(r.server.env ?? {}).join(", ")})`
      }; a change to it needs approval again\n`
    ).join(""),
  );
  return 0;
}

/** One server's state, as `mcp list` and `doctor` report it. */
export interface McpServerRow {
  /** The server id. */
  id: string;
  /** Whether it connected, failed, or was not started (and why). */
  state: "connected" | "failed" | "not_started";
  /** Its tool ids, when connected. */
  tools?: string[];
  /** Why it failed or was not started (a stdio server's stderr tail). */
  reason?: string;
}

/** The pseudo-agent naming every enabled server of the global config. */
export function globalServersAgent(config: LoadedConfig): Agent {
  const globals = config.layers.global?.data.mcp_servers ?? [];
  return {
    id: "mcp-list",
    model: "none",
    provider: "none",
    system_prompt: "none",
    mcp_servers: globals.filter((g) => g.enabled !== false).map((g) => ({
      ref: g.id,
    })),
  };
}

/**
 * Connects an agent's servers, lists each one's state and tool ids, and
 * closes them. Loads the MCP SDK.
 *
 * @param ctx The command context.
 * @param config The loaded config.
 * @param agent The agent naming the servers.
 * @param agentFile Its file (its inline stdio servers need approval).
 * @returns One row per server the agent names, in its order.
 */
export async function probeMcpServers(
  ctx: CommandEnv,
  config: LoadedConfig,
  agent: Agent,
  agentFile?: string,
): Promise<McpServerRow[]> {
  const { resolveMcpServers } = await import("../run/mcp_resolve.ts");
  const wiring = await import("../run/mcp_wiring.ts");
  const resolved = resolveMcpServers({
    agent,
    config,
    workingDir: ctx.cwd,
    env: (n) => ctx.io.env(n),
    ...(agentFile === undefined ? {} : {
      agentFile,
      approved: await approvedServers(agent, agentFile, config),
    }),
  });
  const rows = new Map<string, McpServerRow>();
  for (const s of resolved.skipped) {
    rows.set(s.id, { id: s.id, state: "not_started", reason: s.reason });
  }
  const { createToolRegistry } = await import("../../tools/registry_impl.ts");
  const effects = await import("../../tools/deno/effects.ts");
  const registry = await wiring.wireMcp({
    servers: resolved.servers,
    env: (n) => ctx.io.env(n),
  }, {
    build: (extra) =>
      createToolRegistry({
        tools: extra,
        host: effects.createDenoToolEffects(),
        context: { workingDir: ctx.cwd, fsScopeTier: "sandboxed" },
        permissions: effects.createDenoPermissionQuery(),
      }),
    ...(ctx.io.resolveDns === undefined
      ? {}
      : { resolveDns: ctx.io.resolveDns }),
    notice: () => {},
    onEvent: (e) => {
      if (e.state === "failed") {
        rows.set(e.server, { id: e.server, state: "failed", reason: e.reason });
      }
    },
  });
  for (const s of registry.servers()) {
    rows.set(s.id, { id: s.id, state: "connected", tools: s.tools });
  }
  await registry.close();
  const order = (agent.mcp_servers ?? []).map((s) => "ref" in s ? s.ref : s.id);
  return order.flatMap((id) => rows.get(id) ?? []);
}

/**
 * Runs `mcp list`: connects the servers (all enabled global ones, or the
 * agent's) and prints each one's state and tool ids.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0 when every server connected, 1 otherwise, or a fault (the
 * config's or the agent file's).
 */
export async function runMcpList(
  command: Extract<CliCommand, { name: "mcp-list" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const config = await loadCliConfig(configRequestOf(ctx));
  if (!config.ok) return config.error;
  const { paths } = config.value;
  let agent: Agent;
  let agentFile: string | undefined;
  if (command.agent !== undefined) {
    const found = await resolveAgentRef(command.agent, {
      cwd: ctx.cwd,
      ...(paths.projectRoot === undefined
        ? {}
        : { projectRoot: paths.projectRoot }),
    });
    if (!found.ok) return found.error;
    agent = found.value.agent;
    agentFile = found.value.file;
  } else {
    agent = globalServersAgent(config.value);
  }
  const list = await probeMcpServers(ctx, config.value, agent, agentFile);
  if (ctx.globals.json) {
    ctx.io.stdout.write(`${JSON.stringify({ servers: list })}\n`);
  } else if (list.length === 0) {
    ctx.io.stdout.write("No MCP server is configured\n");
  } else {
    ctx.io.stdout.write(list.map(rowText).join(""));
  }
  return list.every((r) => r.state === "connected") ? 0 : 1;
}

function rowText(r: McpServerRow): string {
  const id = stripControl(r.id);
  if (r.state !== "connected") {
    const state = r.state === "failed" ? "failed" : "not started";
    return `${id}: ${state}: ${stripControl(r.reason ?? "")}\n`;
  }
  const tools = r.tools ?? [];
  return `${id}: connected, ${tools.length} tool${
    tools.length === 1 ? "" : "s"
  }\n${tools.map((t) => `  ${t}\n`).join("")}`;
}
