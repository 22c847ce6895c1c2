/**
 * Loopback fake providers for the CLI's end-to-end tests: the adapter
 * conformance servers (`tests/llm/adapters/_server.ts`) replaying the wire
 * fixtures of `tests/fixtures/{anthropic,openai}/`, a transport that only
 * reaches 127.0.0.1, and the project files that declare the fakes as
 * `[[providers]]` entries.
 */
import assert from "node:assert/strict";
import type { FetchFn } from "../../llm/http.ts";
import { fixture } from "../llm/adapters/_server.ts";
import { runCli, type RunOptions, type RunResult, write } from "./_helpers.ts";
import { type Reply, serve, type TestServer } from "../llm/adapters/_server.ts";

export {
  fixture,
  http,
  serve,
  sse,
  type TestServer,
} from "../llm/adapters/_server.ts";

/** Keys planted in the environment; none may appear outside a request header. */
export const PLANTED = {
  anthropic: "sk-ant-planted-3f9c1e7a5b2d4c68",
  openai: "sk-planted-openai-8d4e2a6c0f1b3e57",
} as const;

/** A transport that reaches only 127.0.0.1 and logs every URL it is asked for. */
export function loopbackFetch(): { fetch: FetchFn; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch(input: string, init: RequestInit): Promise<Response> {
      urls.push(input);
      if (new URL(input).hostname !== "127.0.0.1") {
        return Promise.reject(new TypeError(`Not a loopback URL: ${input}`));
      }
      return fetch(input, init);
    },
  };
}

function rewrite(
  bytes: Uint8Array,
  pairs: Array<[string, string]>,
): Uint8Array {
  let text = new TextDecoder().decode(bytes);
  for (const [from, to] of pairs) {
    if (!text.includes(from)) throw new Error(`Fixture lacks ${from}`);
    text = text.replaceAll(from, to);
  }
  return new TextEncoder().encode(text);
}

/**
 * `anthropic/tool_split_args.sse` with its tool renamed to `read_file` and
 * its split arguments rewritten (same split points) to
 * `{"path": "notes.txt"}`.
 */
export function anthropicReadNotes(): Uint8Array {
  return rewrite(fixture("anthropic", "tool_split_args.sse"), [
    ['"name":"get_weather"', '"name":"read_file"'],
    ['{\\"loc', '{\\"pa'],
    ['ation\\": \\"San Fra', 'th\\": \\"not'],
    ['ncisco, CA\\", \\"unit\\": \\"cel', "es.t"],
    ['sius\\"}', 'xt\\"}'],
  ]);
}

/**
 * `openai/tool_split_args.sse` with its tool renamed to `read_file` and
 * its split arguments rewritten to `{"path":"notes.txt"}`.
 */
export function openaiReadNotes(): Uint8Array {
  return rewrite(fixture("openai", "tool_split_args.sse"), [
    ['"name":"get_weather"', '"name":"read_file"'],
    ['"arguments":"location"', '"arguments":"path"'],
    ["San Fra", "not"],
    ["ncisco, CA", "es.txt"],
  ]);
}

/** One `[[providers]]` block. */
export interface FakeEntry {
  id: string;
  kind: "anthropic" | "openai-compatible" | "openai-responses" | "gemini";
  baseUrl: string;
  allowLocal?: boolean;
  /** Further keys of the block (numbers), e.g. `first_byte_timeout_ms`. */
  extra?: Record<string, number>;
}

/** A `[[providers]]` entry `id` of `kind` at `baseUrl`, allowed on loopback. */
export function localEntry(
  id: string,
  kind: FakeEntry["kind"],
  baseUrl: string,
): FakeEntry {
  return { id, kind, baseUrl, allowLocal: true };
}

/** The home under `dir` and the planted keys of `fake-anthropic` and `fake-openai`. */
export function keyEnv(dir: string): Record<string, string> {
  return {
    RELAVIUM_HOME: `${dir}/home`,
    RELAVIUM_FAKE_ANTHROPIC_API_KEY: PLANTED.anthropic,
    RELAVIUM_FAKE_OPENAI_API_KEY: PLANTED.openai,
  };
}

