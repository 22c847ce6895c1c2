/**
 * The Postgres session store for CLI commands: chosen by the global
 * config's `[store] kind = "postgres"`, its URL read only from the
 * environment variable `url_env` (default `RELAVIUM_PG_URL`) and never
 * printed. The driver is loaded only here, only when configured.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import type { SessionListEntry } from "../../store/sqlite_list.ts";
import { isTerminalRow } from "../../store/projection.ts";
import type { AsyncSessionStore } from "../../store/store.ts";
import type { ConfigPaths } from "../config/config.ts";
import type { CommandEnv } from "../command_env.ts";
import { type CliFault, fault } from "../fault.ts";

/** The default `[store] url_env`. */
export const DEFAULT_PG_URL_ENV = "RELAVIUM_PG_URL";

/**
 * The `url_env` of a global config that stores sessions in Postgres, or
 * `undefined` (SQLite's `history.db`).
 *
 * @param paths The located config paths.
 * @returns The variable's name, `undefined`, or the config's fault.
 */
export async function postgresUrlEnv(
  paths: ConfigPaths,
): Promise<Result<string | undefined, CliFault>> {
  if (paths.globalFile === undefined) return ok(undefined);
  // Most configs have no `[store]` table: the full, validated read (zod)
  // only when the text names one.
  let text: string;
  try {
    text = await Deno.readTextFile(paths.globalFile);
  } catch {
    return ok(undefined); // missing or unreadable: the config load reports it
  }
  if (!/^\s*\[\s*store\s*\]/m.test(text)) return ok(undefined);
  const { loadConfigFile } = await import("../config/read.ts");
  const loaded = await loadConfigFile("global", paths.globalFile);
  if (!loaded.ok) return loaded;
  const file = loaded.value;
  if (file?.kind !== "global" || file.data.store?.kind !== "postgres") {
    return ok(undefined);
  }
  return ok(file.data.store.url_env ?? DEFAULT_PG_URL_ENV);
}

/**
 * Opens the Postgres store whose URL is in `urlEnv`.
 *
 * @param ctx The command's context (its environment).
 * @param urlEnv The variable holding the URL.
 * @returns The store, or an `internal` fault naming the variable (never
 * the URL).
 */
export async function openPostgresFromEnv(
  ctx: CommandEnv,
  urlEnv: string,
): Promise<Result<AsyncSessionStore, CliFault>> {
  const url = ctx.io.env(urlEnv);
  if (url === undefined || url === "") {
    return err(fault(
      "internal",
      `Cannot open the Postgres session store: ${urlEnv} is not set ([store] url_env in the global config names the variable holding its URL)`,
    ));
  }
  const { openPostgresStore } = await import("../../store/postgres/mod.ts");
  try {
    return ok(await openPostgresStore({ url }));
  } catch (e) {
    // The store's errors carry no URL.
    const why = e instanceof Error ? e.message : "unknown error";
    return err(fault("internal", `${why} (${urlEnv})`));
  }
}

/**
 * The listing of a Postgres store, built from the store contract as
 * `chat-list` shows it (see `SessionListEntry`): realised spend with the
 * settled spend no turn recorded yet, the calls still pending, completed
 * turns, and whether anything was engaged.
 *
 * @param store The store.
 * @returns The sessions, newest first.
 */
export async function listPostgresSessions(
  store: AsyncSessionStore,
): Promise<SessionListEntry[]> {
  const out: SessionListEntry[] = [];
  for (const record of await store.list()) {
    const [loaded, coverage, costs] = await Promise.all([
      store.load(record.id),
      store.coverage?.(record.id),
      store.costs?.(record.id),
    ]);
    const turns = loaded?.messages.filter(isTerminalRow).length ?? 0;
    const pending = coverage?.pending.length ?? 0;
    const entry: SessionListEntry = {
      id: record.id,
      agentSlug: record.agentSlug,
      status: record.status,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      totalCostMicrocents: record.totalCostMicrocents +
        (coverage?.unrecordedMicrocents ?? 0),
      unaccountedCalls: pending,
      turns,
      engaged: turns > 0 || pending > 0 || (record.turnsUsed ?? 0) > 0 ||
        (coverage?.unrecordedMicrocents ?? 0) > 0 ||
        record.totalCostMicrocents > 0 || (costs?.length ?? 0) > 0,
    };
    if (record.title !== undefined) entry.title = record.title;
    if (record.modelId !== undefined) entry.modelId = record.modelId;
    if (record.context.workingDir !== "") {
      entry.workingDir = record.context.workingDir;
    }
    out.push(entry);
  }
  return out;
}
