/**
 * The `--deny-net` list `doctor --permissions` prints: the SSRF ranges
 * (`SSRF_DENY_NET`), minus the addresses the CLI itself must reach — the
 * host of a `[[providers]]` entry with `allow_local`, the DNS resolvers an
 * `http` tool queries. A blocked IPv4 range containing such an address is
 * split into the CIDR blocks around it (at most 32), so every other
 * address of the range stays denied; an exact IPv6 entry is dropped. Deno
 * checks `--deny-net` against the address it connects to, and it wins
 * over an `--allow-net` range: it backs up `http_request` (which connects
 * to the checked address under `--allow-net=0.0.0.0/0:443`) and closes
 * DNS rebinding for these ranges where the CLI fetches by name (provider
 * base URLs).
 *
 * @module
 */
import { canonicalHost, SSRF_DENY_NET } from "../../tools/sandbox/ssrf.ts";

function v4(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function v4Text(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
}

function parseCidr(entry: string): [number, number] | undefined {
  const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(entry);
  return m === null ? undefined : [v4(m[1] ?? ""), Number(m[2])];
}

function contains(net: number, bits: number, x: number): boolean {
  const size = 2 ** (32 - bits);
  return x >= net && x < net + size;
}

/** A `/bits` block minus the one address `x` inside it, as CIDR blocks. */
function splitAround(bits: number, x: number): string[] {
  const out: string[] = [];
  for (let b = bits + 1; b <= 32; b++) {
    const size = 2 ** (32 - b);
    const mine = Math.floor(x / size) * size;
    const sibling = Math.floor(x / (size * 2)) * size * 2 === mine
      ? mine + size
      : mine - size;
    out.push(`${v4Text(sibling)}/${b}`);
  }
  return out;
}

/**
 * The deny list with every `keep` host left reachable.
 *
 * @param keep Hosts the CLI must reach: IP literals, `localhost`, or
 *   names (a name cannot be checked here and gets a warning).
 * @param base The list to narrow (default `SSRF_DENY_NET`).
 * @returns The entries to pass as `--deny-net`, and warnings.
 */
export function denyNetExcept(
  keep: readonly string[],
  base: readonly string[] = SSRF_DENY_NET,
): { deny: string[]; warnings: string[] } {
  let deny = [...base];
  const warnings: string[] = [];
  const dropV4 = (address: string): void => {
    const x = v4(address);
    deny = deny.flatMap((entry) => {
      const cidr = parseCidr(entry);
      if (cidr === undefined || !contains(cidr[0], cidr[1], x)) return [entry];
      return splitAround(cidr[1], x);
    });
  };
  const dropV6 = (address: string): void => {
    deny = deny.filter((entry) => entry !== `[${address}]`);
  };
  for (const host of keep) {
    const canonical = canonicalHost(host);
    if (canonical === undefined) continue;
    if (canonical.kind === "ipv4") dropV4(canonical.address);
    else if (canonical.kind === "ipv6") dropV6(canonical.address);
    else if (
      canonical.name === "localhost" || canonical.name.endsWith(".localhost")
    ) {
      dropV4("127.0.0.1");
      dropV6("::1");
    } else {
      warnings.push(
        `--deny-net may block ${canonical.name} (a local provider): if it resolves to a private address, remove that range by hand`,
      );
    }
  }
  return { deny, warnings };
}
