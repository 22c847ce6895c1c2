/**
 * The DNS half of the SSRF primitive for custom provider
 * endpoints: before a session, the host of every base URL in the plan
 * that is not `allow_local` is resolved and every answer checked; one
 * blocked answer, no answer at all, or a lookup that fails refuses the
 * provider (`provider_config`, exit 2) before any request: a name the
 * check cannot see is one it cannot vouch for (`fetch` would still reach
 * it, through the hosts file or another resolver). The request itself then goes out by name through `fetch`, so a resolver
 * that answers differently later is left to Deno's `--deny-net` (README,
 * "Running under narrow Deno permissions").
 *
 * @module
 */
import {
  canonicalHost,
  checkResolvedAddresses,
} from "../../tools/sandbox/ssrf.ts";
import type { ResolvedProvider } from "../config/resolve.ts";
import { type CliFault, fault } from "../fault.ts";

/**
 * Every A and AAAA answer for a name (none when it does not resolve).
 * Throws when the lookup itself fails (no network, no permission).
 */
export type ResolveDns = (name: string) => Promise<string[]>;

/**
 * What the check found for one provider.
 */
export type DnsVerdict =
  | { kind: "ok" }
  | { kind: "refused"; fault: CliFault };

function setting(p: ResolvedProvider): string {
  return p.baseUrlSource === "env"
    ? `RELAVIUM_${p.id.toUpperCase().replaceAll("-", "_")}_BASE_URL`
    : `[[providers]].base_url of "${p.id}"`;
}

/**
 * Resolves a provider's custom base-URL host and checks every answer.
 * Built-in endpoints, `allow_local` entries (not from the environment)
 * and IP literals (checked by the base-URL rules) are not looked up. A
 * name without answers, or whose lookup fails (no network, no
 * `--allow-net` for the resolver), is refused like a private answer.
 *
 * @param p The provider.
 * @param resolve The DNS lookup.
 * @returns `ok`, or `refused` with the fault naming the setting and why.
 */
export async function checkProviderDns(
  p: ResolvedProvider,
  resolve: ResolveDns,
): Promise<DnsVerdict> {
  if (p.baseUrl === undefined) return { kind: "ok" };
  if (p.allowLocal && p.baseUrlSource !== "env") return { kind: "ok" };
  let hostname: string;
  try {
    hostname = new URL(p.baseUrl).hostname;
  } catch {
    return { kind: "ok" }; // the base-URL rules refuse it first
  }
  const host = canonicalHost(hostname);
  if (host === undefined || host.kind !== "name") return { kind: "ok" };
  const refuse = (why: string): DnsVerdict => ({
    kind: "refused",
    fault: fault(
      "provider_config",
      `Invalid ${setting(p)}: ${host.name} ${why}; ${
        p.baseUrlSource === "env"
          ? "use a public https endpoint"
          : "set allow_local = true in [[providers]] for a local endpoint"
      }`,
    ),
  });
  let answers: string[];
  try {
    answers = await resolve(host.name);
  } catch (e) {
    const why = e instanceof Error ? e.name : "lookup failed";
    return refuse(
      `could not be checked: its DNS lookup failed (${why}; with narrow permissions add --allow-net for your resolver's address:53, see doctor --permissions)`,
    );
  }
  if (answers.length === 0) {
    return refuse(
      "has no DNS answers (A or AAAA) to check; a name known only to the hosts file or another resolver is refused",
    );
  }
  if (checkResolvedAddresses(answers).ok) return { kind: "ok" };
  return refuse("resolves to a private, loopback or metadata address");
}
