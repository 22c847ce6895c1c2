/**
 * Where the Postgres tests find a server. `.ci/run` starts one and sets
 * `RELAVIUM_TEST_PG_URL`; without it, when the Postgres binaries are
 * installed, the first caller starts a throwaway cluster in a temp dir (as
 * `nobody` when the tests run as root: initdb refuses root), stopped when
 * the test process unloads. It listens on 127.0.0.1 only (the test task may
 * reach 127.0.0.1; a unix socket would need its exact path granted) with a
 * random password. In CI (`CI=true`) the tests never skip: no server is a
 * failure.
 */
import { existsSync } from "node:fs";

/** The line a skipped Postgres test prints: how to run it. */
export const PG_SKIP_NOTE =
  "Postgres tests skipped: install postgres (initdb, pg_ctl) or set RELAVIUM_TEST_PG_URL (`.ci/run` does both)";

/** Where the Postgres binaries are: on PATH, /usr/local/bin or Debian's own folder. */
function pgBin(): string | undefined {
  const path = (Deno.env.get("PATH") ?? "").split(":");
  for (const dir of [...path, "/usr/local/bin"]) {
    if (dir !== "" && existsSync(`${dir}/initdb`)) return dir;
  }
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((e) => e.name).filter((n) => /^\d+$/.test(n))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const dir = `/usr/lib/postgresql/${v}/bin`;
      if (existsSync(`${dir}/initdb`)) return dir;
    }
  } catch {
    // No Debian packages.
  }
  return undefined;
}

function run(cmd: string[], asNobody: boolean): void {
  const argv = asNobody ? ["runuser", "-u", "nobody", "--", ...cmd] : cmd;
  const out = new Deno.Command(argv[0] ?? "", {
    args: argv.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) {
    throw new Error(
      `${cmd[0]} failed: ${new TextDecoder().decode(out.stderr).trim()}`,
    );
  }
}

/** Starts a throwaway cluster; its URL. Stopped when this process unloads. */
/** A user's id, from `id -u` (no `--allow-sys` needed). */
function uidOf(user?: string): number {
  const out = new Deno.Command("id", { args: ["-u", ...(user ? [user] : [])] })
    .outputSync();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

function startCluster(bin: string): string {
  const root = uidOf() === 0;
  const dir = Deno.makeTempDirSync({ prefix: "relavium-pg-" });
  Deno.chmodSync(dir, 0o755);
  if (root) Deno.chownSync(dir, uidOf("nobody"), null);
  const password = crypto.randomUUID().replaceAll("-", "");
  const pwfile = `${dir}/pw`;
  Deno.writeTextFileSync(pwfile, password, { mode: 0o600 });
  if (root) Deno.chownSync(pwfile, uidOf("nobody"), null);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  run([
    `${bin}/initdb`,
    ...["-D", `${dir}/data`, "-U", "postgres", "-A", "scram-sha-256"],
    ...["-E", "UTF8", "--locale=C.UTF-8", `--pwfile=${pwfile}`],
  ], root);
  Deno.removeSync(pwfile);
  run([
    `${bin}/pg_ctl`,
    ...["-D", `${dir}/data`, "-l", `${dir}/log`, "-w"],
    ...["-o", `-k ${dir} -h 127.0.0.1 -p ${port}`, "start"],
  ], root);
  globalThis.addEventListener("unload", () => {
    try {
      run([`${bin}/pg_ctl`, "-D", `${dir}/data`, "-m", "fast", "stop"], root);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  });
  return `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}

let started: string | undefined;

/**
 * The URL of a Postgres for the tests, or `undefined` (skip) when there is
 * none and this is not CI.
 *
 * @throws {Error} In CI (`CI=true`) when no server is available.
 */
export function testPgUrl(): string | undefined {
  const given = Deno.env.get("RELAVIUM_TEST_PG_URL");
  if (given !== undefined && given !== "") return given;
  if (started !== undefined) return started;
  const bin = pgBin();
  if (bin === undefined) {
    if (Deno.env.get("CI") === "true") {
      throw new Error(`CI=true but no Postgres: ${PG_SKIP_NOTE}`);
    }
    return undefined;
  }
  started = startCluster(bin);
  return started;
}

/**
 * The URL a Postgres test file runs against, read when the file loads:
 * `undefined` when there is none outside CI (the file's tests are then
 * ignored, and {@linkcode PG_SKIP_NOTE} is printed), `"unavailable"` in CI
 * with no server (the tests run, and fail on it).
 *
 * @returns The URL, `"unavailable"` or `undefined`.
 */
export function pgUrlForFile(): string | undefined {
  let url: string | undefined;
  try {
    url = testPgUrl();
  } catch {
    return "unavailable";
  }
  // deno-lint-ignore no-console
  if (url === undefined) console.log(PG_SKIP_NOTE);
  return url;
}

/**
 * A one-connection pool on `url` for a test's own statements (schemas,
 * raw rows); `?host=/dir` names a unix socket folder.
 *
 * @param url The server's URL.
 * @returns The driver's pool.
 */
export async function adminSql(
  url: string,
): Promise<import("postgres").Sql<Record<string, never>>> {
  const { default: connect } = await import("postgres");
  const parsed = new URL(url);
  const host = parsed.searchParams.get("host") ?? undefined;
  parsed.searchParams.delete("host");
  return connect(parsed.href, {
    ...(host === undefined ? {} : { host }),
    max: 1,
    onnotice: () => {},
  }) as unknown as import("postgres").Sql<Record<string, never>>;
}
