/**
 * Loads the Postgres driver (only here, only when a Postgres store is
 * opened) and connects a pool, and keeps the connection URL out of every
 * error: a driver error leaves this folder as a new error whose message
 * has the URL and its password replaced.
 *
 * @module
 */
import type postgres from "postgres";

/** The driver's pool handle. */
export type Sql = postgres.Sql<Record<string, never>>;

/** What the pool is opened with. */
export interface PoolOptions {
  /** The connection URL (`postgres://user:password@host:port/db`; `?host=/dir` for a unix socket). */
  url: string;
  /** Per statement, in ms. */
  statementTimeoutMs: number;
  /** Pool size. */
  maxConnections: number;
}

/** The secrets of a URL: the URL itself, its password (raw and decoded). */
export function urlSecrets(url: string): string[] {
  const out = [url];
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") {
      out.push(parsed.password, decodeURIComponent(parsed.password));
    }
  } catch {
    // Not a URL: only the whole text is a secret.
  }
  return out.filter((s) => s.length > 0);
}

/**
 * An error safe to show: the message with every secret replaced by
 * `[redacted]`, the driver's SQLSTATE kept as `code`, no `cause`.
 *
 * @param error The driver's error.
 * @param secrets What must not appear.
 * @returns The new error.
 */
export function scrubbed(error: unknown, secrets: readonly string[]): Error {
  let message = error instanceof Error ? error.message : String(error);
  for (const s of secrets) message = message.split(s).join("[redacted]");
  const out = new Error(`Postgres store: ${message}`);
  out.name = "PostgresStoreError";
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    Object.defineProperty(out, "code", { value: code, enumerable: true });
  }
  return out;
}

/**
 * Connects a pool (lazily: the first query opens a connection).
 *
 * @param options URL, statement timeout, pool size.
 * @returns The pool.
 */
export async function connectPool(options: PoolOptions): Promise<Sql> {
  const { default: connect } = await import("postgres");
  const url = new URL(options.url);
  // A unix socket folder travels as `?host=/dir`; the driver takes it as
  // an option (a query parameter would reach the server as a setting).
  const socketDir = url.searchParams.get("host") ?? undefined;
  url.searchParams.delete("host");
  const int8 = {
    to: 20,
    from: [20],
    serialize: (x: unknown) => String(x),
    // An integer past 2^53 stays unsafe: the codecs then name the column.
    parse: (x: string) => Number(x),
  };
  return connect(url.href, {
    ...(socketDir === undefined ? {} : { host: socketDir }),
    max: options.maxConnections,
    fetch_types: false,
    onnotice: () => {},
    types: { int8 },
    connection: {
      statement_timeout: options.statementTimeoutMs,
      application_name: "relavium",
    },
  }) as unknown as Sql;
}
