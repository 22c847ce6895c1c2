/** Shared fakes for the tools tests: recording hosts, contexts, fake tools. */
import { allBuiltinTools } from "../../tools/builtin/all.ts";
import { createDenoToolEffects } from "../../tools/deno/effects.ts";
import {
  createToolRegistry,
  type ScopedToolRegistry,
  type ToolRegistryOptions,
} from "../../tools/registry_impl.ts";
import { type ToolEffects, ToolEffectsError } from "../../tools/effects.ts";
import type {
  PermissionState,
  ToolPermission,
} from "../../tools/sandbox/permission_query.ts";
import type {
  ApprovalRequest,
  ToolDispatchContext,
  ToolOutcome,
} from "../../tools/registry.ts";
import type {
  PolicyTarget,
  ToolDefinition,
  ToolPolicy,
} from "../../tools/tool.ts";

/** One recorded host call. */
export interface HostCall {
  op: keyof Omit<ToolEffects, "os">;
  target: string;
}

/** A host that records every call and delegates (or fails when no inner). */
export function recordingHost(
  inner?: ToolEffects,
): { host: ToolEffects; calls: HostCall[] } {
  const calls: HostCall[] = [];
  function dead(): never {
    throw new ToolEffectsError("failed");
  }
  const i = inner;
  const host: ToolEffects = {
    os: i?.os ?? "posix",
    realPath(path) {
      calls.push({ op: "realPath", target: path });
      return i === undefined ? dead() : i.realPath(path);
    },
    lstat(path) {
      calls.push({ op: "lstat", target: path });
      return i === undefined ? dead() : i.lstat(path);
    },
    stat(path) {
      calls.push({ op: "stat", target: path });
      return i === undefined ? dead() : i.stat(path);
    },
    readFile(path, options) {
      calls.push({ op: "readFile", target: path });
      return i === undefined ? dead() : i.readFile(path, options);
    },
    readDir(path, options) {
      calls.push({ op: "readDir", target: path });
      return i === undefined ? dead() : i.readDir(path, options);
    },
    readEnv(keys) {
      calls.push({ op: "readEnv", target: keys.join(",") });
      return i === undefined ? dead() : i.readEnv(keys);
    },
    spawn(request) {
      calls.push({
        op: "spawn",
        target: [request.program, ...request.args].join(" "),
      });
      return i === undefined ? dead() : i.spawn(request);
    },
    mkdir(path) {
      calls.push({ op: "mkdir", target: path });
      return i?.mkdir === undefined ? dead() : i.mkdir(path);
    },
    writeFileAtomic(dir, name, data, options) {
      calls.push({ op: "writeFileAtomic", target: `${dir}/${name}` });
      return i?.writeFileAtomic === undefined
        ? dead()
        : i.writeFileAtomic(dir, name, data, options);
    },
    appendFile(path, data, options) {
      calls.push({ op: "appendFile", target: path });
      return i?.appendFile === undefined
        ? dead()
        : i.appendFile(path, data, options);
    },
    resolveDns(name, signal) {
      calls.push({ op: "resolveDns", target: name });
      return i?.resolveDns === undefined ? dead() : i.resolveDns(name, signal);
    },
    fetch(request) {
      calls.push({ op: "fetch", target: request.url });
      return i?.fetch === undefined ? dead() : i.fetch(request);
    },
  };
  return { host, calls };
}

/** Host operations that change the world (writes, processes, network). */
export const EFFECT_OPS: readonly HostCall["op"][] = [
  "mkdir",
  "writeFileAtomic",
  "appendFile",
  "spawn",
  "resolveDns",
  "fetch",
];

/** The effectful calls among `calls`. */
export function effectsOf(calls: readonly HostCall[]): HostCall[] {
  return calls.filter((c) => EFFECT_OPS.includes(c.op));
}

/** The real Deno host, recorded. */
export function recordedDenoHost(): { host: ToolEffects; calls: HostCall[] } {
  return recordingHost(createDenoToolEffects());
}

/** What `builtinRig` takes: a registry's options, each optional. */
export interface BuiltinRigOptions {
  /** The sandboxed workspace. */
  workingDir: string;
  /** The host under the recorder: the real Deno effects by default; `null` fails every call. */
  host?: ToolEffects | null | undefined;
  /** Default: every built-in tool. */
  tools?: ToolRegistryOptions["tools"] | undefined;
  /** Default: everything granted. */
  permissions?: ToolRegistryOptions["permissions"] | undefined;
  guardrails?: ToolRegistryOptions["guardrails"] | undefined;
  toolConfig?: ToolRegistryOptions["toolConfig"] | undefined;
  limits?: ToolRegistryOptions["limits"] | undefined;
  gate?: ToolRegistryOptions["gate"] | undefined;
}

