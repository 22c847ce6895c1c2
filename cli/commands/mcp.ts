/**
 * MCP approvals from the command line: `relavium trust <agent file>`
 * approves the MCP stdio servers written inline in an agent file (their
 * exact command, arguments and environment names), recorded in the
 * Relavium home beside the trusted project files.
 *
 * @module
 */
import { resolveAgentRef } from "../run/agent_file.ts";
import { inlineStdioServers } from "../run/mcp_trust.ts";
import { recordTrust, type TrustedFiles } from "../config/trust_store.ts";
import { fault } from "../fault.ts";
import { stripControl } from "../io/control.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";

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
