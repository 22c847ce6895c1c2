/**
 * `relavium serve`'s HTTP server: the routes under `/v1`, the event
 * streams, the checks every request passes (Host, Origin, token, body
 * size) and an orderly stop.
 *
 * @module
 */
import type { ServeBackend } from "./backend.ts";
import {
  BodyError,
  errorResponse,
  faultResponse,
  JSON_HEADERS,
  jsonResponse,
  parsed,
} from "./http.ts";
import {
  bearerOk,
  checkHostAndOrigin,
  hostCheck,
  TICKET_TTL_MS,
  Tickets,
} from "./auth.ts";
import type { EventSource } from "./event_source.ts";
import { SessionHub } from "./hub.ts";
import { type EventStream, openEventStream } from "./sse.ts";
import { openApiDocument } from "./openapi.ts";
import { pageResponse } from "./page.ts";
import {
  approvalBody,
  createSessionBody,
  messageBody,
  ticketBody,
} from "./wire.ts";

/** Options of {@linkcode startServer}. */
export interface ServerOptions {
  /** The address to bind. */
  hostname: string;
  /** The port (0: any free one). */
  port: number;
  /** The bearer token. */
  token: string;
  /** Exact origins allowed cross-origin (CORS); none by default. */
  corsOrigins: readonly string[];
  /** Heartbeat period of a stream. */
  heartbeatMs: number;
  /** Streams one session may have at once. */
  maxClientsPerSession: number;
  /** An approval without an answer this long is rejected. */
  approvalTimeoutMs: number;
  /** Opens and reads sessions. */
  backend: ServeBackend;
  /** The program's version (health, OpenAPI). */
  version: string;
  /** Largest request body accepted; default 1 MiB. */
  maxBodyBytes?: number;
  /** Unsent bytes a stream client may have before it is dropped; default 1 MiB. */
  maxQueueBytes?: number;
  /** The `retry:` a stream client is told; default 1000 ms. */
  retryMs?: number;
  /** Where session events are logged; default this process's memory. */
  events?: EventSource;
  /** Events kept per session for replay in memory; default 4096. */
  replayEvents?: number;
  /** A live session idle this long releases its lease; default never. */
  idleReleaseMs?: number;
}

/** A running server. */
export interface RunningServer {
  /** The bound address. */
  hostname: string;
  /** The bound port. */
  port: number;
  /** Stops accepting, ends turns and streams, closes sessions. */
  stop(): Promise<void>;
}

/**
 * Starts the server.
 *
 * @param o The address, token, limits and backend.
 * @returns The running server once it listens.
 */