/** A registry of the built-in tools over a recorded host, and what the host saw. */
export function builtinRig(
  options: BuiltinRigOptions,
): {
  registry: ScopedToolRegistry;
  calls: HostCall[];
  /** The effectful calls so far. */
  effects: () => HostCall[];
} {
  const { workingDir, host, ...rest } = options;
  const recorded = recordingHost(
    host === null ? undefined : host ?? createDenoToolEffects(),
  );
  const given = Object.fromEntries(
    Object.entries(rest).filter(([, v]) => v !== undefined),
  ) as Partial<ToolRegistryOptions>;
  const registry = createToolRegistry({
    tools: allBuiltinTools(),
    permissions: grantAll,
    ...given,
    host: recorded.host,
    context: { workingDir, fsScopeTier: "sandboxed" },
  });
  return {
    registry,
    calls: recorded.calls,
    effects: () => effectsOf(recorded.calls),
  };
}

/** Dispatches one call of the built-in `name` through a fresh `builtinRig`. */
export async function runBuiltin(
  name: string,
  args: Record<string, unknown>,
  options: BuiltinRigOptions & { interactive?: boolean },
): Promise<ToolOutcome> {
  const { interactive = true, ...rig } = options;
  return await builtinRig(rig).registry.dispatch(
    { id: "c", name, args },
    makeContext({ interactive }).ctx,
  );
}

/** Everything granted. */
export function grantAll(_permission: ToolPermission): PermissionState {
  return "granted";
}

/** A dispatch context plus what it saw. */
export interface TestContext {
  ctx: ToolDispatchContext;
  approvals: Pick<ApprovalRequest, "toolId" | "action" | "preview">[];
  admits: number;
  controller: AbortController;
}

/** Builds a dispatch context; override any member. */
export function makeContext(
  overrides: Partial<ToolDispatchContext> = {},
): TestContext {
  const controller = new AbortController();
  const out: TestContext = {
    approvals: [],
    admits: 0,
    controller,
    ctx: {
      signal: controller.signal,
      granted: ["read_file", "list_directory", "git_status"],
      interactive: false,
      emitApproval: (r) => {
        out.approvals.push(r);
      },
      admit: () => {
        out.admits++;
        return { allow: true };
      },
      ...overrides,
    },
  };
  return out;
}

/** Fresh canonical temp dir, removed on dispose. */
export async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "relavium-tools-" }),
  );
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** The error message of a fatal outcome, the model text otherwise. */
export function messageOf(o: ToolOutcome): string {
  return o.kind === "fatal" ? o.error.message : o.modelResult;
}

/** Args of the fake governed tools. */
export interface FakeArgs {
  path?: string;
  command?: string;
  url?: string;
}

/** A fake tool of a given policy class, registered only in tests. */
export function fakeTool(
  id: string,
  policy: Partial<ToolPolicy>,
  options: { target?: (a: FakeArgs) => PolicyTarget; result?: unknown } = {},
): ToolDefinition<FakeArgs> & { runs: FakeArgs[] } {
  const runs: FakeArgs[] = [];
  const tool: ToolDefinition<FakeArgs> & { runs: FakeArgs[] } = {
    runs,
    id,
    description: `fake ${id}`,
    parse(raw) {
      if (typeof raw !== "object" || raw === null) {
        return { ok: false, error: [{ path: "", message: "object expected" }] };
      }
      const extra = Object.keys(raw).filter((k) =>
        !["path", "command", "url"].includes(k)
      );
      if (extra.length > 0) {
        return {
          ok: false,
          error: extra.map((path) => ({ path, message: "unknown key" })),
        };
      }
      return { ok: true, value: raw as FakeArgs };
    },
    llmParams: { type: "object", properties: {}, additionalProperties: false },
    policy: {
      fsScoped: false,
      spawnsProcess: false,
      requiresGateApproval: false,
      ...policy,
    },
    dispatch(args) {
      runs.push(args);
      return Promise.resolve({ ok: true, value: options.result ?? "done" });
    },
  };
  if (options.target !== undefined) tool.policyTarget = options.target;
  return tool;
}

/** One fake tool per governed action class. */
export function governedFakes(): {
  write: ReturnType<typeof fakeTool>;
  run: ReturnType<typeof fakeTool>;
  fetch: ReturnType<typeof fakeTool>;
  notify: ReturnType<typeof fakeTool>;
} {
  return {
    write: fakeTool("fake_write", { fsScoped: true, fsWrite: true }, {
      target: (a) => (a.path === undefined ? {} : { path: a.path }),
    }),
    run: fakeTool("fake_run", { spawnsProcess: true }, {
      target: (a) => (a.command === undefined ? {} : { command: a.command }),
    }),
    fetch: fakeTool("fake_http", { egress: "http" }, {
      target: (a) => (a.url === undefined ? {} : { url: a.url }),
    }),
    notify: fakeTool("fake_notify", { os: true }),
  };
}

/** The test TLS material: a CA, and a certificate and key for 127.0.0.1 signed by it. */
export async function testTls(): Promise<
  { ca: string; cert: string; key: string }
> {
  const tls = new URL("./fixtures/tls/", import.meta.url);
  const read = (name: string) => Deno.readTextFile(new URL(name, tls));
  return {
    ca: await read("ca.pem"),
    cert: await read("cert.pem"),
    key: await read("key.pem"),
  };
}
