/**
 * `store migrate-to-postgres [--from <path>]`: copies every session of
 * `history.db` (default the one the CLI's SQLite store uses) into the
 * Postgres whose URL is in `[store] url_env` (default `RELAVIUM_PG_URL`),
 * then verifies each copy (its rows, and its export's bytes from both
 * stores). Prints `copied N, skipped M, verified K`; under `--json` one
 * record on stdout. Exit 0 when every session is copied or already there
 * and verified; 1 when any is not (other rows already in Postgres, a
 * damaged row, a chat holding it, a failed verification) or a store
 * cannot be opened.
 *
 * @module
 */
import type { CliCommand } from "../args.ts";
import {
  type CommandEnv,
  type CommandResult,
  configRequestOf,
} from "../command_env.ts";
import { locateConfig } from "../config/config.ts";
import { stripControl } from "../io/control.ts";
import { exportText } from "../io/export_file.ts";
import { fault } from "../fault.ts";
import { historyPath } from "../run/history.ts";
import { resolve } from "../../schema/paths.ts";

/** Why a session was not copied or not verified, for a person. */
const NOT_COPIED: Record<string, string> = {
  conflict: "already in Postgres with other rows (left as it is)",
  damaged: "a row of history.db cannot be read",
  busy: "a chat has it open (end that chat, then run this again)",
};

/**
 * Runs `store migrate-to-postgres`.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0 when every session is in Postgres and verified, 1 otherwise;
 * an `internal` fault (exit 1) naming the file, or the variable (never
 * the URL), when a store cannot be opened.
 */
export async function runStoreMigrate(
  command: Extract<CliCommand, { name: "store-migrate" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const located = await locateConfig(configRequestOf(ctx));
  if (!located.ok) return located.error;
  let from: string;
  if (command.from === undefined) {
    const path = historyPath(located.value);
    if (!path.ok) return path.error;
    from = path.value;
  } else {
    from = resolve(ctx.cwd, command.from);
  }
  const pg = await import("../run/pg_store.ts");
  const configured = await pg.postgresUrlEnv(located.value);
  if (!configured.ok) return configured.error;
  const urlEnv = configured.value ?? pg.DEFAULT_PG_URL_ENV;
  const url = ctx.io.env(urlEnv);
  if (url === undefined || url === "") {
    return fault(
      "internal",
      `Cannot migrate to Postgres: ${urlEnv} is not set (it holds the Postgres URL; [store] url_env in the global config names another variable)`,
    );
  }
  const { migrateToPostgres } = await import("../../store/postgres/migrate.ts");
  let report: Awaited<ReturnType<typeof migrateToPostgres>>;
  try {
    report = await migrateToPostgres({ from, url, exportText });
  } catch (e) {
    if (e instanceof Error && e.name === "StoreOpenError") {
      // The file's fault names the file; the server's names the variable.
      return fault(
        "internal",
        e.message.includes(from) ? e.message : `${e.message} (${urlEnv})`,
      );
    }
    if (e instanceof Error && e.name === "PostgresStoreError") {
      return fault("internal", `Cannot migrate to Postgres: ${e.message}`);
    }
    throw e;
  }
  const count = (pick: (s: (typeof report.sessions)[number]) => boolean) =>
    report.sessions.filter(pick).length;
  const copied = count((s) => s.outcome === "copied");
  const skipped = count((s) => s.outcome === "skipped");
  const verified = count((s) =>
    (s.outcome === "copied" || s.outcome === "skipped") && s.verified
  );
  const failed = report.sessions.length - verified;
  if (ctx.globals.json) {
    ctx.io.stdout.write(`${
      JSON.stringify({
        from,
        copied,
        skipped,
        verified,
        failed,
        sessions: report.sessions.map((s) => ({
          sessionId: s.id,
          outcome: s.outcome,
          ...("verified" in s ? { verified: s.verified } : {}),
          ...(s.detail === undefined ? {} : { detail: s.detail }),
        })),
      })
    }\n`);
  } else {
    for (const s of report.sessions) {
      const id = stripControl(s.id);
      if (s.outcome === "copied" || s.outcome === "skipped") {
        if (!s.verified) {
          ctx.io.stderr.write(
            `Session ${id}: copy not verified (${s.detail ?? "differs"})\n`,
          );
        }
      } else {
        ctx.io.stderr.write(
          `Session ${id} not copied: ${NOT_COPIED[s.outcome]} (${s.detail})\n`,
        );
      }
    }
    ctx.io.stdout.write(
      `copied ${copied}, skipped ${skipped}, verified ${verified}${
        failed > 0 ? `, not copied or not verified ${failed}` : ""
      }\n`,
    );
  }
  return failed > 0 ? 1 : 0;
}
