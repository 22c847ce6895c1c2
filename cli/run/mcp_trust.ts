/**
 * Approval of the MCP stdio servers an agent file writes inline: the
 * trust-store key of each (`<file>#mcp_servers/<id>`) and the hash of its
 * exact command, arguments and environment names. Kept apart from the
 * wiring so `relavium trust` loads no MCP SDK.
 *
 * @module
 */
import type { Agent } from "../../schema/agent.ts";
import type { LoadedConfig } from "../config/config.ts";
import { readTrusted, sha256Hex } from "../config/trust_store.ts";

/** An inline stdio server of an agent file, as approval sees it. */
export type InlineStdio = {
  id: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
};

/**
 * The trust-store key of an agent file's inline stdio server.
 *
 * @param agentFile The agent file (absolute).
 * @param id The server id.
 * @returns The key.
 */
export function mcpTrustKey(agentFile: string, id: string): string {
  return `${agentFile}#mcp_servers/${id}`;
}

/**
 * The hash approval records: the exact command, arguments and environment
 * variable names (not their values).
 *
 * @param server The inline server.
 * @returns Lower-case hex SHA-256.
 */
export async function mcpTrustHash(server: InlineStdio): Promise<string> {
  const shape = JSON.stringify([
    server.command ?? "",
    server.args ?? [],
    Object.keys(server.env ?? {}).sort(),
  ]);
  return await sha256Hex(new TextEncoder().encode(shape));
}

/**
 * The inline stdio servers of an agent (from `agentFile`), with their
 * trust keys and hashes.
 *
 * @param agent The agent.
 * @param agentFile Its file (absolute).
 * @returns One row per inline stdio server.
 */
export async function inlineStdioServers(
  agent: Agent,
  agentFile: string,
): Promise<{ server: InlineStdio; key: string; hash: string }[]> {
  const out = [];
  for (const s of agent.mcp_servers ?? []) {
    if ("ref" in s || s.transport !== "stdio") continue;
    out.push({
      server: s,
      key: mcpTrustKey(agentFile, s.id),
      hash: await mcpTrustHash(s),
    });
  }
  return out;
}

/**
 * The ids of the agent file's inline stdio servers whose exact command,
 * arguments and environment names the user approved.
 *
 * @param agent The agent.
 * @param agentFile Its file.
 * @param config The loaded config (where the Relavium home is).
 * @returns The approved ids.
 */
export async function approvedServers(
  agent: Agent,
  agentFile: string,
  config: LoadedConfig,
): Promise<Set<string>> {
  const home = config.paths.relaviumDir;
  const inline = await inlineStdioServers(agent, agentFile);
  if (home === undefined || inline.length === 0) return new Set();
  const { files } = await readTrusted(home);
  return new Set(
    inline.filter((r) => files[r.key] === r.hash).map((r) => r.server.id),
  );
}
