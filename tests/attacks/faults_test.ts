/**
 * Attack table, faults: what a broken or hostile file (a cassette, a
 * provider endpoint's DNS answer, a tampered session store) can make the
 * CLI do. One row per vector, each driven through `main` in process: the
 * row's exit code and stderr, never a stack trace or an internal error,
 * and nothing already stored changed.
 */
import assert from "node:assert/strict";
import { runCli, type RunOptions, tempDir, write } from "../cli/_helpers.ts";

const AGENT =
  "id: mini\nname: Mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n";

const STOP = {
  type: "stop",
  stopReason: "stop",
  usage: { inputTokens: 1, outputTokens: 1 },
};

/** One vector: files to plant, the command, and what it must end with. */
interface Row {
  name: string;
  /** Files (relative to the temp dir) written before the run. */
  files?: Record<string, string>;
  /** Runs after the files, before the command (e.g. to tamper a store). */
  setup?: (dir: string) => Promise<void>;
  argv: string[];
  options?: Omit<RunOptions, "cwd" | "fetch">;
  /** Every provider request is recorded and refused; with this, none may be made. */
  noRequest?: true;
  code: number;
  /** Every pattern must match stderr. */
  stderr: RegExp[];
  /** Further checks after the run. */
  after?: (dir: string, r: { stdout: string; stderr: string }) => Promise<void>;
}

function cassette(doc: unknown): string {
  return JSON.stringify(doc);
}

const GW_AGENT =
  "id: gw\nname: Gw\nmodel: m\nprovider: gw\nsystem_prompt: Be terse.\n";

/** A global (user's) config declaring provider `gw` at `url`. */
function gwConfig(url: string, allowLocal: boolean): string {
  return `[[providers]]\nid = "gw"\nkind = "openai-compatible"\nbase_url = "${url}"\n${
    allowLocal ? "allow_local = true\n" : ""
  }`;
}

/** A provider base URL at a metadata or platform endpoint: refused even with allow_local. */
function metadataProvider(name: string, url: string): Row {
  return {
    name: `ssrf: a provider at ${name} is refused even with allow_local`,
    files: {
      "a.agent.yaml": GW_AGENT,
      "home/config.toml": gwConfig(url, true),
    },
    argv: ["agent", "run", "a.agent.yaml"],
    options: { stdin: "hi\n", env: { RELAVIUM_GW_API_KEY: "k" } },
    noRequest: true,
    code: 2,
    stderr: [/base_url.*must not point at a cloud metadata address/],
  };
}

/** A provider on a public-looking name whose DNS check cannot vouch for it. */
function unresolvedProvider(
  name: string,
  resolveDns: (name: string) => Promise<string[]>,
  why: RegExp,
): Row {
  return {
    name: `ssrf: a provider name that ${name} is refused before any request`,
    files: {
      "a.agent.yaml": GW_AGENT,
      "home/config.toml": gwConfig("https://gw.example.com/v1", false),
    },
    argv: ["--json", "agent", "run", "a.agent.yaml"],
    options: {
      stdin: "hi\n",
      env: { RELAVIUM_GW_API_KEY: "k" },
      resolveDns,
    },
    noRequest: true,
    code: 2,
    stderr: [/"code":"provider_config"/, why],
  };
}

const TOOL_AGENT =
  "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n  - http_request\n";

/** The model asks `http_request` for a metadata URL: refused as `ssrf_blocked`. */
function metadataFetch(url: string): Row {
  const call = [
    { type: "tool_call_start", id: "c1", name: "http_request" },
    {
      type: "tool_call_delta",
      id: "c1",
      argsJsonDelta: JSON.stringify({ url }),
    },
    { type: "tool_call_end", id: "c1" },
    {
      type: "stop",
      stopReason: "tool_use",
      usage: { inputTokens: 1, outputTokens: 1 },
    },
  ];
  return {
    name: `ssrf: http_request to ${url} is refused as ssrf_blocked`,
    files: {
      "helper.agent.yaml": TOOL_AGENT,
      "c.json": cassette({
        schema_version: "1.0",
        provider: "anthropic",
        calls: [call],
      }),
    },
    argv: "--json agent run helper.agent.yaml --fixture c.json --mode auto"
      .split(" "),
    options: { stdin: "fetch it\n" },
    // A denied tool call ends the turn (tool_denied): exit 1.
    code: 1,
    stderr: [],
    after: (_dir, r) => {
      const results = r.stdout.split("\n").filter((l) =>
        l.includes('"agent:tool_result"')
      );
      assert.equal(results.length, 1, r.stdout);
      assert.match(results[0] ?? "", /denied \(ssrf_blocked\)/);
      return Promise.resolve();
    },
  };
}

