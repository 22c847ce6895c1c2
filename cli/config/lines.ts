/**
 * Finds the line of a key path in TOML text, so a validation error can name
 * it. A line scanner, not a parser: it follows `[table]` and
 * `[[array-of-tables]]` headers (a sub-table such as
 * `[providers.prices.m]` belongs to the latest `[[providers]]` entry) and
 * `a.b = …` keys (bare or quoted), skips
 * comments and multi-line strings, and answers the first line whose path
 * is the longest prefix of the one asked for.
 *
 * @module
 */

/** Splits a dotted TOML key (`a."b.c".d`) into its parts. */
function splitKey(text: string): string[] | undefined {
  const parts: string[] = [];
  let i = 0;
  const s = text.trim();
  while (i < s.length) {
    while (s[i] === " " || s[i] === "\t") i++;
    const q = s[i];
    if (q === '"' || q === "'") {
      const end = s.indexOf(q, i + 1);
      if (end === -1) return undefined;
      parts.push(s.slice(i + 1, end));
      i = end + 1;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i));
      if (m === null) return undefined;
      parts.push(m[0]);
      i += m[0].length;
    }
    while (s[i] === " " || s[i] === "\t") i++;
    if (i < s.length) {
      if (s[i] !== ".") return undefined;
      i++;
    }
  }
  return parts.length > 0 ? parts : undefined;
}

/** The key part of `key = value`, respecting quotes. */
function keyOfAssignment(line: string): string | undefined {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === "=") {
      return line.slice(0, i);
    }
  }
  return undefined;
}

function samePrefix(
  a: ReadonlyArray<string | number>,
  b: ReadonlyArray<string | number>,
): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * The 1-based line that defines `path` (or its nearest defined ancestor).
 *
 * @param text The TOML source.
 * @param path The key path, array indexes as numbers
 * (`["providers", 1, "base_url"]`).
 * @returns The line, or `undefined` when nothing on the path was found.
 */
export function findKeyLine(
  text: string,
  path: ReadonlyArray<string | number>,
): number | undefined {
  const lines = text.split(/\r?\n/);
  let table: Array<string | number> = [];
  // The current element of each array of tables, by its resolved path.
  const arrayIndex = new Map<string, number>();
  let best: { line: number; depth: number } | undefined;
  let inMultiline: string | undefined;
  const consider = (full: Array<string | number>, line: number): void => {
    const depth = samePrefix(full, path);
    if (depth < full.length && depth < path.length) return;
    if (depth === 0) return;
    if (best === undefined || depth > best.depth) best = { line, depth };
  };
  /** A header's key with the index of each array of tables it goes through. */
  const resolveHeader = (parts: string[]): Array<string | number> => {
    const out: Array<string | number> = [];
    for (const part of parts) {
      out.push(part);
      const index = arrayIndex.get(out.join("\u0000"));
      if (index !== undefined) out.push(index);
    }
    return out;
  };
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n] ?? "";
    if (inMultiline !== undefined) {
      if (raw.includes(inMultiline)) inMultiline = undefined;
      continue;
    }
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const arr = /^\[\[(.+)\]\]\s*(#.*)?$/.exec(line);
    const tbl = arr === null ? /^\[(.+)\]\s*(#.*)?$/.exec(line) : null;
    if (arr?.[1] !== undefined) {
      const parts = splitKey(arr[1]) ?? [];
      const last = parts.pop() ?? "";
      const key = [...resolveHeader(parts), last];
      const joined = key.join("\u0000");
      const index = (arrayIndex.get(joined) ?? -1) + 1;
      arrayIndex.set(joined, index);
      table = [...key, index];
      consider(table, n + 1);
      continue;
    }
    if (tbl?.[1] !== undefined) {
      table = resolveHeader(splitKey(tbl[1]) ?? []);
      consider(table, n + 1);
      continue;
    }
    const keyText = keyOfAssignment(line);
    if (keyText === undefined) continue;
    const key = splitKey(keyText);
    if (key !== undefined) consider([...table, ...key], n + 1);
    const value = line.slice(keyText.length + 1);
    for (const delim of ['"""', "'''"]) {
      const first = value.indexOf(delim);
      if (first !== -1 && value.indexOf(delim, first + 3) === -1) {
        inMultiline = delim;
      }
    }
  }
  return best?.line;
}