export function startServer(o: ServerOptions): Promise<RunningServer> {
  const hub = new SessionHub({
    backend: o.backend,
    heartbeatMs: o.heartbeatMs,
    approvalTimeoutMs: o.approvalTimeoutMs,
    ...(o.events === undefined ? {} : { events: o.events }),
    ...(o.replayEvents === undefined ? {} : { replayEvents: o.replayEvents }),
    ...(o.idleReleaseMs === undefined
      ? {}
      : { idleReleaseMs: o.idleReleaseMs }),
  });
  const tickets = new Tickets();
  const streams = new Set<EventStream>();
  const cap = o.maxBodyBytes ?? 1024 * 1024;
  const openapi = JSON.stringify(openApiDocument(o.version));
  let hostOk = (_: string): boolean => false;
  let stopping = false;

  function cors(req: Request, res: Response): Response {
    const origin = req.headers.get("origin");
    if (origin !== null && o.corsOrigins.includes(origin)) {
      res.headers.set("access-control-allow-origin", origin);
      res.headers.set("vary", "Origin");
    }
    return res;
  }

  async function events(
    req: Request,
    url: URL,
    id: string,
    authed: boolean,
  ): Promise<Response> {
    const ticket = url.searchParams.get("ticket");
    if (!authed && (ticket === null || !tickets.redeem(ticket, id))) {
      return errorResponse(401, "unauthorized", "Missing or spent credentials");
    }
    const state = await hub.state(id);
    if (!state.ok) return faultResponse(state.error);
    const log = hub.log(id);
    if (log.clients >= o.maxClientsPerSession) {
      return errorResponse(
        429,
        "too_many_clients",
        `Session ${id} has ${log.clients} streams`,
      );
    }
    const cursor = req.headers.get("last-event-id") ??
      url.searchParams.get("after");
    const start = cursor === null || cursor === ""
      ? { kind: "live" as const }
      : log.after(cursor);
    const untilIdle = url.searchParams.get("until") === "idle";
    const stream: EventStream = openEventStream({
      log,
      start,
      resync: () => ({
        event: {
          type: "server:resync",
          sessionId: id,
          timestamp: new Date().toISOString(),
          state: state.value,
        },
        seq: Number(state.value.lastEventId.split(".").at(-1)),
      }),
      untilIdle,
      running: () => hub.running(id),
      retryMs: o.retryMs ?? 1000,
      maxQueueBytes: o.maxQueueBytes ?? 1024 * 1024,
      // A stream may end while it is built (a replay up to idle).
      onEnd: () =>
        queueMicrotask(() => {
          streams.delete(stream);
          hub.clientsChanged(id);
        }),
    });
    streams.add(stream);
    hub.clientsChanged(id);
    return new Response(stream.body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  }

  async function route(req: Request, url: URL): Promise<Response> {
    const path = url.pathname;
    const method = req.method;
    if (path === "/" && method === "GET") return pageResponse();
    if (path === "/v1/health" && method === "GET") {
      return jsonResponse(200, { ok: true, version: o.version });
    }
    if (path === "/openapi.json" && method === "GET") {
      return new Response(openapi, { headers: JSON_HEADERS });
    }
    const authed = bearerOk(req.headers, o.token);
    const parts = path.split("/").slice(1).map(decodeURIComponent);
    const [v1, kind, id, action, sub] = parts;
    if (v1 !== "v1") return errorResponse(404, "not_found", `No route ${path}`);
    if (
      kind === "sessions" && id !== undefined && action === "events" &&
      parts.length === 4 && method === "GET"
    ) {
      return await events(req, url, id, authed);
    }
    if (!authed) {
      return errorResponse(
        401,
        "unauthorized",
        "Missing or wrong bearer token",
      );
    }
    if (stopping) return errorResponse(503, "internal", "Server is stopping");
    if (kind === "tickets" && parts.length === 2 && method === "POST") {
      const body = await parsed(req, cap, ticketBody);
      return jsonResponse(200, {
        ticket: tickets.issue(body.sessionId),
        expiresInMs: TICKET_TTL_MS,
      });
    }
    if (kind !== "sessions") {
      return errorResponse(404, "not_found", `No route ${path}`);
    }
    if (id === undefined) {
      if (method === "GET") {
        const listed = await o.backend.list();
        return listed.ok
          ? jsonResponse(200, { sessions: listed.value })
          : faultResponse(listed.error);
      }
      if (method === "POST") {
        const body = await parsed(req, cap, createSessionBody);
        const created = await hub.create(body);
        return created.ok
          ? jsonResponse(201, created.value)
          : faultResponse(created.error);
      }
      return errorResponse(405, "usage", `${method} not allowed on ${path}`);
    }
    if (action === undefined) {
      if (method === "GET") {
        const state = await hub.state(id);
        return state.ok
          ? jsonResponse(200, state.value)
          : faultResponse(state.error);
      }
      if (method === "DELETE") {
        // Not under another server's live lease (it may run a turn).
        const holder = await hub.holderElsewhere(id);
        if (holder !== undefined) {
          return errorResponse(
            423,
            "session_busy",
            `Session ${id} is held by another server (${holder}): delete it there or once it is released`,
          );
        }
        if (hub.running(id)) {
          return errorResponse(
            409,
            "session_busy",
            `Session ${id} is running a turn`,
          );
        }
        await hub.cancel(id);
        const removed = await o.backend.remove(id);
        return removed.ok
          ? jsonResponse(200, { sessionId: id, deleted: true })
          : faultResponse(removed.error);
      }
      return errorResponse(405, "usage", `${method} not allowed on ${path}`);
    }
    if (method === "GET" && action === "export" && sub === undefined) {
      const yaml = await o.backend.exportYaml(id);
      return yaml.ok
        ? new Response(yaml.value, {
          headers: { "content-type": "application/yaml; charset=utf-8" },
        })
        : faultResponse(yaml.error);
    }
    if (method !== "POST") {
      return errorResponse(405, "usage", `${method} not allowed on ${path}`);
    }
    switch (action) {
      case "messages": {
        const body = await parsed(req, cap, messageBody);
        const sent = await hub.send(id, body.text, body.idempotencyKey);
        return sent.ok
          ? jsonResponse(202, { sessionId: id, ...sent.value })
          : faultResponse(sent.error);
      }
      case "abort":
        return jsonResponse(200, { sessionId: id, aborted: hub.abort(id) });
      case "cancel":
        return jsonResponse(200, {
          sessionId: id,
          cancelled: await hub.cancel(id),
        });
      case "approvals": {
        if (sub === undefined) break;
        const body = await parsed(req, cap, approvalBody);
        const answered = await hub.answer(id, sub, body.decision);
        return answered.ok
          ? jsonResponse(200, { requestId: sub, decision: body.decision })
          : faultResponse(answered.error);
      }
    }
    return errorResponse(404, "not_found", `No route ${path}`);
  }

  async function handle(req: Request): Promise<Response> {
    const refused = checkHostAndOrigin(req.headers, hostOk, o.corsOrigins);
    if (refused !== undefined) return errorResponse(403, "forbidden", refused);
    if (req.method === "OPTIONS") {
      const origin = req.headers.get("origin");
      if (origin === null || !o.corsOrigins.includes(origin)) {
        return errorResponse(
          403,
          "forbidden",
          "Forbidden: no CORS for this origin",
        );
      }
      return new Response(null, {
        status: 204,
        headers: {
          "access-control-allow-origin": origin,
          "access-control-allow-methods": "GET, POST, DELETE",
          "access-control-allow-headers":
            "authorization, content-type, last-event-id",
          "access-control-max-age": "600",
          vary: "Origin",
        },
      });
    }
    const url = new URL(req.url);
    try {
      return cors(req, await route(req, url));
    } catch (e) {
      if (e instanceof BodyError) {
        return errorResponse(
          e.status,
          e.status === 413 ? "too_large" : "usage",
          e.message,
        );
      }
      const why = e instanceof Error ? e.name : "unknown error";
      return errorResponse(500, "internal", `Internal error: ${why}`);
    }
  }

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: o.hostname,
      port: o.port,
      onListen: (addr) => {
        hostOk = hostCheck(o.hostname, addr.port);
        resolve({
          hostname: o.hostname,
          port: addr.port,
          async stop(): Promise<void> {
            stopping = true;
            await hub.close();
            for (const s of [...streams]) s.end();
            await server.shutdown();
          },
        });
      },
    }, handle);
  });
}
