/**
 * The SSRF primitive and `http_request`'s refusals: every
 * literal notation, range, blocked name, scheme and userinfo case is
 * refused before approval with the host seeing nothing; DNS answers are
 * all checked (one bad answer blocks all) before any request.
 */
import assert from "node:assert/strict";
import { allBuiltinTools } from "../../../tools/builtin/all.ts";
import type { ToolGuardrails } from "../../../tools/tool.ts";
import { type ToolEffects, ToolEffectsError } from "../../../tools/effects.ts";
import { createModePolicy } from "../../../tools/modes.ts";
import { createToolRegistry } from "../../../tools/registry_impl.ts";
import {
  canonicalHost,
  checkPublicUrl,
  checkResolvedAddresses,
  checkUrl,
  isBlockedAddress,
} from "../../../tools/sandbox/ssrf.ts";
import {
  grantAll,
  makeContext,
  messageOf,
  recordingHost,
} from "../_helpers.ts";

function rig(guardrails: ToolGuardrails, inner?: ToolEffects) {
  const recorded = recordingHost(inner);
  const registry = createToolRegistry({
    tools: allBuiltinTools(),
    host: recorded.host,
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
    permissions: grantAll,
    guardrails,
  });
  let asked = 0;
  const modes = createModePolicy({
    mode: "accept-edits",
    interactive: true,
    approver: () => {
      asked++;
      return Promise.resolve("once");
    },
  });
  async function call(url: string) {
    const t = makeContext({
      granted: ["http_request"],
      interactive: true,
      policy: modes.policy,
    });
    return await registry.dispatch(
      { id: "c", name: "http_request", args: { url } },
      t.ctx,
    );
  }
  return { call, calls: recorded.calls, asked: () => asked };
}

const PRIVATE_TABLE: [string, string][] = [
  ["https://127.0.0.1/", "ssrf_blocked"],
  ["https://localhost/", "ssrf_blocked"],
  ["https://LOCALHOST./", "ssrf_blocked"],
  ["https://0.0.0.0/", "ssrf_blocked"],
  ["https://[::1]/", "ssrf_blocked"],
  ["https://[::]/", "ssrf_blocked"],
  ["https://[::ffff:127.0.0.1]/", "ssrf_blocked"],
  ["https://2130706433/", "ssrf_blocked"],
  ["https://0x7f000001/", "ssrf_blocked"],
  ["https://0177.0.0.1/", "ssrf_blocked"],
  ["https://127.1/", "ssrf_blocked"],
  ["https://169.254.169.254/latest/meta-data/", "ssrf_blocked"],
  ["https://10.1.2.3/", "ssrf_blocked"],
  ["https://172.16.0.1/", "ssrf_blocked"],
  ["https://172.31.255.255/", "ssrf_blocked"],
  ["https://192.168.1.1/", "ssrf_blocked"],
  ["https://100.64.0.1/", "ssrf_blocked"],
  ["https://224.0.0.1/", "ssrf_blocked"],
  ["https://240.0.0.1/", "ssrf_blocked"],
  ["https://255.255.255.255/", "ssrf_blocked"],
  ["https://198.18.0.1/", "ssrf_blocked"],
  ["https://192.0.0.8/", "ssrf_blocked"],
  ["https://[fe80::1]/", "ssrf_blocked"],
  ["https://[fc00::1]/", "ssrf_blocked"],
  ["https://[fd12:3456::1]/", "ssrf_blocked"],
  ["https://[::10.0.0.1]/", "ssrf_blocked"],
  ["https://[64:ff9b::10.0.0.1]/", "ssrf_blocked"],
  ["https://[2002:a00:1::]/", "ssrf_blocked"],
  ["https://metadata.google.internal/", "ssrf_blocked"],
  ["https://printer.local/", "ssrf_blocked"],
  ["https://app.localhost/", "ssrf_blocked"],
  ["http://example.com/", "insecure_url"],
  ["https://user:pw@example.com/", "insecure_url"],
  ["https://user@example.com/", "insecure_url"],
  ["ftp://example.com/", "insecure_url"],
  ["not a url", "insecure_url"],
  ["https://evil.example.com/", "domain_not_allowed"],
  ["https://example.com.evil.net/", "domain_not_allowed"],
  ["https://8.8.8.8/", "domain_not_allowed"],
];

Deno.test("http_request SSRF table: refused before approval, the host sees nothing", async (t) => {
  // Allowlisting a private literal or name does not unblock it.
  const guardrails = {
    allowedDomains: ["example.com", "127.0.0.1", "localhost", "10.1.2.3"],
  };
  for (const [url, reason] of PRIVATE_TABLE) {
    await t.step(url, async () => {
      const r = rig(guardrails);
      const o = await r.call(url);
      assert.equal(o.kind, "fatal");
      if (o.kind === "fatal") assert.equal(o.error.code, "tool_denied");
      assert.match(messageOf(o), new RegExp(reason));
      assert.ok(!messageOf(o).includes("://"), "no URL in the message");
      assert.deepEqual(r.calls, []);
      assert.equal(r.asked(), 0);
    });
  }
  await t.step("an empty domain list denies every host", async () => {
    const r = rig({});
    assert.match(
      messageOf(await r.call("https://example.com/")),
      /domain_not_allowed/,
    );
    assert.deepEqual(r.calls, []);
  });
});

