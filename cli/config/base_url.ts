/**
 * Base-URL rules of custom provider endpoints (DECISIONS.md 26, llm.md §12,
 * the host classes of tools.md §7): `https`, no credentials, no private,
 * loopback or metadata host — unless `allow_local`, which admits loopback,
 * private and `.local` hosts (and `http` only for them), never metadata
 * addresses.
 *
 * @module
 */

/**
 * Host classes.
 *
 * @example Value
 * ```ts
 * import type { HostClass } from "./base_url.ts";
 * const c: HostClass = "local";
 * ```
 */
export type HostClass = "public" | "local" | "metadata";

const METADATA_NAMES = new Set(["metadata.google.internal", "metadata"]);

function ipv4Class(a: number, b: number, c: number): HostClass {
  if (a === 169 && b === 254) return "metadata";
  const local = a === 0 || a === 127 || a === 10 ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) || a >= 224 ||
    (a === 198 && (b === 18 || b === 19)) || (a === 192 && b === 0 && c === 0);
  return local ? "local" : "public";
}

function parseIpv4(host: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (m === null) return undefined;
  const parts = m.slice(1).map(Number);
  return parts.every((n) => n <= 255) ? parts : undefined;
}

/** Parses the hex-only IPv6 form `URL` normalises to. */
function parseIpv6(host: string): number[] | undefined {
  const halves = host.split("::");
  if (halves.length > 2) return undefined;
  const toGroups = (s: string): number[] =>
    s === ""
      ? []
      : s.split(":").map((g) =>
        /^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN
      );
  const head = toGroups(halves[0] ?? "");
  const tail = halves.length === 2 ? toGroups(halves[1] ?? "") : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0) return undefined;
  const groups = [...head, ...Array<number>(fill).fill(0), ...tail];
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g))) {
    return undefined;
  }
  return groups;
}

function ipv6Class(g: number[]): HostClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = (hi: number, lo: number): HostClass =>
    ipv4Class(hi >> 8, hi & 0xff, lo >> 8);
  if (
    g0 === 0xfd00 && g1 === 0xec2 && g7 === 0x254 &&
    g2 + g3 + g4 + g5 + g6 === 0
  ) {
    return "metadata";
  }
  const zeroHead = g0 + g1 + g2 + g3 + g4 === 0;
  if (zeroHead && g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) {
    return "local";
  }
  if (zeroHead && (g5 === 0xffff || g5 === 0)) return embedded(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 + g3 + g4 + g5 === 0) {
    return embedded(g6, g7);
  }
  if (g0 === 0x2002) return embedded(g1, g2);
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xfe00) === 0xfc00) return "local";
  return "public";
}

/**
 * Classifies a URL host name (as `URL.hostname` gives it).
 *
 * @param hostname The host, IPv6 in brackets.
 * @returns `public`, `local` (loopback, private, `.local`, …) or `metadata`.
 *
 * @example Classes
 * ```ts
 * import { classifyHost } from "./base_url.ts";
 * import assert from "node:assert/strict";
 * assert.equal(classifyHost("api.example.com"), "public");
 * assert.equal(classifyHost("localhost"), "local");
 * assert.equal(classifyHost("[::ffff:7f00:1]"), "local");
 * assert.equal(classifyHost("169.254.169.254"), "metadata");
 * ```
 */
export function classifyHost(hostname: string): HostClass {
  const host = hostname.toLowerCase().replace(/\.+$/, "");
  if (METADATA_NAMES.has(host)) return "metadata";
  if (host.startsWith("[") && host.endsWith("]")) {
    const groups = parseIpv6(host.slice(1, -1));
    return groups === undefined ? "local" : ipv6Class(groups);
  }
  const v4 = parseIpv4(host);
  if (v4 !== undefined) {
    const [a = 0, b = 0, c = 0] = v4;
    return ipv4Class(a, b, c);
  }
  if (
    host === "localhost" || host.endsWith(".localhost") ||
    host.endsWith(".local") || host.endsWith(".internal") || !host.includes(".")
  ) {
    return "local";
  }
  return "public";
}

/**
 * Checks a provider base URL.
 *
 * @param url The configured URL.
 * @param allowLocal The provider's `allow_local`.
 * @returns A problem description, or `undefined` when the URL is fine.
 *
 * @example Rules
 * ```ts
 * import { checkBaseUrl } from "./base_url.ts";
 * import assert from "node:assert/strict";
 * assert.equal(checkBaseUrl("https://api.example.com/v1", false), undefined);
 * assert.equal(checkBaseUrl("http://localhost:11434/v1", true), undefined);
 * assert.match(checkBaseUrl("http://localhost:11434/v1", false) ?? "", /allow_local/);
 * assert.match(checkBaseUrl("http://api.example.com", true) ?? "", /https/);
 * assert.match(checkBaseUrl("https://u:p@api.example.com", false) ?? "", /credentials/);
 * ```
 */
export function checkBaseUrl(
  url: string,
  allowLocal: boolean,
): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "must be an absolute http(s) URL";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") {
    return "must be an http(s) URL";
  }
  if (u.username !== "" || u.password !== "") {
    return "must not embed credentials";
  }
  if (u.search !== "" || u.hash !== "") {
    return "must not have a query or fragment";
  }
  const cls = classifyHost(u.hostname);
  if (cls === "metadata") return "must not point at a cloud metadata address";
  if (cls === "local") {
    return allowLocal
      ? undefined
      : "points at a local or private host: set allow_local = true to allow it";
  }
  if (u.protocol !== "https:") {
    return "must use https (http is allowed only for local hosts with allow_local)";
  }
  return undefined;
}

/**
 * Removes trailing slashes from a base URL (DECISIONS.md 26).
 *
 * @param url A checked base URL.
 * @returns The URL without trailing `/`.
 *
 * @example Strip
 * ```ts
 * import { normalizeBaseUrl } from "./base_url.ts";
 * import assert from "node:assert/strict";
 * assert.equal(normalizeBaseUrl("http://localhost:11434/v1/"), "http://localhost:11434/v1");
 * ```
 */
export function normalizeBaseUrl(url: string): string {
  return url.replace(/\/+$/, "");
}
