import assert from "node:assert/strict";
import {
  createDenoPermissionQuery,
  createDenoToolEffects,
} from "../../../tools/deno/effects.ts";
import { ToolEffectsError } from "../../../tools/effects.ts";
import { tempDir, testTls } from "../_helpers.ts";

const never = new AbortController().signal;

Deno.test("createDenoToolEffects() maps errors to path-free host errors", async () => {
  await using dir = await tempDir();
  const host = createDenoToolEffects();
  await assert.rejects(host.realPath(`${dir.path}/missing`), (e: unknown) => {
    assert.ok(e instanceof ToolEffectsError);
    assert.equal(e.kind, "not_found");
    assert.ok(!e.message.includes(dir.path));
    return true;
  });
  await assert.rejects(
    host.readDir(`${dir.path}/missing`, { limit: 5, signal: never }),
    ToolEffectsError,
  );
});

Deno.test("createDenoToolEffects() reads with a byte cap and reports nlink", async () => {
  await using dir = await tempDir();
  const host = createDenoToolEffects();
  await Deno.writeTextFile(`${dir.path}/a`, "x".repeat(200_000));
  assert.equal(
    (await host.readFile(`${dir.path}/a`, { maxBytes: 70_000, signal: never }))
      .length,
    70_001,
  );
  assert.equal(
    (await host.readFile(`${dir.path}/a`, { maxBytes: 300_000, signal: never }))
      .length,
    200_000,
  );
  await Deno.link(`${dir.path}/a`, `${dir.path}/b`);
  assert.equal((await host.stat(`${dir.path}/b`)).nlink, 2);
  await Deno.symlink(`${dir.path}/a`, `${dir.path}/c`);
  assert.equal((await host.lstat(`${dir.path}/c`)).isSymlink, true);
  assert.equal((await host.stat(`${dir.path}/c`)).isSymlink, false);
  const entries = await host.readDir(dir.path, { limit: 2, signal: never });
  assert.equal(entries.length, 2);
});

Deno.test("createDenoToolEffects() spawns with a cleared env and capped output", async () => {
  const host = createDenoToolEffects();
  const env = host.readEnv(["PATH", "RELAVIUM_TOOLS_TEST_UNSET"]);
  assert.deepEqual(
    Object.keys(env),
    Deno.env.get("PATH") === undefined ? [] : ["PATH"],
  );
  const r = await host.spawn({
    program: "sh",
    args: [
      "-c",
      "printf '%s' \"$PATH-$HOME\"; printf 'eeeeeeeeee' >&2; exit 3",
    ],
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 30_000,
    maxOutputBytes: 4,
    signal: never,
  });
  assert.deepEqual(
    [
      r.exitCode,
      r.stdout,
      r.stdoutTruncated,
      r.stderr,
      r.stderrTruncated,
      r.timedOut,
    ],
    [3, "/usr", true, "eeee", true, false],
  );
  const bare = await host.spawn({
    program: "sh",
    args: ["-c", "printf '[%s]' \"$HOME\""],
    cwd: "/",
    env: {},
    timeoutMs: 30_000,
    maxOutputBytes: 100,
    signal: never,
  });
  assert.equal(bare.stdout, "[]", "nothing is inherited");
  await assert.rejects(
    host.spawn({
      program: "relavium-no-such-program",
      args: [],
      cwd: "/",
      env: {},
      timeoutMs: 1000,
      maxOutputBytes: 10,
      signal: never,
    }),
    (e: unknown) => e instanceof ToolEffectsError && e.kind === "not_found",
  );
});

Deno.test("createDenoToolEffects() kills a child on abort", async () => {
  const host = createDenoToolEffects();
  const controller = new AbortController();
  const pending = host.spawn({
    program: "sh",
    args: ["-c", "read x"],
    cwd: "/",
    env: {},
    timeoutMs: 30_000,
    maxOutputBytes: 10,
    signal: controller.signal,
  });
  controller.abort();
  await assert.rejects(
    pending,
    (e: unknown) => e instanceof ToolEffectsError && e.kind === "aborted",
  );
});

Deno.test("createDenoPermissionQuery() reports states without prompting", () => {
  const query = createDenoPermissionQuery();
  assert.equal(query({ name: "read", path: "/" }), "granted");
});

const { ca, cert, key } = await testTls();

async function withTlsServer(
  handler: () => Response | Promise<Response>,
  fn: (port: number) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert,
    key,
    onListen() {},
  }, handler);
  try {
    await fn(server.addr.port);
  } finally {
    await server.shutdown();
  }
}

function get(
  url: string,
  extra: { addresses?: string[]; signal?: AbortSignal } = {},
) {
  return {
    url,
    method: "GET" as const,
    headers: {},
    timeoutMs: 5_000,
    maxBodyBytes: 100,
    signal: extra.signal ?? never,
    ...(extra.addresses === undefined ? {} : { addresses: extra.addresses }),
  };
}

Deno.test("createDenoToolEffects() fetch connects to the given address and verifies TLS for the URL's name", async () => {
  let release = (): void => {};
  const held = new Promise<void>((r) => (release = r));
  await withTlsServer(async () => {
    await held;
    return new Response("late");
  }, async (port) => {
    const host = createDenoToolEffects({ caCerts: [ca] });
    const fetchIt = host.fetch;
    assert.ok(fetchIt !== undefined);
    // The certificate covers pinned.test and 127.0.0.1, not other.test.
    await assert.rejects(
      fetchIt(get(`https://other.test:${port}/`, { addresses: ["127.0.0.1"] })),
      (e: unknown) => {
        assert.ok(e instanceof ToolEffectsError && e.kind === "failed");
        assert.match(String(e.cause), /certificate/);
        return true;
      },
    );
    // A name without validated addresses is never resolved by the host.
    await assert.rejects(
      fetchIt(get(`https://pinned.test:${port}/`)),
      (e: unknown) => e instanceof ToolEffectsError && e.kind === "failed",
    );
    // Abort while the server holds the response closes the connection.
    const controller = new AbortController();
    const pending = fetchIt(
      get(`https://pinned.test:${port}/`, {
        addresses: ["127.0.0.1"],
        signal: controller.signal,
      }),
    );
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(
      pending,
      (e: unknown) => e instanceof ToolEffectsError && e.kind === "aborted",
    );
    release();
  });
});