const rows: Row[] = [
  {
    name: "cassette: a call without a terminal chunk is invalid at load",
    files: {
      "mini.agent.yaml": AGENT,
      "c.json": cassette({
        schema_version: "1.0",
        provider: "openai",
        calls: [[{ type: "text_delta", text: "cut off" }]],
      }),
    },
    argv: ["agent", "run", "mini.agent.yaml", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 2,
    stderr: [
      /Invalid cassette: .*c\.json: calls\[0\]: no terminal stop\/error/,
    ],
  },
  {
    name: "cassette: an empty v1.1 provider-queue call is invalid at load",
    files: {
      "mini.agent.yaml": AGENT,
      "c.json": cassette({
        schema_version: "1.1",
        providers: {
          openai: { calls: [[{ type: "text_delta", text: "a" }, STOP], []] },
        },
      }),
    },
    argv: ["agent", "run", "mini.agent.yaml", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 2,
    stderr: [/c\.json: providers\.openai\.calls\[1\]: no terminal stop\/error/],
  },
  {
    name:
      "cassette: a v1.1 {chunks} call without a terminal is invalid at load",
    files: {
      "mini.agent.yaml": AGENT,
      "c.json": cassette({
        schema_version: "1.1",
        provider: "openai",
        calls: [{ chunks: [{ type: "text_delta", text: "a" }] }],
      }),
    },
    argv: ["chat", "--fixture", "c.json"],
    options: { stdin: "hi\n" },
    code: 2,
    // Refused before a session exists: no store was created.
    after: async (dir) => {
      await assert.rejects(
        () => Deno.stat(`${dir}/home/history.db`),
        Deno.errors.NotFound,
      );
    },
    stderr: [/c\.json: calls\[0\]\.chunks: no terminal stop\/error/],
  },
  metadataProvider("the Azure wireserver", "http://168.63.129.16/v1"),
  metadataProvider("Alibaba's metadata", "http://100.100.100.200/v1"),
  metadataProvider("Oracle Classic's metadata", "http://192.0.0.192/v1"),
  metadataProvider("a mapped wireserver", "http://[::ffff:168.63.129.16]/v1"),
  metadataProvider("GCE's IPv6 metadata", "http://[fd20:ce::254]/v1"),
  metadataProvider("metadata.goog", "https://metadata.goog/v1"),
  metadataProvider("instance-data", "http://instance-data/v1"),
  unresolvedProvider(
    "has no DNS answers (hosts file only)",
    () => Promise.resolve([]),
    /gw\.example\.com has no DNS answers/,
  ),
  unresolvedProvider(
    "fails to resolve",
    () => Promise.reject(new Deno.errors.NotCapable("net")),
    /gw\.example\.com could not be checked/,
  ),
  unresolvedProvider(
    "resolves to the Azure wireserver",
    () => Promise.resolve(["203.0.113.7", "168.63.129.16"]),
    /resolves to a private, loopback or metadata address/,
  ),
  metadataFetch("https://168.63.129.16/machine?comp=goalstate"),
  metadataFetch("https://[64:ff9b::a83f:8110]/"),
  metadataFetch("https://metadata.goog/computeMetadata/v1/"),
  metadataFetch("https://instance-data/latest/meta-data/"),
  metadataFetch("https://100.100.100.200/latest/meta-data/"),
];

Deno.test("attacks: faults", async (t) => {
  for (const row of rows) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      for (const [path, text] of Object.entries(row.files ?? {})) {
        await write(`${dir.path}/${path}`, text);
      }
      await row.setup?.(dir.path);
      const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
      const requests: string[] = [];
      const r = await runCli(row.argv, {
        ...row.options,
        env: { ...env, ...row.options?.env },
        cwd: dir.path,
        fetch: (url) => {
          requests.push(url);
          return Promise.reject(new TypeError("no network in this test"));
        },
      });
      assert.equal(r.code, row.code, r.stderr + r.stdout);
      for (const want of row.stderr) assert.match(r.stderr, want);
      assert.doesNotMatch(r.stderr, /Internal error|\n\s+at /);
      assert.doesNotMatch(r.stdout, /Internal error|\n\s+at /);
      if (row.noRequest) assert.deepEqual(requests, []);
      await row.after?.(dir.path, r);
    });
  }
});
