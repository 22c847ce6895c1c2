/**
 * What MCP costs a session, run as a script (interleaved, steadier than
 * `deno bench` on a shared machine):
 *
 * 1. the first load of the MCP modules (the SDK behind them), once;
 * 2. connecting one server and listing its tools, then closing it, as a
 *    session's start does: over stdio (a `deno run` child) and over
 *    streamable HTTP (an in-process loopback server);
 * 3. a warm `tools/call` (`add`) through the whole pipeline (registry,
 *    grant, top-level check, approval by the turn policy, the call, the
 *    result text and its bound) against the SDK's bare `Client.callTool`
 *    to another instance of the same server program over the same kind of
 *    transport (our stdio transport; the SDK's HTTP transport).
 *
 *   deno run -A bench/mcp_bench.ts [rounds]
 *
 * The whole-process figures (a CLI session with a server against one
 * without) are `farm-bench` runs; BENCHMARKS.md gives their commands.
 */
import type { TurnPolicy } from "../tools/registry.ts";
import type { McpServerSpec } from "../tools/mcp/spec.ts";

const t0 = performance.now();
const { openMcpTools } = await import("../tools/mcp/registry.ts");
const loadMs = performance.now() - t0;
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = await import(
  "@modelcontextprotocol/sdk/client/streamableHttp.js"
);
const { DenoStdioTransport } = await import("../tools/mcp/stdio_transport.ts");
const { childEnv, baseEnvKeys } = await import("../tools/sandbox/child_env.ts");
const { createToolRegistry } = await import("../tools/registry_impl.ts");
const effects = await import("../tools/deno/effects.ts");
const { serveHttp } = await import("../tests/tools/mcp/_server.ts");
const { serverArgs, stdioSpec: harnessSpec } = await import(
  "../tests/tools/mcp/_harness.ts"
);

const rounds = Number(Deno.args[0] ?? 2000);
const startRounds = 15;
const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "mcp-bench-" }));
const baseEnv: Record<string, string> = {};
for (const k of baseEnvKeys("posix")) {
  const v = Deno.env.get(k);
  if (v !== undefined) baseEnv[k] = v;
}
const approve: TurnPolicy = { decide: () => ({ approve: true }) };

function stdioSpec(): McpServerSpec {
  return harnessSpec(dir);
}

function httpSpec(url: string): McpServerSpec {
  return {
    id: "calc",
    endpoint: {
      transport: "http",
      url,
      allowLocalEndpoint: true,
      headers: {},
    },
    startupTimeoutMs: 30_000,
    toolTimeoutMs: 30_000,
  };
}

function open(spec: McpServerSpec) {
  return openMcpTools({
    servers: [spec],
    build: (extra) =>
      createToolRegistry({
        tools: extra,
        host: effects.createDenoToolEffects(),
        context: { workingDir: dir, fsScopeTier: "sandboxed" },
        permissions: effects.createDenoPermissionQuery(),
      }),
    connect: {
      baseEnv,
      posix: true,
      resolve: (name) => Deno.resolveDns(name, "A"),
      client: { name: "bench", version: "0" },
    },
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}
function p90(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length * 0.9)] ?? NaN;
}
function row(name: string, xs: number[], unit: "ms" | "µs"): string {
  const k = unit === "ms" ? 1 : 1000;
  const f = (v: number) => (v * k).toFixed(unit === "ms" ? 1 : 0);
  return `${name.padEnd(44)} median ${f(median(xs))} ${unit}, p90 ${
    f(p90(xs))
  } ${unit} (${xs.length} runs)\n`;
}

const out = (s: string) => Deno.stdout.writeSync(new TextEncoder().encode(s));
out(
  `first load of the MCP modules (SDK client included): ${
    loadMs.toFixed(1)
  } ms\n`,
);

// 2. Start-up: connect + list + close, stdio and HTTP in turn.
const startStdio: number[] = [];
const startHttp: number[] = [];
for (let i = 0; i < startRounds + 2; i++) {
  for (
    const [spec, into] of [[stdioSpec(), startStdio], [
      null,
      startHttp,
    ]] as const
  ) {
    // Each HTTP round gets a fresh server (one MCP session per server).
    const server = spec === null ? await serveHttp() : undefined;
    const t = performance.now();
    const tools = await open(spec ?? httpSpec(server?.url ?? ""));
    const connected = performance.now() - t;
    if (tools.servers().length !== 1) throw new Error("server did not connect");
    await tools.close();
    await server?.close();
    if (i >= 2) into.push(connected);
  }
}
out(row("connect + list, stdio (deno run child)", startStdio, "ms"));
out(row("connect + list, streamable HTTP (loopback)", startHttp, "ms"));

// 3. Warm calls: pipeline vs bare client, per transport.
async function bareStdio() {
  const t = new DenoStdioTransport({
    command: Deno.execPath(),
    args: serverArgs(dir),
    env: childEnv(baseEnv, {}, "posix"),
    cwd: dir,
    posix: true,
  });
  const c = new Client({ name: "bench", version: "0" }, { capabilities: {} });
  await c.connect(t);
  return c;
}
async function bareHttp(url: string) {
  const c = new Client({ name: "bench", version: "0" }, { capabilities: {} });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}
const ctx = {
  signal: new AbortController().signal,
  granted: [],
  policy: approve,
  interactive: false,
  emitApproval: () => {},
  admit: () => ({ allow: true as const }),
};
for (const kind of ["stdio", "http"] as const) {
  const serverA = kind === "http" ? await serveHttp() : undefined;
  const serverB = kind === "http" ? await serveHttp() : undefined;
  const tools = await open(
    kind === "stdio" ? stdioSpec() : httpSpec(serverA?.url ?? ""),
  );
  const bare = kind === "stdio"
    ? await bareStdio()
    : await bareHttp(serverB?.url ?? "");
  const piped: number[] = [];
  const raw: number[] = [];
  const warm = Math.min(200, rounds);
  for (let i = 0; i < warm + rounds; i++) {
    const args = { a: i, b: 1 };
    let t = performance.now();
    const r = await tools.dispatch(
      { id: "session-tool:1:0", name: "mcp_calc_add", args },
      ctx,
    );
    const a = performance.now() - t;
    if (r.kind !== "ok") throw new Error(`pipeline call failed: ${r.kind}`);
    t = performance.now();
    await bare.callTool({ name: "add", arguments: args });
    const b = performance.now() - t;
    if (i >= warm) {
      piped.push(a);
      raw.push(b);
    }
  }
  const diffs = piped.map((v, i) => v - (raw[i] ?? 0));
  out(row(`tools/call ${kind}, whole pipeline`, piped, "µs"));
  out(row(`tools/call ${kind}, bare SDK callTool`, raw, "µs"));
  out(row(`tools/call ${kind}, pipeline − bare (pairwise)`, diffs, "µs"));
  await tools.close();
  await bare.close();
  await serverA?.close();
  await serverB?.close();
}
await Deno.remove(dir, { recursive: true });
