/**
 * Private: IP literal parsing and canonicalisation for the SSRF guard.
 * Pure and linear; no RegExp over untrusted input beyond fixed classes.
 *
 * IPv4 follows the WHATWG host parser: one to four dot-separated parts,
 * each decimal, `0x` hex or `0`-prefixed octal; the last part fills the
 * remaining bytes (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1` are
 * all `127.0.0.1`). IPv6 accepts `::` compression and a dotted IPv4 tail;
 * brackets are removed; a zone id (`%eth0`) makes it invalid.
 *
 * @module
 */

/** Parses one IPv4 part; `undefined` when it is not a number. */
function parsePart(part: string): number | undefined {
  if (part === "") return undefined;
  let radix = 10;
  let digits = part;
  if (/^0[xX]/.test(part)) {
    radix = 16;
    digits = part.slice(2);
    if (digits === "") return 0;
    if (!/^[0-9a-fA-F]+$/.test(digits)) return undefined;
  } else if (part.length > 1 && part.startsWith("0")) {
    radix = 8;
    digits = part.slice(1);
    if (!/^[0-7]+$/.test(digits)) return undefined;
  } else if (!/^[0-9]+$/.test(digits)) {
    return undefined;
  }
  // Long digit runs overflow to Infinity and fail the range check.
  const value = digits.length > 12 ? Infinity : parseInt(digits, radix);
  return Number.isFinite(value) ? value : Infinity;
}

/** IPv4 bytes of a literal in any WHATWG notation, else `undefined`. */
export function parseIPv4(text: string): number[] | undefined {
  let parts = text.split(".");
  if (parts.length > 1 && parts.at(-1) === "") parts = parts.slice(0, -1);
  if (parts.length < 1 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const p of parts) {
    const v = parsePart(p);
    if (v === undefined) return undefined;
    values.push(v);
  }
  const last = values.pop() ?? 0;
  if (values.some((v) => v > 255)) return undefined;
  if (last >= 256 ** (4 - values.length)) return undefined;
  const bytes = [...values];
  for (let i = 4 - values.length - 1; i >= 0; i--) {
    bytes.push(Math.floor(last / 256 ** i) % 256);
  }
  return bytes;
}

/** Whether the text looks like an IPv4 attempt (its last part is numeric). */
export function endsInNumber(text: string): boolean {
  let parts = text.split(".");
  if (parts.length > 1 && parts.at(-1) === "") parts = parts.slice(0, -1);
  const last = parts.at(-1) ?? "";
  return /^[0-9]+$/.test(last) || /^0[xX][0-9a-fA-F]*$/.test(last);
}

/** The eight 16-bit groups of an IPv6 literal, else `undefined`. */
export function parseIPv6(text: string): number[] | undefined {
  let t = text;
  if (t.startsWith("[") && t.endsWith("]")) t = t.slice(1, -1);
  if (t.includes("%") || !t.includes(":")) return undefined;
  const halves = t.split("::");
  if (halves.length > 2) return undefined;
  const expand = (s: string): number[] | undefined => {
    if (s === "") return [];
    const out: number[] = [];
    const groups = s.split(":");
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] ?? "";
      if (i === groups.length - 1 && g.includes(".")) {
        const parts = g.split(".");
        if (parts.length !== 4 || parts.some((p) => !/^[0-9]{1,3}$/.test(p))) {
          return undefined;
        }
        const b = parts.map((p) => parseInt(p, 10));
        if (b.some((x) => x > 255)) return undefined;
        out.push(
          ((b[0] ?? 0) << 8) | (b[1] ?? 0),
          ((b[2] ?? 0) << 8) | (b[3] ?? 0),
        );
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
        out.push(parseInt(g, 16));
      }
    }
    return out;
  };
  const head = expand(halves[0] ?? "");
  const tail = halves.length === 2 ? expand(halves[1] ?? "") : [];
  if (head === undefined || tail === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const fill = 8 - head.length - tail.length;
  if (fill < 1) return undefined;
  return [...head, ...new Array<number>(fill).fill(0), ...tail];
}

/**
 * The IPv4 bytes an IPv6 address carries: `::ffff:a.b.c.d` (mapped),
 * `::ffff:0:a.b.c.d` (translated), `::a.b.c.d` (compatible),
 * `64:ff9b::/96` (NAT64) and `2002::/16` (6to4, groups 1–2); else
 * `undefined`.
 */
export function embeddedIPv4(g: readonly number[]): number[] | undefined {
  const quad = (hi: number, lo: number): number[] => [
    hi >> 8,
    hi & 0xff,
    lo >> 8,
    lo & 0xff,
  ];
  const zero = (from: number, to: number): boolean =>
    g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0)) {
    return quad(g[6] ?? 0, g[7] ?? 0);
  }
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) {
    return quad(g[6] ?? 0, g[7] ?? 0);
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) {
    return quad(g[6] ?? 0, g[7] ?? 0);
  }
  if (g[0] === 0x2002) return quad(g[1] ?? 0, g[2] ?? 0);
  return undefined;
}

/** Dotted quad of IPv4 bytes. */
export function formatIPv4(bytes: readonly number[]): string {
  return bytes.join(".");
}

/** RFC 5952 text of IPv6 groups (lowercase, longest zero run as `::`). */
export function formatIPv6(groups: readonly number[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  const left = hex.slice(0, best).join(":");
  const right = hex.slice(best + bestLen).join(":");
  return `${left}::${right}`;
}
