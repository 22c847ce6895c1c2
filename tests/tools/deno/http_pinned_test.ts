/**
 * The connection goes to the validated address.
 * `pinned.test` does not resolve anywhere (`.test` is reserved); the
 * resolver seam answers `127.0.0.1` under the test-only loopback switch,
 * and the request reaches the loopback TLS server on that answer, with
 * the certificate verified for the name (a name the certificate does not
 * cover fails even though the address is the same). The Deno permission
 * queried is the address's, and in a real process an IPv4-range grant
 * with no name in it is enough, while `--deny-net` still stops a connect
 * the application let through.
 */
import assert from "node:assert/strict";
import { denyNetExcept } from "../../../cli/commands/deny_net.ts";
import { allBuiltinTools } from "../../../tools/builtin/all.ts";
import { createDenoToolEffects } from "../../../tools/deno/effects.ts";
import type { ToolEffects } from "../../../tools/effects.ts";
import { createModePolicy } from "../../../tools/modes.ts";
import type {
  PermissionState,
  ToolPermission,
} from "../../../tools/sandbox/permission_query.ts";
import { createToolRegistry } from "../../../tools/registry_impl.ts";
import { SSRF_DENY_NET } from "../../../tools/sandbox/ssrf.ts";
import { makeContext, messageOf, recordingHost, testTls } from "../_helpers.ts";
import { runProbe } from "../fixtures/run_probe.ts";

const { ca, cert, key } = await testTls();

async function withServer(
  fn: (port: number, hosts: string[]) => Promise<void>,
): Promise<void> {
  const hosts: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen() {} },
    (req) => {
      hosts.push(req.headers.get("host") ?? "");
      return new Response(`reached ${new URL(req.url).pathname}`);
    },
  );
  try {
    await fn(server.addr.port, hosts);
  } finally {
    await server.shutdown();
  }
}

/** The real Deno host, except that DNS answers come from `answers`. */
function pinnedHost(answers: Record<string, string[]>): ToolEffects {
  const real = createDenoToolEffects({ caCerts: [ca] });
  return {
    ...real,
    resolveDns: (name) => Promise.resolve(answers[name] ?? []),
  };
}

function rig(
  host: ToolEffects,
  options: {
    domains: string[];
    permissions?: (p: ToolPermission) => PermissionState;
  },
) {
  const recorded = recordingHost(host);
  const asked: ToolPermission[] = [];
  const registry = createToolRegistry({
    tools: allBuiltinTools(),
    host: recorded.host,
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
    permissions: (p) => {
      asked.push(p);
      return options.permissions?.(p) ?? "granted";
    },
    guardrails: {
      allowedDomains: options.domains,
      allowLoopbackForTests: true,
    },
  });
  const modes = createModePolicy({ mode: "auto", interactive: false });
  async function call(url: string) {
    const t = makeContext({ granted: ["http_request"], policy: modes.policy });
    return await registry.dispatch(
      { id: "c", name: "http_request", args: { url } },
      t.ctx,
    );
  }
  return { call, calls: recorded.calls, asked };
}

Deno.test("http_request connects to the validated address, TLS verified for the name", async () => {
  await withServer(async (port, hosts) => {
    const r = rig(pinnedHost({ "pinned.test": ["127.0.0.1"] }), {
      domains: ["pinned.test"],
    });
    const o = await r.call(`https://pinned.test:${port}/hello`);
    assert.equal(o.kind, "ok", messageOf(o));
    const got = JSON.parse(o.kind === "ok" ? o.modelResult : "{}");
    assert.equal(got.status, 200);
    assert.equal(got.body, "reached /hello");
    assert.deepEqual(hosts, [`pinned.test:${port}`]);
    assert.deepEqual(
      r.calls.map((c) => [c.op, c.target]),
      [["resolveDns", "pinned.test"], [
        "fetch",
        `https://pinned.test:${port}/hello`,
      ]],
    );
    const net = r.asked.filter((p) => p.name === "net");
    assert.deepEqual(net, [{ name: "net", host: `127.0.0.1:${port}` }]);
  });
});

Deno.test("http_request checks the certificate against the name, not the address", async () => {
  await withServer(async (port, hosts) => {
    const r = rig(pinnedHost({ "other.test": ["127.0.0.1"] }), {
      domains: ["other.test"],
    });
    const o = await r.call(`https://other.test:${port}/`);
    assert.equal(o.kind, "fatal");
    if (o.kind === "fatal") assert.equal(o.error.code, "tool_failed");
    assert.deepEqual(hosts, [], "no request was sent");
  });
});

Deno.test("http_request without a net grant for the address is tool_unavailable naming it", async () => {
  await withServer(async (port, hosts) => {
    const r = rig(
      pinnedHost({ "pinned.test": ["127.0.0.2", "127.0.0.1", "::1"] }),
      {
        domains: ["pinned.test"],
        permissions: (p) =>
          p.name === "net" && p.host === `127.0.0.1:${port}`
            ? "granted"
            : p.name === "net"
            ? "prompt"
            : "granted",
      },
    );
    // Only 127.0.0.1 is granted: the request goes there.
    const ok = await r.call(`https://pinned.test:${port}/a`);
    assert.equal(ok.kind, "ok", messageOf(ok));
    assert.deepEqual(
      r.asked.filter((p) => p.name === "net").map((p) =>
        p.name === "net" ? p.host : ""
      ),
      [`127.0.0.2:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`],
      "IPv4 answers first, each queried, never requested",
    );
    const none = rig(pinnedHost({ "pinned.test": ["127.0.0.3"] }), {
      domains: ["pinned.test"],
      permissions: (p) => (p.name === "net" ? "denied" : "granted"),
    });
    const o = await none.call(`https://pinned.test:${port}/b`);
    assert.equal(o.kind, "fatal");
    if (o.kind === "fatal") assert.equal(o.error.code, "tool_unavailable");
    assert.match(
      messageOf(o),
      new RegExp(`--allow-net=127\\.0\\.0\\.3:${port}`),
    );
    assert.ok(!none.calls.some((c) => c.op === "fetch"));
    assert.equal(hosts.length, 1);
  });
});

function probe(port: number, net: string[]): Promise<string> {
  return runProbe(net, [String(port)]);
}

Deno.test("in a real process an IPv4-range grant suffices and --deny-net still refuses the connect", async () => {
  await withServer(async (port) => {
    const range = `--allow-net=0.0.0.0/0:${port}`;
    const keepLoopback = denyNetExcept(["127.0.0.1"]).deny;
    assert.equal(
      await probe(port, [range, `--deny-net=${keepLoopback.join(",")}`]),
      `ok 200 reached /probe`,
      "no grant names pinned.test: the connect is by address",
    );
    assert.equal(
      await probe(port, [range, `--deny-net=${SSRF_DENY_NET.join(",")}`]),
      `fatal tool_unavailable`,
      "the app let loopback through (test switch); Deno refused the connect",
    );
    assert.equal(
      await probe(port, [`--allow-net=pinned.test:${port}`]),
      `fatal tool_unavailable`,
      "a grant for the name alone does not cover the address",
    );
  });
});
