/**
 * The start-up question on a terminal: each MCP stdio server an agent
 * file declares inline, not yet approved, is shown with its exact command,
 * arguments and environment names, and `y` records that approval in the
 * Relavium home (as `relavium trust <agent file>` would) before anything
 * is spawned. Anything else leaves it unstarted (with the usual notice).
 *
 * @module
 */
import type { Agent } from "../../schema/agent.ts";
import { readYesNo } from "../chat/approval_prompt.ts";
import { isCi } from "../chat/loop.ts";
import type { CommandEnv } from "../command_env.ts";
import type { LoadedConfig } from "../config/config.ts";
import { readTrusted, recordTrust } from "../config/trust_store.ts";
import { stripControl } from "../io/control.ts";
import { createLineReader, type LineReader } from "../io/stdin.ts";
import { approvedServers, inlineStdioServers } from "./mcp_trust.ts";

/**
 * The approved inline stdio servers of an agent file, asking on the
 * terminal about each one not approved yet.
 *
 * @param ctx The command context (a terminal on both ends).
 * @param reader The chat's line reader.
 * @param input The agent, its file and the loaded config.
 * @returns The ids approved (before or now).
 */
export async function askMcpApproval(
  ctx: CommandEnv,
  reader: LineReader,
  input: { agent: Agent; agentFile: string; config: LoadedConfig },
): Promise<Set<string>> {
  const home = input.config.paths.relaviumDir;
  const rows = await inlineStdioServers(input.agent, input.agentFile);
  if (home === undefined || rows.length === 0) return new Set();
  const { files } = await readTrusted(home);
  const approved = new Set<string>();
  for (const r of rows) {
    if (files[r.key] === r.hash) {
      approved.add(r.server.id);
      continue;
    }
    const env = Object.keys(r.server.env ?? {});
    ctx.io.stderr.write(
      `${stripControl(input.agentFile)} declares the MCP server ${
        stripControl(r.server.id)
      }, which runs: ${
        stripControl(
          [r.server.command ?? "", ...(r.server.args ?? [])].map((a) =>
            JSON.stringify(a)
          ).join(" "),
        )
      }${
        env.length === 0 ? "" : ` (env ${stripControl(env.join(", "))})`
      }. Start it, now and in later sessions while it stays the same? [y] yes  [n] no `,
    );
    const yes = await readYesNo(ctx.io, reader);
    if (yes !== true) continue;
    // The hash of what the question showed.
    const saved = await recordTrust(home, { [r.key]: r.hash });
    if (!saved.ok) continue;
    approved.add(r.server.id);
    ctx.io.stderr.write(
      `Approved MCP server ${
        stripControl(r.server.id)
      }: a change to it needs approval again\n`,
    );
  }
  return approved;
}

/**
 * `agent run`'s start-up question: on a terminal (stdin and stdout, not
 * `--json`, not in CI) it asks as `chat` does, reading the answers from
 * stdin (an `agent run` on a terminal takes its prompt from the
 * argument); elsewhere only what was approved before counts.
 *
 * @param ctx The command context.
 * @param input The agent, its file and the loaded config.
 * @returns The ids approved (before or now).
 */
export async function askMcpApprovalOnTerminal(
  ctx: CommandEnv,
  input: { agent: Agent; agentFile: string; config: LoadedConfig },
): Promise<Set<string>> {
  const terminal = !ctx.globals.json && ctx.io.stdinIsTerminal &&
    ctx.io.stdoutIsTerminal && !isCi((n) => ctx.io.env(n));
  if (!terminal) {
    return await approvedServers(input.agent, input.agentFile, input.config);
  }
  const reader = createLineReader(ctx.io.stdin);
  try {
    return await askMcpApproval(ctx, reader, input);
  } finally {
    await reader.close();
  }
}
