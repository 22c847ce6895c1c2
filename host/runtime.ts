/**
 * The effects a persisted session runs on, as one value: clock, ids,
 * backoff sleep, transport, catalog, key lookup, working folder and an
 * optional cassette. {@linkcode denoRuntime} is the one place that
 * supplies the real ones; everything else takes them from here.
 *
 * @module
 */
import type { Cassette } from "../llm/cassette.ts";
import type { ModelCatalog } from "../llm/catalog.ts";
import type { FetchFn } from "../llm/http.ts";
import type { EnvReader } from "../llm/keys.ts";
import type { LlmProvider } from "../llm/provider.ts";
import {
  type AdapterSettings,
  createProviderRegistry,
  type ProviderEntry,
} from "../llm/provider_registry.ts";
import { renderIssues } from "../schema/issues.ts";
import { InvalidFileError, readFileText } from "./errors.ts";
import { abortableSleep } from "./sleep.ts";
import { thisProcess } from "./process_identity.ts";

/**
 * The effects of a persisted session.
 */
export interface SessionRuntime {
  /** Epoch milliseconds (event timestamps, cooldowns). */
  clock: { now(): number };
  /** Fresh session ids. */
  ids: () => string;
  /** The backoff wait; it must return at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /**
   * Makes each operation's abort controller (see
   * `SessionEffects.newAbortController` for its failure and cancel
   * rules). Absent ⇒ `new AbortController()`.
   */
  newAbortController?(): AbortController;
  /** The transport of the shipped provider adapters. */
  fetch: FetchFn;
  /** Prices and windows: the cost of each attempt and the cost cap. */
  catalog: ModelCatalog;
  /** The API key of a provider; a throw or rejection fails the turn `provider_auth`. */
  keyFor(provider: string): string | Promise<string>;
  /** The default working folder of a new session. */
  workingDir: string;
  /**
   * Replay this cassette instead of calling providers; the sessions this
   * runtime runs consume its calls in order.
   */
  cassette?: Cassette;
  /**
   * The provider of an id. Absent ⇒ the cassette's replay when there is a
   * cassette, else none. {@linkcode denoRuntime} without a cassette sets it
   * to the shipped adapters (`openai`, `anthropic`, `deepseek`) over
   * `fetch`.
   */
  resolveProvider?(id: string): LlmProvider | undefined;
  /**
   * This process, as a session's writer lease names it: a lease held by a
   * gone process of the same host is taken over at once. Absent ⇒ the
   * lease names a random holder and goes stale by its heartbeat alone
   * (60 seconds).
   */
  process?: {
    /** The process id. */
    pid: number;
    /** The host name, when known. */
    hostname?: string;
    /** Whether a process of this host is alive (`undefined`: unknown). */
    isAlive?(pid: number): boolean | undefined;
  };
}

/**
 * Options of {@linkcode denoRuntime}.
 */
