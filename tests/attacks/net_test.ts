/**
 * Attack table: `http_request`, vectors defended before issue 13. A
 * scripted model names a loopback or private address in every literal
 * form the URL parser folds (decimal, octal, hex, short forms, IPv6,
 * IPv4-mapped IPv6, `localhost.`), with the form itself on
 * `allowed_domains` so only the SSRF check can refuse it; a listener on
 * 127.0.0.1 counts every connection attempt and must see none. The
 * redirect rows: through the CLI an allowed URL that would answer 302 to
 * a loopback server is refused before any connection, and so is its
 * `http:` location; the CLI cannot reach a loopback server at all, so one
 * row drives the same tool through a library registry with the test-only
 * loopback switch to show a 302 coming back unfollowed.
 */
import assert from "node:assert/strict";
import { allBuiltinTools } from "../../tools/builtin/all.ts";
import { createDenoToolEffects } from "../../tools/deno/effects.ts";
import { createModePolicy } from "../../tools/modes.ts";
import { createToolRegistry } from "../../tools/registry_impl.ts";
import { tempDir } from "../cli/_helpers.ts";
import {
  grantAll,
  makeContext,
  messageOf,
  testTls,
} from "../tools/_helpers.ts";
import { refusedRequest } from "./_kit.ts";

/** A TCP listener on 127.0.0.1 counting the connections it accepts. */
function counter(): { port: number; hits: () => number } & AsyncDisposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let hits = 0;
  const loop = (async () => {
    for await (const conn of listener) {
      hits++;
      conn.close();
    }
  })().catch(() => {});
  return {
    port: listener.addr.port,
    hits: () => hits,
    async [Symbol.asyncDispose]() {
      listener.close();
      await loop;
    },
  };
}

interface Row {
  name: string;
  /** The URL the model asks for (`PORT` is the listener's port). */
  url: string;
  /** The `allowed_domains` entry naming the same host. */
  allow: string;
  refusal: RegExp;
}

const SSRF = /^Tool call denied \(ssrf_blocked\)/;

const LITERALS: Array<[string, string]> = [
  ["decimal 2130706433", "2130706433"],
  ["octal 0177.0.0.1", "0177.0.0.1"],
  ["hex 0x7f000001", "0x7f000001"],
  ["dotted hex 0x7f.0x0.0x0.0x1", "0x7f.0x0.0x0.0x1"],
  ["short form 127.1", "127.1"],
  ["zero-padded 127.000.000.001", "127.000.000.001"],
  ["0.0.0.0", "0.0.0.0"],
  ["bare 0", "0"],
  ["IPv6 [::1]", "[::1]"],
  ["IPv6 [0:0:0:0:0:0:0:1]", "[0:0:0:0:0:0:0:1]"],
  ["IPv4-mapped [::ffff:127.0.0.1]", "[::ffff:127.0.0.1]"],
  ["IPv4-mapped hex [::ffff:7f00:1]", "[::ffff:7f00:1]"],
  ["IPv4-compatible [::127.0.0.1]", "[::127.0.0.1]"],
  ["NAT64 [64:ff9b::7f00:1]", "[64:ff9b::7f00:1]"],
  ["unspecified [::]", "[::]"],
  ["localhost.", "localhost."],
  ["LOCALHOST", "LOCALHOST"],
  ["a localhost subdomain", "x.localhost"],
  ["private 10.0.0.1", "10.0.0.1"],
  ["private 192.168.0.1", "192.168.0.1"],
  ["link-local metadata 169.254.169.254", "169.254.169.254"],
  ["IPv6 unique local [fd00::1]", "[fd00::1]"],
  ["IPv6 link-local [fe80::1]", "[fe80::1]"],
  ["octal metadata 0251.0376.0251.0376", "0251.0376.0251.0376"],
  ["IPv4-mapped metadata [::ffff:a9fe:a9fe]", "[::ffff:a9fe:a9fe]"],
  ["IPv4-mapped private [::ffff:10.0.0.1]", "[::ffff:10.0.0.1]"],
  ["a trailing dot 127.0.0.1.", "127.0.0.1."],
  ["decimal with a trailing dot 2130706433.", "2130706433."],
];

