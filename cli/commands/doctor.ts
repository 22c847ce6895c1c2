/**
 * `doctor`: does the config load, which provider keys are
 * present (never their values), where each provider's requests go (its
 * effective base URL), where history lives. Exit 1 when something
 * needs fixing: an invalid config, no key for a default model a config
 * chose (or for the built-in default when no provider has a key), no key
 * for the `--agent`'s provider, an MCP server that does not connect (its
 * stderr tail in the reason). A missing key of the built-in default
 * while another provider has one is a note, not a failure.
 *
 * @module
 */
import type { CliCommand } from "../args.ts";
import { loadCliConfig, locateConfig } from "../config/config.ts";
import {
  advisePermissions,
  mcpEntriesOf,
  type PermissionAdvice,
} from "./doctor_permissions.ts";
import type { McpServerRow } from "./mcp.ts";
import type { Agent } from "../../schema/agent.ts";
import {
  type CommandEnv,
  type CommandResult,
  configRequestOf,
} from "../command_env.ts";
import { type KeyStatus, registryOf } from "../run/keys.ts";
import { resolveAgentRef } from "../run/agent_file.ts";
import { stripControl } from "../io/control.ts";
import { parseResolvConf } from "../../tools/sandbox/resolv_conf.ts";
import { builtinRow } from "../../llm/provider_table.ts";
import type { ConfigSource } from "../config/resolve.ts";
import type { UntrustedFile } from "../config/apply_trust.ts";
import { untrustedLine } from "./config.ts";
import { shellWord } from "../invocation.ts";

/**
 * Where a provider's requests go: its effective base URL and where that
 * came from (`built-in` for an official endpoint); `null` when this
 * version has no adapter for it.
 */
export interface ProviderEndpoint {
  provider: string;
  baseUrl: string | null;
  source: ConfigSource;
  /** A non-default endpoint (window and prices not authoritative). */
  custom: boolean;
  /** `allow_local` (loopback or private host), when set. */
  allowLocal?: true;
}

/**
 * The `doctor --json` report.
 */
export interface DoctorReport {
  ok: boolean;
  config: { ok: true } | { ok: false; error: string };
  defaultModel: string | null;
  defaultProvider: string | null;
  keys: Array<{ provider: string } & KeyStatus>;
  /** The effective base URL per provider. */
  endpoints: ProviderEndpoint[];
  history: string | null;
  /** Project files not trusted, and the widening keys they lost. */
  untrusted: UntrustedFile[];
  problems: string[];
  /** What is worth knowing but fails nothing (e.g. an unused default's key). */
  notes: string[];
  /** With `--permissions` (and a valid config). */
  permissions?: PermissionAdvice;
  /**
   * Each MCP server (the `--agent`'s, else every enabled global one)
   * connected and listed, or why not; absent when none is configured.
   */
  mcp?: McpServerRow[];
}

/**
 * Builds the doctor report.
 *
 * @param ctx The command context.
 * @param options Whether to add the permission advice, and for which
 * agent (a path or id; default the built-in chat agent).
 * @returns The report (never contains a key value).
 */