export interface DenoRuntimeOptions {
  /**
   * Where keys are read (`Deno.env`, or a map of your own):
   * `RELAVIUM_<P>_API_KEY`, then the vendor's variable (`OPENAI_API_KEY`,
   * …), or an entry's `apiKeyEnv`. Absent ⇒ no key is found (a cassette needs
   * none).
   */
  env?: EnvReader;
  /** The transport; default the global `fetch`. */
  fetch?: FetchFn;
  /**
   * The catalog; default the bundled one plus the prices of `providers`
   * (prices apply, the cost cap binds).
   */
  catalog?: ModelCatalog;
  /** Replay this cassette (see {@linkcode loadCassette}); no key needed. */
  cassette?: Cassette | undefined;
  /**
   * Providers of your own (a replay whose faults you read, a scripted
   * provider), asked first; they carry their own credentials, so no key
   * is read for any id when this is set.
   */
  resolveProvider?: ((id: string) => LlmProvider | undefined) | undefined;
  /** The default working folder; default `Deno.cwd()`. */
  workingDir?: string;
  /**
   * Your own endpoints (a local server, a proxy, a compatible vendor) and
   * changes to the built-in ones; see `createProviderRegistry`.
   */
  providers?: readonly ProviderEntry[];
  /** Prompt caching and stream bounds for every adapter. */
  adapters?: AdapterSettings;
  /**
   * Wraps each adapter once it is made (e.g. a recorder's `wrap`, see
   * `createRecorder`).
   */
  wrapProvider?:
    | ((id: string, provider: LlmProvider) => LlmProvider)
    | undefined;
  /** The backoff wait; default a timer that returns at once on abort. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * The real effects: the system clock, random UUIDs, an abortable sleep,
 * `fetch` and the bundled catalog. Keys are read only from the `env` you
 * pass, never from the process environment behind your back.
 *
 * @param options Where keys come from, and optional overrides.
 * @returns The runtime.
 *
 * @example Keys come only from the env you pass
 * ```ts
 * import { denoRuntime } from "@relavium/session/host";
 * import assert from "node:assert/strict";
 * const runtime = denoRuntime({ env: { get: (n) => n === "OPENAI_API_KEY" ? "sk-test" : undefined } });
 * assert.equal(await runtime.keyFor("openai"), "sk-test");
 * assert.throws(() => denoRuntime().keyFor("openai"), /OPENAI_API_KEY/);
 * assert.equal(runtime.catalog.lookup("gpt-5.4-mini")?.provider, "openai");
 * ```
 */
export function denoRuntime(options: DenoRuntimeOptions = {}): SessionRuntime {
  const env: EnvReader = options.env ?? { get: () => undefined };
  const registry = createProviderRegistry(options.providers);
  const { cassette, resolveProvider: own, wrapProvider: wrap } = options;
  const offline = cassette !== undefined || own !== undefined;
  const runtime: SessionRuntime = {
    clock: { now: () => Date.now() },
    ids: () => crypto.randomUUID(),
    sleep: options.sleep ?? abortableSleep,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    catalog: options.catalog ?? registry.catalog(),
    keyFor: offline ? () => "" : (provider) => registry.keyFor(provider, env),
    workingDir: options.workingDir ?? Deno.cwd(),
    process: thisProcess(),
  };
  if (own !== undefined) runtime.resolveProvider = own;
  else if (cassette !== undefined) runtime.cassette = cassette;
  else {
    // The registry's adapters, one per provider id, made on first use.
    const made = new Map<string, LlmProvider | undefined>();
    const deps = {
      ...options.adapters,
      fetch: runtime.fetch,
      catalog: runtime.catalog,
      now: () => runtime.clock.now(),
    };
    runtime.resolveProvider = (id) => {
      if (!made.has(id)) {
        const adapter = registry.create(id, deps);
        made.set(
          id,
          adapter === undefined || wrap === undefined
            ? adapter
            : wrap(id, adapter),
        );
      }
      return made.get(id);
    };
  }
  return runtime;
}

/**
 * Reads and validates a cassette file (recorded provider calls to replay
 * offline).
 *
 * @param path The cassette file.
 * @returns The cassette.
 * @throws {InvalidFileError} When the file cannot be read or does not
 * validate; the message names the file and each JSON path.
 *
 * @example A broken cassette names the file and the path
 * ```ts
 * import { InvalidFileError, loadCassette } from "@relavium/session/host";
 * import assert from "node:assert/strict";
 * const path = await Deno.makeTempFile({ suffix: ".json" });
 * await Deno.writeTextFile(path, '{"schema_version":"1.0","provider":"openai","calls":[[{"type":"nope"}]]}');
 * await assert.rejects(loadCassette(path), (e) =>
 *   e instanceof InvalidFileError && e.message === `${path}: calls[0][0].type: unknown chunk type`);
 * await Deno.remove(path);
 * ```
 */
export async function loadCassette(path: string): Promise<Cassette> {
  const text = await readFileText(path);
  // The cassette schema loads only when a cassette is read.
  const { parseCassette } = await import("../llm/cassette.ts");
  const parsed = parseCassette(text, path);
  if (!parsed.ok) {
    throw new InvalidFileError(
      path,
      renderIssues(parsed.error.file, parsed.error.issues),
    );
  }
  return parsed.value;
}
