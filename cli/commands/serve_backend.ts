/**
 * `serve`'s backend: the server's sessions opened through the CLI's one
 * opener (`prepareNewRun`/`prepareRun` then `openChat`, as `chat` and
 * `chat-resume` do), and its reads (`chat-list`, `chat-show`,
 * `chat-export` records) on the one store the server holds (`history.db`,
 * or Postgres, whose answers are awaited).
 *
 * @module
 */
import { resolve, sep } from "../../schema/paths.ts";
import { openSession, resumeSession } from "../../host/host.ts";
import { err, ok } from "../../schema/result.ts";
import { listSqliteSessions } from "../../store/sqlite_list.ts";
import { isStaleLease, leaseHolderText } from "../../store/lease_policy.ts";
import { thisProcess } from "../../host/process_identity.ts";
import type {
  OpenedSession,
  OpenHooks,
  ServeBackend,
  ServeFault,
} from "../../serve/backend.ts";
import type { CreateSessionBody } from "../../serve/wire.ts";
import type { CommandEnv } from "../command_env.ts";
import type { CliFault } from "../fault.ts";
import type { LoadedConfig } from "../config/config.ts";
import { locateConfig } from "../config/config.ts";
import { classifyAgentRef } from "../run/agent_file.ts";
import {
  type CliStore,
  damagedSessionFault,
  historyPath,
} from "../run/history.ts";
import { openChat } from "../run/open_chat.ts";
import {
  type PreparedRun,
  prepareNewRun,
  prepareRun,
} from "../run/session_setup.ts";
import { exportText } from "../io/export_file.ts";
import type { EventPrinter } from "../io/output.ts";
import { toListRecord } from "./chat_list.ts";
import { showSession } from "./chat_show.ts";
import { shownCoverage } from "./cost_report.ts";

const STATUS: Record<string, number> = {
  usage: 400,
  not_found: 404,
  invalid_agent: 400,
  invalid_config: 500,
  invalid_cassette: 500,
  empty_input: 400,
  target_exists: 409,
  session_busy: 423,
  provider_auth: 502,
  provider_config: 400,
  internal: 500,
};

/**
 * The HTTP form of a CLI fault (its code kept, a documented status).
 *
 * @param f The fault.
 * @returns The server fault.
 */
export function serveFaultOf(f: CliFault): ServeFault {
  return { status: STATUS[f.code] ?? 500, code: f.code, message: f.message };
}

function notFound(id: string): ServeFault {
  return {
    status: 404,
    code: "not_found",
    message: `No session with id ${id}`,
  };
}

function sinkOf(hooks: OpenHooks): EventPrinter {
  return { print: (event) => hooks.sink(event), end: () => {} };
}

function opened(
  run: PreparedRun,
  chat: { live: OpenedSession["live"]; modes: OpenedSession["modes"] },
  drained: Promise<void>,
): OpenedSession {
  return {
    live: chat.live,
    modes: chat.modes,
    drained,
    finish: async () => {
      await run.close?.();
    },
  };
}

/**
 * Builds the backend over one store.
 *
 * @param ctx The command context (cwd, env, config flag).
 * @param config The config loaded at start.
 * @param store The store the server holds.
 * @returns The backend.
 */