const ROWS: Row[] = LITERALS.map(([what, host]): Row => ({
  name: `SSRF literal form ${what}`,
  url: `https://${host}:PORT/`,
  allow: host.replace(/^\[|\]$/g, ""),
  refusal: SSRF,
}));

ROWS.push(
  {
    name: "plain http to 127.0.0.1",
    url: "http://127.0.0.1:PORT/",
    allow: "127.0.0.1",
    refusal: /^Tool call denied \(insecure_url\)/,
  },
  {
    name: "userinfo that hides the host (https://example.com@127.0.0.1)",
    url: "https://example.com@127.0.0.1:PORT/",
    allow: "127.0.0.1",
    refusal: /^Tool call denied \(insecure_url\)/,
  },
);

/** Runs one `http_request` call through the CLI; returns the refusal. */
async function viaCli(url: string, allow: string[]): Promise<string> {
  await using dir = await tempDir();
  const { run, result } = await refusedRequest(dir.path, url, allow);
  assert.equal(run.turnError, "tool_denied", run.stdout);
  return result.outputSummary ?? "";
}

for (const row of ROWS) {
  Deno.test(`net attack: ${row.name} is refused, nothing connects`, async () => {
    await using server = counter();
    const url = row.url.replace("PORT", String(server.port));
    assert.match(await viaCli(url, [row.allow]), row.refusal);
    assert.equal(server.hits(), 0, "a connection reached the listener");
  });
}

const { ca, cert, key } = await testTls();

/**
 * An HTTPS server on 127.0.0.1 that answers every request with a 302 to
 * `location(targetPort)`, and a plain HTTP target that counts its hits.
 */
function redirectPair(
  location: (port: number) => string,
): Promise<
  {
    base: string;
    served: () => number;
    targetHits: () => number;
    location: string;
  } & AsyncDisposable
> {
  const target = counter();
  const where = location(target.port);
  let served = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen() {} },
    () => {
      served++;
      return new Response(null, { status: 302, headers: { location: where } });
    },
  );
  return Promise.resolve({
    base: `https://127.0.0.1:${server.addr.port}`,
    served: () => served,
    targetHits: target.hits,
    location: where,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await target[Symbol.asyncDispose]();
    },
  });
}

const TO_LOOPBACK = (port: number) => `http://127.0.0.1:${port}/`;

Deno.test("net attack: an allowed URL that redirects to a loopback server is refused through the CLI before any connection", async () => {
  await using pair = await redirectPair(TO_LOOPBACK);
  assert.match(await viaCli(`${pair.base}/go`, ["127.0.0.1"]), SSRF);
  assert.match(
    await viaCli(pair.location, ["127.0.0.1"]),
    /^Tool call denied \(insecure_url\)/,
  );
  assert.equal(pair.served(), 0);
  assert.equal(pair.targetHits(), 0);
});

Deno.test("net attack: a 302 to a loopback address comes back unfollowed (library registry, test-only loopback switch)", async () => {
  await using pair = await redirectPair(TO_LOOPBACK);
  const registry = createToolRegistry({
    tools: allBuiltinTools(),
    host: createDenoToolEffects({ caCerts: [ca] }),
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
    permissions: grantAll,
    guardrails: { allowedDomains: ["127.0.0.1"], allowLoopbackForTests: true },
  });
  const modes = createModePolicy({ mode: "auto", interactive: false });
  const call = (url: string) =>
    registry.dispatch(
      { id: "c", name: "http_request", args: { url } },
      makeContext({ granted: ["http_request"], policy: modes.policy }).ctx,
    );
  const first = await call(`${pair.base}/go`);
  assert.equal(first.kind, "ok", messageOf(first));
  const got = JSON.parse(first.kind === "ok" ? first.modelResult : "{}");
  assert.equal(got.status, 302);
  assert.equal(got.headers.location, pair.location);
  assert.equal(pair.served(), 1);
  const follow = await call(pair.location);
  assert.match(messageOf(follow), /insecure_url/);
  assert.equal(pair.targetHits(), 0, "the redirect was followed");
});