/** No planted key (or one of `keys`) appears in `text`. */
export function assertNoKey(
  text: string,
  where: string,
  keys: readonly string[] = Object.values(PLANTED),
): void {
  for (const key of keys) {
    assert.ok(!text.includes(key), `a planted key leaked into ${where}`);
  }
}

/** Runs `body`, then closes every server however it ended. */
export async function withServers(
  servers: TestServer[],
  body: () => Promise<void>,
): Promise<void> {
  try {
    await body();
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

/** `main(argv, io)` in `dir` with `env` and `stdin`, its transport the loopback only. */
export function runLoopback(
  dir: string,
  argv: string[],
  options: Pick<RunOptions, "stdin"> & { env: Record<string, string> },
): Promise<RunResult> {
  return runCli(argv, {
    env: options.env,
    cwd: dir,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    fetch: loopbackFetch().fetch,
  });
}

/** Writes `<dir>/.relavium/project.toml` declaring `entries`. */
export async function declareProviders(
  dir: string,
  entries: readonly FakeEntry[],
): Promise<void> {
  const blocks = entries.map((e) =>
    [
      "[[providers]]",
      `id = "${e.id}"`,
      `kind = "${e.kind}"`,
      `base_url = "${e.baseUrl}"`,
      ...(e.allowLocal === true ? ["allow_local = true"] : []),
      ...Object.entries(e.extra ?? {}).map(([k, v]) => `${k} = ${v}`),
    ].join("\n")
  );
  await write(`${dir}/.relavium/project.toml`, `${blocks.join("\n\n")}\n`);
}

/** An agent file; `fallback` entries get `max_attempts: 1`. */
export function agentYaml(options: {
  provider: string;
  model: string;
  tools?: string[];
  fallback?: Array<{ provider: string; model: string }>;
}): string {
  const lines = [
    "id: fake",
    "name: Fake",
    `model: ${options.model}`,
    `provider: ${options.provider}`,
    "system_prompt: Be terse.",
  ];
  if (options.tools !== undefined) {
    lines.push("tools:", ...options.tools.map((t) => `  - ${t}`));
  }
  if (options.fallback !== undefined) {
    lines.push("fallback_chain:");
    for (const f of options.fallback) {
      lines.push(
        `  - model: ${f.model}`,
        `    provider: ${f.provider}`,
        "    max_attempts: 1",
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

/**
 * `agent run --json` in `dir` on an agent of the loopback Anthropic entry
 * `fake-anthropic` at `url` (its key planted), with the user's
 * `config.toml` when given.
 */
export async function agentRunOnFakeAnthropic(
  dir: string,
  url: string,
  options: {
    stdin: string;
    home?: string;
    tools?: string[];
    extra?: Record<string, number>;
    /** The planted key (default `PLANTED.anthropic`). */
    key?: string;
    /** Flags after the agent file (default `--json`). */
    flags?: string[];
  },
): Promise<RunResult> {
  await declareProviders(dir, [{
    id: "fake-anthropic",
    kind: "anthropic",
    baseUrl: url,
    allowLocal: true,
    ...(options.extra === undefined ? {} : { extra: options.extra }),
  }]);
  if (options.home !== undefined) {
    await write(`${dir}/home/config.toml`, options.home);
  }
  await write(
    `${dir}/a.agent.yaml`,
    agentYaml({
      provider: "fake-anthropic",
      model: "claude-sonnet-4-6",
      ...(options.tools === undefined ? {} : { tools: options.tools }),
    }),
  );
  return await runCli(
    ["agent", "run", "a.agent.yaml", ...(options.flags ?? ["--json"])],
    {
      env: {
        RELAVIUM_HOME: `${dir}/home`,
        RELAVIUM_FAKE_ANTHROPIC_API_KEY: options.key ?? PLANTED.anthropic,
        NO_COLOR: "1",
      },
      cwd: dir,
      stdin: options.stdin,
      fetch: loopbackFetch().fetch,
    },
  );
}

/** Every file under `dir`, as bytes decoded leniently (for leak checks). */
export async function allFileText(dir: string): Promise<string> {
  let out = "";
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out += await allFileText(path);
    else if (entry.isFile) {
      out += new TextDecoder("utf-8", { fatal: false }).decode(
        await Deno.readFile(path),
      );
    }
  }
  return out;
}

/** One link of a fallback chain: its entry at a server's URL, its model, the server's replies. */
export interface ChainLink {
  entry: (url: string) => FakeEntry;
  model: string;
  replies: Reply[];
}

/**
 * Serves `replies` as `fake-anthropic`, declares it and writes
 * `a.agent.yaml` on it (`claude-sonnet-4-6`, with `fallback`), runs
 * `body`, and closes the server however it ends.
 */
export async function withFakeAnthropic(
  dir: string,
  replies: Reply[],
  body: (server: TestServer) => Promise<void>,
  fallback?: Array<{ provider: string; model: string }>,
): Promise<void> {
  const server = serve(replies);
  await withServers([server], async () => {
    await declareProviders(dir, [
      localEntry("fake-anthropic", "anthropic", server.url),
    ]);
    await write(
      `${dir}/a.agent.yaml`,
      agentYaml({
        provider: "fake-anthropic",
        model: "claude-sonnet-4-6",
        ...(fallback === undefined ? {} : { fallback }),
      }),
    );
    await body(server);
  });
}

/** The fakes' ids, each with its kind and the path its base URL ends in. */
const FAKES = {
  "fake-anthropic": ["anthropic", ""],
  "fake-openai": ["openai-compatible", "/v1"],
  "fake-gemini": ["gemini", "/v1beta"],
} as const;

/** A chain link on the fake `id` (its usual kind and path), serving `replies`. */
export function link(
  id: keyof typeof FAKES,
  model: string,
  replies: Reply[],
): ChainLink {
  const [kind, path] = FAKES[id];
  return {
    entry: (url) => localEntry(id, kind, `${url}${path}`),
    model,
    replies,
  };
}

/**
 * Serves each link, declares them, writes `a.agent.yaml` on the first
 * with the second as its fallback (and `tools`), and runs `argv` in `dir`
 * on the loopback; the servers are closed before it returns.
 *
 * @returns The run and how many requests each link's server saw.
 */
export async function runChain(
  dir: string,
  chain: [ChainLink, ChainLink],
  argv: string[],
  options: { env: Record<string, string>; stdin: string; tools?: string[] },
): Promise<{ r: RunResult; requests: [number, number] }> {
  const [first, second] = chain;
  const servers = [serve(first.replies), serve(second.replies)] as const;
  let r: RunResult | undefined;
  await withServers([...servers], async () => {
    const entries = [first.entry(servers[0].url), second.entry(servers[1].url)];
    await declareProviders(dir, entries);
    await write(
      `${dir}/a.agent.yaml`,
      agentYaml({
        provider: entries[0]?.id ?? "",
        model: first.model,
        fallback: [{ provider: entries[1]?.id ?? "", model: second.model }],
        ...(options.tools === undefined ? {} : { tools: options.tools }),
      }),
    );
    r = await runLoopback(dir, argv, options);
  });
  assert.ok(r !== undefined);
  return {
    r,
    requests: [servers[0].requests.length, servers[1].requests.length],
  };
}

/**
 * A project file declaring the loopback entry `compat` (of `kind`) at
 * `<url>/v1`, then `rest` (more keys of the entry, or further tables).
 */
export function compatToml(
  url: string,
  rest = "",
  kind = "openai-compatible",
): string {
  return `[[providers]]\nid = "compat"\nkind = "${kind}"\nbase_url = "${url}/v1"\nallow_local = true\n${rest}`;
}
