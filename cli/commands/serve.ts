/**
 * `serve [--host <address>] [--port <port>]`: sessions over HTTP (the
 * routes, streams and page of `serve/`), their sessions opened by the
 * CLI's one opener on `history.db`, or on Postgres (`[store] kind =
 * "postgres"`), where every instance streams every session from the
 * shared event table. Binds 127.0.0.1 by default; any other address needs
 * a token from `[serve] token_env`. Without one the token is generated and
 * printed once, on the second stdout line. A served session left idle
 * releases its lease after `[serve] idle_release_ms`.
 *
 * @module
 */
import type { CliCommand } from "../args.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { fault } from "../fault.ts";
import { openRunHistory } from "../run/history.ts";
import { loadRunConfig } from "../run/session_setup.ts";
import { isLoopback, randomSecret } from "../../serve/auth.ts";
import { startServer } from "../../serve/server.ts";
import { type EventSource, sharedEvents } from "../../serve/event_source.ts";
import type { CliStore } from "../run/history.ts";
import { VERSION } from "../version.ts";
import { cliServeBackend } from "./serve_backend.ts";

/** The `[serve]` defaults. */
export const SERVE_DEFAULTS = {
  host: "127.0.0.1",
  port: 4780,
  heartbeatMs: 15_000,
  maxClientsPerSession: 8,
  approvalTimeoutMs: 300_000,
  idleReleaseMs: 30_000,
  eventsKept: 4096,
} as const;

/**
 * The event source of a store many servers share (Postgres's event
 * table), or `undefined` (this process's memory).
 */
async function sharedSource(
  ctx: CommandEnv,
  store: CliStore,
  kept: number,
): Promise<EventSource | undefined> {
  if (!("asynchronous" in store)) return undefined;
  const { postgresEventTable } = await import(
    "../../store/postgres/events.ts"
  );
  const table = postgresEventTable(store, kept);
  if (table === undefined) return undefined;
  return await sharedEvents(table, kept, (e) => {
    // The store's errors carry no URL; each names what failed.
    const why = e instanceof Error ? e.message : String(e);
    ctx.io.stderr.write(`serve: shared events: ${why}\n`);
  });
}

/**
 * Runs `serve` until SIGINT or SIGTERM.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0 after an orderly stop, or a fault (`usage` for a non-loopback
 * address without a token, `internal` when the port cannot be bound or the
 * Postgres store's event listener cannot start).
 */
export async function runServe(
  command: Extract<CliCommand, { name: "serve" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const config = await loadRunConfig(ctx);
  if (!config.ok) return config.error;
  const table = config.value.layers.global?.data.serve ?? {};
  const host = command.host ?? table.host ?? SERVE_DEFAULTS.host;
  const port = command.port ?? table.port ?? SERVE_DEFAULTS.port;
  let token: string | undefined;
  if (table.token_env !== undefined) {
    token = ctx.io.env(table.token_env);
    if (token === undefined || token.length < 16) {
      return fault(
        "invalid_config",
        `[serve] token_env names ${table.token_env}, which must hold a token of at least 16 characters`,
      );
    }
  }
  if (token === undefined && !isLoopback(host)) {
    return fault(
      "usage",
      `Refusing to serve on ${host} without a token: set [serve] token_env in the global config`,
    );
  }
  const generated = token === undefined;
  token ??= randomSecret();
  const opened = await openRunHistory(ctx, config.value.paths, true);
  if (!opened.ok) return opened.error;
  const store = opened.value;
  if (store === undefined) return fault("internal", "History store missing");
  const kept = table.events_kept ?? SERVE_DEFAULTS.eventsKept;
  let events;
  try {
    events = await sharedSource(ctx, store, kept);
  } catch (e) {
    await store.close();
    // The store's errors carry no URL; named by the variable holding it.
    const { DEFAULT_PG_URL_ENV, postgresUrlEnv } = await import(
      "../run/pg_store.ts"
    );
    const urlEnv = await postgresUrlEnv(config.value.paths);
    const why = e instanceof Error ? e.message : String(e);
    return fault(
      "internal",
      `Cannot listen for the Postgres store's events: ${why} (${
        (urlEnv.ok ? urlEnv.value : undefined) ?? DEFAULT_PG_URL_ENV
      })`,
    );
  }
  let server;
  try {
    server = await startServer({
      hostname: host,
      port,
      token,
      corsOrigins: table.cors_origins ?? [],
      heartbeatMs: table.heartbeat_ms ?? SERVE_DEFAULTS.heartbeatMs,
      maxClientsPerSession: table.max_clients_per_session ??
        SERVE_DEFAULTS.maxClientsPerSession,
      approvalTimeoutMs: table.approval_timeout_ms ??
        SERVE_DEFAULTS.approvalTimeoutMs,
      backend: cliServeBackend(ctx, config.value, store),
      version: VERSION,
      replayEvents: kept,
      idleReleaseMs: table.idle_release_ms ?? SERVE_DEFAULTS.idleReleaseMs,
      ...(events === undefined ? {} : { events }),
    });
  } catch (e) {
    await store.close();
    const why = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return fault("internal", `Cannot listen on ${host}:${port}: ${why}`);
  }
  const shown = host.includes(":") ? `[${host}]` : host;
  ctx.io.stdout.write(`Listening on http://${shown}:${server.port}\n`);
  if (generated) ctx.io.stdout.write(`Token: ${token}\n`);
  const stop = Promise.withResolvers<void>();
  const offs = [
    ctx.io.onSignal("SIGINT", () => stop.resolve()),
    ctx.io.onSignal("SIGTERM", () => stop.resolve()),
  ];
  await stop.promise;
  for (const off of offs) off();
  try {
    await server.stop();
  } finally {
    await store.close();
  }
  return 0;
}