export async function diagnose(
  ctx: CommandEnv,
  options: { permissions?: boolean; agent?: string } = {},
): Promise<DoctorReport> {
  const env = (n: string): string | undefined => ctx.io.env(n);
  const req = configRequestOf(ctx);
  const loaded = await loadCliConfig(req);
  if (!loaded.ok) {
    const located = await locateConfig(req);
    return {
      ok: false,
      config: { ok: false, error: loaded.error.message },
      defaultModel: null,
      defaultProvider: null,
      keys: [],
      endpoints: [],
      history: located.ok ? located.value.historyDb ?? null : null,
      untrusted: [],
      problems: [loaded.error.message],
      notes: [],
    };
  }
  const { resolved, paths } = loaded.value;
  const problems: string[] = [];
  const providerId = resolved.chat.defaultProvider?.value ?? null;
  if (providerId === null) {
    problems.push(
      `Cannot infer the provider of the default model "${resolved.chat.defaultModel.value}": set [chat].default_provider`,
    );
  }
  const registry = registryOf(resolved.providers);
  const keys = resolved.providers.map((p) => ({
    provider: p.id,
    ...registry.lookupKey(p.id, { get: env }),
  }));
  const endpoints = resolved.providers.map((p): ProviderEndpoint => {
    const baseUrl = p.baseUrl ?? builtinRow(p.id)?.baseUrl ?? null;
    return {
      provider: p.id,
      baseUrl,
      source: p.baseUrl === undefined
        ? "built-in"
        : p.baseUrlSource ?? p.source,
      custom: p.baseUrl !== undefined,
      ...(p.allowLocal ? { allowLocal: true as const } : {}),
    };
  });
  const primary = keys.find((k) => k.provider === providerId);
  const notes: string[] = [];
  if (primary?.status === "missing") {
    const line =
      `No API key for ${primary.provider} (the default provider): set ${
        primary.tried.join(" or ")
      }`;
    // The built-in default model is a problem only when it is in use: a
    // config chose it, or no provider has a key (nothing else could run).
    const chosen = resolved.chat.defaultModel.source !== "built-in";
    const anyKey = keys.some((k) => k.status !== "missing");
    if (chosen || !anyKey) problems.push(line);
    else {
      notes.push(
        `${line} to chat without --agent or --model (no config chooses it)`,
      );
    }
  }
  const report: DoctorReport = {
    ok: problems.length === 0,
    config: { ok: true },
    defaultModel: resolved.chat.defaultModel.value,
    defaultProvider: providerId,
    keys,
    endpoints,
    history: paths.historyDb ?? null,
    untrusted: loaded.value.untrusted,
    problems,
    notes,
  };
  const found = options.agent === undefined
    ? undefined
    : await resolveAgentRef(options.agent, {
      cwd: ctx.cwd,
      ...(paths.projectRoot === undefined
        ? {}
        : { projectRoot: paths.projectRoot }),
    });
  const agent: { agent: Agent; file: string } | undefined = found?.ok === true
    ? found.value
    : undefined;
  const anyGlobal = (loaded.value.layers.global?.data.mcp_servers ?? []).some(
    (g) => g.enabled !== false,
  );
  // Each MCP server is started, listed and closed; the SDK loads only
  // when one is configured.
  const mcpAgent = agent?.agent ??
    (options.agent === undefined && anyGlobal
      ? (await import("./mcp.ts")).globalServersAgent(loaded.value)
      : undefined);
  if ((mcpAgent?.mcp_servers?.length ?? 0) > 0 && mcpAgent !== undefined) {
    const { probeMcpServers } = await import("./mcp.ts");
    report.mcp = await probeMcpServers(
      ctx,
      loaded.value,
      mcpAgent,
      agent?.file,
    );
    for (const row of report.mcp) {
      if (row.state === "failed") {
        problems.push(
          `MCP server ${row.id} is not reachable: ${row.reason ?? ""}`,
        );
      } else if (row.state === "not_started") {
        notes.push(`MCP server ${row.id} is not started: ${row.reason ?? ""}`);
      }
    }
    report.ok = problems.length === 0;
  }
  if (options.permissions === true) {
    let tools: readonly string[] | undefined;
    let providers: readonly string[] | undefined;
    if (options.agent !== undefined && found !== undefined) {
      if (!found.ok) {
        report.ok = false;
        problems.push(found.error.message);
        return report;
      }
      const agent = found.value.agent;
      const key = keys.find((k) => k.provider === agent.provider);
      if (key?.status === "missing") {
        report.ok = false;
        problems.push(
          `No API key for ${key.provider} (the provider of ${
            stripControl(options.agent)
          }): set ${key.tried.join(" or ")}`,
        );
      }
      tools = agent.tools ?? [];
      providers = [
        agent.provider,
        ...(agent.fallback_chain ?? []).map((f) => f.provider),
      ];
    }
    report.permissions = advisePermissions(
      loaded.value,
      ctx.cwd,
      (d) => Deno.permissions.querySync(d).state,
      {
        ...(tools === undefined ? {} : { tools }),
        ...(providers === undefined ? {} : { providers }),
        nameServers: parseResolvConf(await readResolvConf()),
        mcpServers: mcpEntriesOf(loaded.value, agent?.agent),
      },
    );
  }
  return report;
}