/** A host whose DNS answers are scripted and whose fetch records. */
function dnsHost(answers: string[]) {
  const fetched: string[] = [];
  const pinned: (readonly string[] | undefined)[] = [];
  function dead(): never {
    throw new ToolEffectsError("failed");
  }
  const host: ToolEffects = {
    os: "posix",
    realPath: dead,
    lstat: dead,
    stat: dead,
    readFile: dead,
    readDir: dead,
    readEnv: () => ({}),
    spawn: dead,
    resolveDns: () => Promise.resolve(answers),
    fetch: (request) => {
      fetched.push(request.url);
      pinned.push(request.addresses);
      return Promise.resolve({
        status: 200,
        headers: {},
        body: new TextEncoder().encode("ok"),
        bodyTruncated: false,
      });
    },
  };
  return { host, fetched, pinned };
}

Deno.test("http_request checks every DNS answer before the request", async (t) => {
  const rows: [string, string[], boolean][] = [
    ["a private answer", ["10.0.0.7"], false],
    ["one bad answer among good ones", ["93.184.216.34", "192.168.0.4"], false],
    ["an IPv4-mapped loopback answer", ["::ffff:127.0.0.1"], false],
    ["a metadata answer", ["169.254.169.254"], false],
    ["no answer", [], false],
    [
      "public answers only (control)",
      ["2606:2800:220:1::", "93.184.216.34", "93.184.216.34"],
      true,
    ],
  ];
  for (const [name, answers, allowed] of rows) {
    await t.step(name, async () => {
      const fake = dnsHost(answers);
      const r = rig({ allowedDomains: ["api.example.com"] }, fake.host);
      const o = await r.call("https://api.example.com/v1");
      assert.equal(r.asked(), 1, "approval comes first, DNS at dispatch");
      if (allowed) {
        assert.equal(o.kind, "ok", messageOf(o));
        assert.deepEqual(fake.fetched, ["https://api.example.com/v1"]);
        assert.deepEqual(
          fake.pinned,
          [["93.184.216.34", "2606:2800:220:1::"]],
          "the request is pinned to the checked answers, IPv4 first, once each",
        );
      } else {
        assert.equal(o.kind, "fatal");
        if (o.kind === "fatal") assert.equal(o.error.code, "tool_denied");
        assert.match(messageOf(o), /blocked address|no addresses/);
        assert.deepEqual(fake.fetched, []);
      }
    });
  }
});

Deno.test("canonicalHost() and isBlockedAddress() across notations", () => {
  const rows: [string, string | undefined, boolean][] = [
    ["2130706433", "127.0.0.1", true],
    ["0x7f000001", "127.0.0.1", true],
    ["0177.0.0.1", "127.0.0.1", true],
    ["127.1", "127.0.0.1", true],
    ["0x7f.1", "127.0.0.1", true],
    ["1.2.3.4.", "1.2.3.4", false],
    ["[::FFFF:127.0.0.1]", "::ffff:7f00:1", true],
    ["::ffff:0:10.0.0.1", "::ffff:0:a00:1", true],
    ["64:ff9b:1::1", "64:ff9b:1::1", true],
    ["64:ff9b::8.8.8.8", "64:ff9b::808:808", false],
    ["2606:2800:220:1::", "2606:2800:220:1::", false],
    ["ff02::1", "ff02::1", true],
    ["256.0.0.1", undefined, true],
    ["08.0.0.1", undefined, true],
    ["fe80::1%eth0", undefined, true],
  ];
  for (const [input, canonical, blocked] of rows) {
    const c = canonicalHost(input);
    assert.equal(
      c === undefined || c.kind === "name" ? undefined : c.address,
      canonical,
      input,
    );
    assert.equal(isBlockedAddress(input), blocked, input);
  }
  assert.equal(
    isBlockedAddress("127.0.0.1", { allowLoopbackForTests: true }),
    false,
  );
  assert.equal(isBlockedAddress("::1", { allowLoopbackForTests: true }), false);
  assert.equal(
    isBlockedAddress("10.0.0.1", { allowLoopbackForTests: true }),
    true,
  );
  assert.equal(
    checkUrl("https://localhost/", { allowLoopbackForTests: true }).ok,
    false,
  );
});

Deno.test("checkUrl() matches domains exactly; checkPublicUrl() resolves names only", async () => {
  const allowedDomains = ["API.Example.com."];
  assert.equal(
    checkUrl("https://api.example.com/x", { allowedDomains }).ok,
    true,
  );
  assert.equal(
    checkUrl("https://api.example.com./x", { allowedDomains }).ok,
    true,
  );
  assert.equal(
    checkUrl("https://www.api.example.com/", { allowedDomains }).ok,
    false,
  );
  assert.equal(checkUrl("https://example.com/", { allowedDomains }).ok, false);
  assert.equal(
    checkUrl("http://example.com/", { schemes: ["http:", "https:"] }).ok,
    true,
  );
  assert.equal(checkResolvedAddresses(["not-an-ip"]).ok, false);
  const looked: string[] = [];
  const resolve = (name: string) => {
    looked.push(name);
    return Promise.resolve(["93.184.216.34"]);
  };
  assert.equal(
    (await checkPublicUrl("https://llm.example.com/v1", { resolve })).ok,
    true,
  );
  assert.equal(
    (await checkPublicUrl("https://93.184.216.34/v1", { resolve })).ok,
    true,
  );
  assert.deepEqual(looked, ["llm.example.com"]);
});
