/**
 * Display sanitising and the secret-taint check: what `agent:tool_call` may show, and whether args carry a secret.
 *
 * @module
 */

/**
 * Tells whether a string is (or contains) a secret value the host knows,
 * such as a provider API key.
 */
export type SecretTest = (value: string) => boolean;

const SECRET_KEY =
  /pass(word|wd)?|secret|token|api[-_]?key|authorization|credential|cookie|private[-_]?key/i;
const MAX_DEPTH = 8;
const MAX_STRING = 2000;

/**
 * Whether any string inside `value` (keys included) is tainted.
 *
 * @param value Effective args.
 * @param isSecret The host's secret test.
 * @returns `true` when a secret was found.
 */
export function containsSecret(value: unknown, isSecret: SecretTest): boolean {
  const seen = new Set<unknown>();
  function walk(v: unknown, depth: number): boolean {
    if (typeof v === "string") return isSecret(v);
    if (typeof v !== "object" || v === null || seen.has(v)) return false;
    if (depth > MAX_DEPTH) return false;
    seen.add(v);
    if (Array.isArray(v)) return v.some((x) => walk(x, depth + 1));
    return Object.entries(v).some(([k, x]) =>
      isSecret(k) || walk(x, depth + 1)
    );
  }
  return walk(value, 0);
}

/**
 * The sanitised input shown on `agent:tool_call`: config-only keys
 * dropped; values under secret-looking keys (`token`, `password`,
 * `authorization`, …) and tainted strings replaced by `[redacted]`; long
 * strings shortened; depth bounded. Non-object args ⇒ `{}`.
 *
 * @param args Model or effective args.
 * @param options Config-only keys to drop and the host's secret test.
 * @returns A JSON-safe display object.
 */
export function displayInput(
  args: unknown,
  options: { configOnly?: readonly string[]; isSecret?: SecretTest } = {},
): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return {};
  }
  const drop = new Set(options.configOnly ?? []);
  const isSecret = options.isSecret;
  function clean(v: unknown, depth: number): unknown {
    if (typeof v === "string") {
      if (isSecret?.(v) === true) return "[redacted]";
      return v.length > MAX_STRING
        ? `${v.slice(0, MAX_STRING)}…[${v.length} chars]`
        : v;
    }
    if (typeof v === "number" || typeof v === "boolean" || v === null) {
      return v;
    }
    if (typeof v !== "object" || depth > MAX_DEPTH) return "[omitted]";
    if (Array.isArray(v)) return v.map((x) => clean(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = SECRET_KEY.test(k) ? "[redacted]" : clean(x, depth + 1);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (drop.has(k)) continue;
    out[k] = SECRET_KEY.test(k) ? "[redacted]" : clean(v, 1);
  }
  return out;
}
