/**
 * `relavium serve`'s checks as a client meets them: the token, stream
 * tickets, `Host` and `Origin`, the body cap, and a session another
 * process holds.
 */
import assert from "node:assert/strict";
import { cliRunArgs } from "../cli/_child.ts";
import {
  call,
  fakeProvider,
  openSse,
  prepareFolder,
  startServe,
} from "./_kit.ts";

/** One raw HTTP/1.1 request (fetch will not send a foreign Host). */
async function rawGet(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<number> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    await conn.write(
      new TextEncoder().encode(
        `GET ${path} HTTP/1.1\r\n${head}connection: close\r\n\r\n`,
      ),
    );
    const buf = new Uint8Array(1024);
    const n = await conn.read(buf);
    const line = new TextDecoder().decode(buf.subarray(0, n ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(line)?.[1]);
  } finally {
    conn.close();
  }
}

Deno.test("serve refuses without the token, spends a ticket once, and checks Host and Origin", async () => {
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, provider.url);
  await using server = await startServe(folder);
  const anon = { url: server.url, token: "" };
  const denied = await call(anon, "GET", "/v1/sessions");
  assert.equal(denied.status, 401);
  assert.deepEqual(Object.keys(denied.body), ["type", "code", "message"]);
  assert.equal(
    (await call(
      { ...server, token: `${server.token}x` },
      "GET",
      "/v1/sessions",
    ))
      .status,
    401,
  );
  assert.equal((await call(server, "GET", "/v1/sessions")).status, 200);
  const created = await call(server, "POST", "/v1/sessions", {
    agent: "a.agent.yaml",
  });
  const id = String(created.body.sessionId);
  const other = await call(server, "POST", "/v1/sessions", {
    agent: "a.agent.yaml",
  });
  // A stream without credentials is refused; a ticket opens it once.
  const bare = await openSse(anon, id, { auth: false });
  assert.equal(bare.status, 401);
  await bare.close();
  const { ticket } = (await call(server, "POST", "/v1/tickets", {
    sessionId: id,
  })).body as { ticket: string };
  const first = await openSse(anon, id, {
    auth: false,
    query: `?ticket=${ticket}`,
  });
  assert.equal(first.status, 200);
  await first.close();
  const reused = await openSse(anon, id, {
    auth: false,
    query: `?ticket=${ticket}`,
  });
  assert.equal(reused.status, 401);
  await reused.close();
  const forOther = (await call(server, "POST", "/v1/tickets", {
    sessionId: String(other.body.sessionId),
  })).body as { ticket: string };
  const wrong = await openSse(anon, id, {
    auth: false,
    query: `?ticket=${forOther.ticket}`,
  });
  assert.equal(wrong.status, 401);
  await wrong.close();
  // Host and Origin.
  const port = new URL(server.url).port;
  assert.equal(
    await rawGet(server.url, "/v1/health", { host: `127.0.0.1:${port}` }),
    200,
  );
  assert.equal(
    await rawGet(server.url, "/v1/health", { host: `evil.example:${port}` }),
    403,
  );
  const foreign = await call(server, "GET", "/v1/sessions", undefined, {
    origin: "http://evil.example",
  });
  assert.equal(foreign.status, 403);
  assert.equal(
    (await call(server, "GET", "/v1/sessions", undefined, {
      origin: server.url,
    })).status,
    200,
  );
  // Bodies are capped and validated.
  const huge = await call(server, "POST", `/v1/sessions/${id}/messages`, {
    text: "x".repeat(2 * 1024 * 1024),
  });
  assert.equal(huge.status, 413);
  const bad = await call(server, "POST", `/v1/sessions/${id}/messages`, {
    txt: "typo",
  });
  assert.equal(bad.status, 400);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("serve refuses another address without a configured token", async () => {
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, "http://127.0.0.1:9/v1");
  const out = await new Deno.Command(Deno.execPath(), {
    args: cliRunArgs(["serve", "--host", "0.0.0.0", "--port", "0", "--json"]),
    cwd: `${dir}/proj`,
    clearEnv: true,
    env: folder.env,
    stdin: "null",
  }).output();
  assert.equal(out.code, 2);
  const line = JSON.parse(new TextDecoder().decode(out.stderr));
  assert.equal(line.code, "usage");
  assert.match(line.message, /without a token/);
  assert.equal(out.stdout.length, 0);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("serve answers 423 naming the holder when a chat in another process has the session", async () => {
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, provider.url);
  await using server = await startServe(folder);
  const chat = new Deno.Command(Deno.execPath(), {
    args: cliRunArgs(["chat", "--agent", "a.agent.yaml", "--json"]),
    cwd: `${dir}/proj`,
    clearEnv: true,
    env: folder.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = chat.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (let i = 0; i < 1000 && !text.includes("\n"); i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const sessionId = JSON.parse(text.split("\n")[0] ?? "{}").sessionId;
  assert.equal(typeof sessionId, "string");
  const held = await call(
    server,
    "POST",
    `/v1/sessions/${sessionId}/messages`,
    {
      text: "hi",
    },
  );
  assert.equal(held.status, 423);
  assert.equal(held.body.code, "session_busy");
  assert.match(
    String(held.body.message),
    new RegExp(`pid ${chat.pid}|${chat.pid}`),
  );
  await chat.stdin.close();
  for (let i = 0; i < 1000; i++) {
    if ((await reader.read()).done) break;
  }
  await chat.status;
  await Deno.remove(dir, { recursive: true });
});

Deno.test("doctor --permissions names what serve needs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, "http://127.0.0.1:9/v1", [
    "port = 4999",
    'token_env = "MY_SERVE_TOKEN"',
  ]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: cliRunArgs(["doctor", "--permissions"]),
    cwd: `${dir}/proj`,
    clearEnv: true,
    env: folder.env,
    stdin: "null",
  }).output();
  assert.match(
    new TextDecoder().decode(out.stdout),
    /relavium serve also needs --allow-net=127\.0\.0\.1:4999 \(to listen\) and --allow-env=MY_SERVE_TOKEN/,
  );
  await Deno.remove(dir, { recursive: true });
});