/** The system resolver config, `""` when it cannot be read. */
async function readResolvConf(): Promise<string> {
  try {
    return await Deno.readTextFile("/etc/resolv.conf");
  } catch {
    return "";
  }
}

function keyLine(k: { provider: string } & KeyStatus): string {
  const name = k.provider.padEnd(12);
  switch (k.status) {
    case "found":
      return `  ${name} present (${k.variable})`;
    case "no-auth":
      return `  ${name} no key set (local endpoint: sent without auth)`;
    case "missing":
      return `  ${name} missing (set ${k.tried.join(" or ")})`;
  }
}

function endpointLine(e: ProviderEndpoint): string {
  const name = e.provider.padEnd(12);
  if (e.baseUrl === null) return `  ${name} (no adapter in this version)`;
  const notes = [e.source, ...(e.allowLocal === true ? ["allow_local"] : [])];
  return `  ${name} ${e.baseUrl} (${notes.join(", ")})`;
}

function mcpLine(m: McpServerRow): string {
  const name = stripControl(m.id).padEnd(12);
  if (m.state === "connected") {
    const n = m.tools?.length ?? 0;
    return `  ${name} connected, ${n} tool${n === 1 ? "" : "s"}`;
  }
  const state = m.state === "failed" ? "failed" : "not started";
  return `  ${name} ${state}: ${stripControl(m.reason ?? "")}`;
}

/**
 * Runs `doctor`.
 *
 * @param command The parsed command (`--permissions`).
 * @param ctx The command context.
 * @returns 0 when all is well, 1 otherwise.
 */
export async function runDoctor(
  command: Extract<CliCommand, { name: "doctor" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const r = await diagnose(ctx, {
    permissions: command.permissions,
    ...(command.agent === undefined ? {} : { agent: command.agent }),
  });
  if (ctx.globals.json) {
    ctx.io.stdout.write(`${JSON.stringify(r)}\n`);
    return r.ok ? 0 : 1;
  }
  const lines: string[] = [
    `config     ${r.config.ok ? "ok" : "invalid"}`,
  ];
  if (r.defaultModel !== null) {
    lines.push(
      `model      ${r.defaultModel} (${
        r.defaultProvider ?? "provider unknown"
      })`,
    );
  }
  if (r.keys.length > 0) lines.push("keys");
  for (const k of r.keys) lines.push(keyLine(k));
  if (r.endpoints.length > 0) lines.push("endpoints");
  for (const e of r.endpoints) lines.push(endpointLine(e));
  lines.push(
    `history    ${r.history ?? "(no home: set HOME or RELAVIUM_HOME)"}`,
    ...r.untrusted.map((u) => `untrusted  ${untrustedLine(u).slice(2)}`),
  );
  if (r.mcp !== undefined) lines.push("mcp");
  for (const m of r.mcp ?? []) lines.push(mcpLine(m));
  if (r.permissions !== undefined) {
    const flags = r.permissions.flags.join(" ");
    const script = shellWord(r.permissions.script ?? "cli.ts");
    lines.push(
      `permissions (least privilege for ${
        command.agent === undefined
          ? "the built-in chat agent"
          : stripControl(command.agent)
      } here):`,
      `  deno run ${flags} ${script}`,
      `  deno compile ${flags} ${script}`,
    );
    const serve = r.permissions.serve;
    lines.push(
      `  relavium serve also needs --allow-net=${serve.listen} (to listen)${
        serve.env === undefined ? "" : ` and --allow-env=${serve.env}`
      }`,
    );
    if (r.permissions.allowlist.length > 0) {
      lines.push("allowlist (what each entry lets the model run):");
    }
    for (const a of r.permissions.allowlist) {
      lines.push(
        `  ${a.glob ? "glob  " : "exact "}${
          stripControl(JSON.stringify(a.entry))
        }: ${stripControl(a.risk)}`,
      );
    }
  }
  ctx.io.stdout.write(`${lines.join("\n")}\n`);
  for (const w of r.permissions?.warnings ?? []) {
    ctx.io.stderr.write(`warning: ${w}\n`);
  }
  for (const n of r.notes) ctx.io.stderr.write(`note: ${n}\n`);
  for (const p of r.problems) ctx.io.stderr.write(`problem: ${p}\n`);
  return r.ok ? 0 : 1;
}