export function cliServeBackend(
  ctx: CommandEnv,
  config: LoadedConfig,
  store: CliStore,
): ServeBackend {
  const root = config.paths.projectRoot ?? ctx.cwd;
  // A client names agents by id, or by a path inside the project only.
  const outside = (agent: string | undefined): boolean => {
    if (agent === undefined || classifyAgentRef(agent).kind !== "path") {
      return false;
    }
    const path = resolve(ctx.cwd, agent);
    return path !== root && !path.startsWith(root + sep);
  };
  // A stored session, or the fault naming its damaged row.
  const load = async (sessionId: string) => {
    try {
      return ok(await store.load(sessionId));
    } catch (e) {
      const damaged = damagedSessionFault(sessionId, e);
      if (damaged === undefined) throw e;
      return err(serveFaultOf(damaged));
    }
  };
  return {
    async list() {
      if ("asynchronous" in store) {
        const { listPostgresSessions } = await import("../run/pg_store.ts");
        const rows = await listPostgresSessions(store);
        return ok(rows.filter((r) => r.engaged).map(toListRecord));
      }
      const path = historyPath(config.paths);
      if (!path.ok) return err(serveFaultOf(path.error));
      const rows = listSqliteSessions(path.value, { damaged: [] })
        .filter((r) => r.engaged);
      return ok(rows.map(toListRecord));
    },
    async show(sessionId) {
      // Read in one go on a synchronous store (the hub reads its cursor
      // with it); awaited on Postgres.
      if (!("asynchronous" in store)) {
        try {
          const loaded = store.load(sessionId);
          if (loaded === undefined) return ok(undefined);
          return ok(showSession(
            loaded,
            store.costs?.(sessionId),
            shownCoverage(store, sessionId),
            undefined,
            store.turnUsage?.(sessionId),
          ));
        } catch (e) {
          const damaged = damagedSessionFault(sessionId, e);
          if (damaged === undefined) throw e;
          return err(serveFaultOf(damaged));
        }
      }
      const loaded = await load(sessionId);
      if (!loaded.ok || loaded.value === undefined) return loaded;
      const costs = await store.costs?.(sessionId);
      const read = await store.coverage?.(sessionId);
      const turnUsage = await store.turnUsage?.(sessionId);
      return ok(showSession(
        loaded.value,
        costs,
        shownCoverage(
          { coverage: () => read ?? { pending: [], unrecordedMicrocents: 0 } },
          sessionId,
        ),
        undefined,
        turnUsage,
      ));
    },
    async create(body: CreateSessionBody, hooks) {
      if (outside(body.agent)) {
        return err({
          status: 403,
          code: "forbidden",
          message: "An agent path must lie inside the project",
        });
      }
      const prep = await prepareNewRun(ctx, {
        ...(body.agent === undefined ? {} : { agent: body.agent }),
        ...(body.model === undefined ? {} : { model: body.model }),
        ...(body.provider === undefined ? {} : { provider: body.provider }),
      });
      if (!prep.ok) return err(serveFaultOf(prep.error));
      const run = prep.value;
      const variables = body.context?.variables;
      if (variables !== undefined) {
        run.context.variables = { ...run.context.variables, ...variables };
      }
      const chat = await openChat(ctx, {
        run,
        store,
        mode: body.mode,
        printer: { hints: false, sink: sinkOf(hooks) },
        approver: hooks.approver,
        open: async (host) => {
          try {
            return ok(
              await openSession({
                ...host,
                agent: run.agent,
                context: run.context,
              }),
            );
          } catch (e) {
            const why = e instanceof Error ? e.name : "unknown error";
            return err({
              code: "internal",
              message: `Cannot create the session: ${why}`,
            });
          }
        },
      });
      if (!chat.ok) return err(serveFaultOf(chat.error));
      return ok(opened(run, chat.value, chat.value.drained));
    },
    async resume(sessionId, hooks, mode) {
      const read = await load(sessionId);
      if (!read.ok) return read;
      const loaded = read.value;
      if (loaded === undefined) return err(notFound(sessionId));
      const agent = loaded.record.agentSnapshot;
      if (agent === undefined) {
        return err({
          status: 400,
          code: "invalid_agent",
          message: `Session ${sessionId} has no stored agent to resume with`,
        });
      }
      const context = loaded.record.context;
      const where = await locateConfig({
        cwd: context.workingDir,
        env: (n) => ctx.io.env(n),
      });
      const projectRoot = where.ok ? where.value.projectRoot : undefined;
      const prep = await prepareRun(ctx, {
        config,
        agent,
        context,
        ...(projectRoot === undefined ? {} : { projectRoot }),
        notices: config.trustNotices,
      }, {});
      if (!prep.ok) return err(serveFaultOf(prep.error));
      const run = prep.value;
      const chat = await openChat(ctx, {
        run,
        store,
        mode,
        printer: { hints: false, sink: sinkOf(hooks) },
        approver: hooks.approver,
        open: async (host) => {
          const resumed = await resumeSession({ ...host, sessionId });
          if (resumed.ok) return resumed;
          const why = resumed.error;
          return err({
            code: why.kind === "held"
              ? "session_busy"
              : why.kind === "not_found"
              ? "not_found"
              : "internal",
            message: why.kind === "held"
              ? why.message
              : why.kind === "not_found"
              ? `No session with id ${sessionId}`
              : `Session ${sessionId} cannot be resumed: its stored state is invalid`,
          });
        },
      });
      if (!chat.ok) return err(serveFaultOf(chat.error));
      return ok(opened(run, chat.value, chat.value.drained));
    },
    async holder(sessionId) {
      const lease = await store.readLease?.(sessionId);
      if (lease === undefined) return undefined;
      // Stale as a takeover would judge it: an old heartbeat, or a holder
      // on this host whose process is gone. A damaged row is never stale.
      const heartbeatAtMs = Date.parse(lease.heartbeatAt);
      const stale = lease.damaged === undefined &&
        isStaleLease(
          { ...lease, heartbeatAtMs },
          { holderId: "", ...thisProcess() },
          Date.now(),
        );
      return stale ? undefined : leaseHolderText(lease);
    },
    async exportYaml(sessionId) {
      const loaded = await load(sessionId);
      if (!loaded.ok) return loaded;
      return loaded.value === undefined
        ? err(notFound(sessionId))
        : ok(exportText(loaded.value));
    },
    async remove(sessionId) {
      return await store.softDelete(sessionId)
        ? ok(true)
        : err(notFound(sessionId));
    },
  };
}
