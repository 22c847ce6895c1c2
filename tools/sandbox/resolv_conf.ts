/**
 * The system DNS resolvers, for the Deno permission an `http` tool needs:
 * `Deno.resolveDns` asks net access to the resolver's `ip:53`.
 *
 * @module
 */
import { canonicalHost } from "./ssrf.ts";

/**
 * The `nameserver` lines of a `resolv.conf` as `--allow-net` hosts
 * (`ip:53`, IPv6 bracketed), in order and deduplicated; comments and
 * invalid addresses are skipped.
 *
 * @param text The file's text (the CLI reads `/etc/resolv.conf`).
 * @returns `ip:53` entries.
 */
export function parseResolvConf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const [key, value] = line.trim().split(/\s+/);
    if (key !== "nameserver" || value === undefined) continue;
    const host = canonicalHost(value);
    if (host === undefined || host.kind === "name") continue;
    const entry = host.kind === "ipv6"
      ? `[${host.address}]:53`
      : `${host.address}:53`;
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}
