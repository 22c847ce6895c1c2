import assert from "node:assert/strict";
import { checkProviderDns } from "../../../cli/run/provider_dns.ts";
import type { ResolvedProvider } from "../../../cli/config/resolve.ts";
import { runCli, tempDir, write } from "../_helpers.ts";
import { agentYaml } from "../_fake_providers.ts";

const GW: ResolvedProvider = {
  id: "gw",
  kind: "openai-compatible",
  builtIn: false,
  baseUrl: "https://gw.example.com/v1",
  allowLocal: false,
  source: "project",
};

function resolver(answers: string[]) {
  const asked: string[] = [];
  return {
    asked,
    resolve: (name: string) => {
      asked.push(name);
      return Promise.resolve(answers);
    },
  };
}

Deno.test("checkProviderDns(): one blocked answer refuses the endpoint", async () => {
  for (
    const answers of [
      ["10.0.0.5"],
      ["203.0.113.7", "127.0.0.1"],
      ["169.254.169.254"],
      ["::ffff:192.168.1.1"],
      ["fd00::1"],
    ]
  ) {
    const r = await checkProviderDns(GW, resolver(answers).resolve);
    assert.equal(r.kind, "refused", answers.join(","));
    if (r.kind === "refused") {
      assert.equal(r.fault.code, "provider_config");
      assert.match(
        r.fault.message,
        /base_url of "gw": gw\.example\.com resolves/,
      );
    }
  }
  const env = await checkProviderDns(
    {
      ...GW,
      id: "openai",
      builtIn: true,
      baseUrlSource: "env",
      allowLocal: true,
    },
    resolver(["10.0.0.5"]).resolve,
  );
  assert.match(
    env.kind === "refused" ? env.fault.message : "",
    /RELAVIUM_OPENAI_BASE_URL/,
  );
});

Deno.test("checkProviderDns(): public answers pass; local, literal and built-in endpoints are not looked up", async () => {
  const pub = resolver(["203.0.113.7", "2001:db8::1"]);
  assert.deepEqual(await checkProviderDns(GW, pub.resolve), { kind: "ok" });
  assert.deepEqual(pub.asked, ["gw.example.com"]);
  for (
    const p of [
      { ...GW, allowLocal: true },
      { ...GW, baseUrl: "https://203.0.113.7/v1" },
      {
        id: "anthropic",
        kind: "anthropic",
        builtIn: true,
        allowLocal: false,
        source: "built-in",
      } as ResolvedProvider,
    ]
  ) {
    const r = resolver(["10.0.0.5"]);
    assert.deepEqual(await checkProviderDns(p, r.resolve), { kind: "ok" });
    assert.deepEqual(r.asked, []);
  }
});

Deno.test("checkProviderDns(): no answer or a failed lookup refuses the endpoint", async () => {
  const empty = await checkProviderDns(GW, resolver([]).resolve);
  assert.match(
    empty.kind === "refused" ? empty.fault.message : "",
    /gw\.example\.com has no DNS answers/,
  );
  const r = await checkProviderDns(
    GW,
    () => Promise.reject(new Deno.errors.NotCapable("net")),
  );
  assert.equal(r.kind, "refused");
  assert.match(
    r.kind === "refused" ? r.fault.message : "",
    /could not be checked: .*NotCapable.*--allow-net/,
  );
});

Deno.test("agent run: a custom endpoint whose name resolves to a private address stops before any request (exit 2)", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/.relavium/project.toml`,
    `[[providers]]\nid = "gw"\nkind = "openai-compatible"\nbase_url = "https://gw.example.com/v1"\n`,
  );
  await write(
    `${dir.path}/a.agent.yaml`,
    agentYaml({ provider: "gw", model: "m" }),
  );
  const urls: string[] = [];
  const dns = resolver(["10.20.30.40"]);
  const r = await runCli(["agent", "run", "a.agent.yaml", "--json"], {
    env: { RELAVIUM_HOME: `${dir.path}/home`, RELAVIUM_GW_API_KEY: "k" },
    cwd: dir.path,
    stdin: "Hello\n",
    fetch: (url) => {
      urls.push(url);
      return Promise.reject(new Error("no request expected"));
    },
    resolveDns: dns.resolve,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, "");
  const e = JSON.parse(r.stderr);
  assert.equal(e.code, "provider_config");
  assert.match(e.message, /gw\.example\.com resolves to a private/);
  assert.deepEqual(dns.asked, ["gw.example.com"]);
  assert.deepEqual(urls, []);
});
