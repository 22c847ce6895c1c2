import assert from "node:assert/strict";
import { isScalar, type Pair, parse, stringify } from "yaml";
import type { WorkflowDocument } from "../../export/document.ts";
import { stringifyWorkflow } from "../../export/yaml.ts";

function docWith(metadata: Record<string, unknown>): WorkflowDocument {
  return {
    schema_version: "1.0",
    workflow: { id: "w", metadata, nodes: [], edges: [] },
  };
}

function metadataOf(text: string, version: "1.1" | "1.2"): unknown {
  const options = version === "1.2"
    ? { schema: "core" as const }
    : { version: "1.1" as const };
  return parse(text, options).workflow.metadata;
}

Deno.test("stringifyWorkflow() sorts keys by code unit at every depth", () => {
  const text = stringifyWorkflow(docWith({
    b: { z: 1, "10": 2, "9": 3, B: 4, é: 5, "": 6 },
    a: [{ y: 1, x: 2 }, "second"],
  }));
  assert.equal(
    text,
    [
      'schema_version: "1.0"',
      "workflow:",
      "  edges: []",
      "  id: w",
      "  metadata:",
      "    a:",
      "      - x: 2",
      '        "y": 1',
      "      - second",
      "    b:",
      '      "": 6',
      '      "10": 2',
      '      "9": 3',
      "      B: 4",
      "      z: 1",
      "      é: 5",
      "  nodes: []",
      "",
    ].join("\n"),
  );
});

/** Strings a YAML 1.2 core or YAML 1.1 reader would load as another type. */
const LOOKALIKES = [
  "1.0",
  "1",
  "-1",
  "0o17",
  "017",
  "0x1F",
  "1e3",
  "1_000",
  "1:20",
  ".inf",
  "-.Inf",
  ".NaN",
  "true",
  "False",
  "TRUE",
  "yes",
  "No",
  "on",
  "OFF",
  "y",
  "null",
  "Null",
  "~",
  "",
  "<<",
  "2026-12-02T11:27:59.560Z",
  "2026-12-02",
  "2026-12-02 11:27:59",
];

Deno.test("stringifyWorkflow() quotes strings that would load as another type", async (t) => {
  for (const s of LOOKALIKES) {
    await t.step(JSON.stringify(s), () => {
      const text = stringifyWorkflow(docWith({ v: s }));
      const line = text.split("\n").find((l) => l.startsWith("    v:"));
      assert.ok(line?.startsWith('    v: "'), line);
      assert.deepEqual(metadataOf(text, "1.2"), { v: s });
      assert.deepEqual(metadataOf(text, "1.1"), { v: s });
    });
  }
});

Deno.test("stringifyWorkflow() writes plain text plainly", () => {
  const text = stringifyWorkflow(docWith({ v: "Hello, this is a plain chat" }));
  assert.ok(text.includes("    v: Hello, this is a plain chat\n"));
});

Deno.test("stringifyWorkflow() emits no anchors, aliases, tags or folding", () => {
  const shared = { k: "v" };
  const long = "word ".repeat(60).trim();
  const text = stringifyWorkflow(docWith({ a: shared, b: shared, long }));
  assert.ok(!/[&*!]/.test(text), text);
  assert.ok(text.includes(`    long: ${long}\n`));
  assert.ok(text.endsWith("\n") && !text.endsWith("\n\n"));
});

interface EscapeCase {
  value: string;
  line: string;
}

const ESCAPES: EscapeCase[] = [
  { value: "a\u0001b\u0000c", line: '"a\\x01b\\0c"' },
  { value: "lone \ud800 high", line: '"lone \\ud800 high"' },
  { value: "del\u007f", line: '"del\\x7f"' },
  { value: "c1\u0080\u009f", line: '"c1\\x80\\x9f"' },
  { value: "nel\u0085", line: '"nel\\N"' },
  { value: "ls\u2028ps\u2029", line: '"ls\\Lps\\P"' },
  { value: "bom\ufeff", line: '"bom\\ufeff"' },
  { value: "nonchars\ufffe\uffff", line: '"nonchars\\ufffe\\uffff"' },
  { value: "nbsp\u00a0 é 🎉", line: "nbsp\u00a0 é 🎉" },
];

Deno.test("stringifyWorkflow() escapes what YAML readers must not see raw", async (t) => {
  for (const c of ESCAPES) {
    await t.step(JSON.stringify(c.value), () => {
      const text = stringifyWorkflow(docWith({ [c.value]: c.value }));
      const quotedKey = c.line.startsWith('"');
      const key = quotedKey ? c.line : c.value;
      assert.ok(text.includes(`    ${key}: ${c.line}\n`), text);
      assert.deepEqual(metadataOf(text, "1.2"), { [c.value]: c.value });
      assert.equal(
        new TextDecoder().decode(new TextEncoder().encode(text)),
        text,
      );
    });
  }
});

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  " ",
  "  ",
  "\n",
  "\n\n",
  "\t",
  "\r",
  "#",
  ": ",
  ":",
  "-",
  "- ",
  "? ",
  "'",
  '"',
  "\\",
  "{",
  "}",
  "{{",
  "[",
  "]",
  ",",
  "&",
  "*",
  "!",
  "|",
  ">",
  "%",
  "@",
  "`",
  "---",
  "...",
  "true",
  "null",
  "1.0",
  "0o7",
  "yes",
  "~",
  "é",
  "e\u0301",
  "中",
  "🎉",
  "\u00a0",
  "\u2028",
  "\u0085",
  "\ufeff",
  "\u0001",
  "\ud800",
  "\x7f",
  "\x85",
  "\x9f",
  "\u2029",
  "\uffff",
  "a",
  "b",
  "word",
  "2026-01-01",
  "T10:00:00Z",
];

function randomString(next: () => number): string {
  let s = "";
  const n = Math.floor(next() * 8);
  for (let i = 0; i < n; i++) {
    s += PIECES[Math.floor(next() * PIECES.length)];
  }
  return s;
}

function randomValue(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 2 || r < 0.5) {
    if (r < 0.05) return Math.floor(next() * 2000) - 1000;
    if (r < 0.08) return next() < 0.5;
    if (r < 0.1) return null;
    if (r < 0.12) return next() * 10;
    return randomString(next);
  }
  if (r < 0.75) {
    return Array.from(
      { length: Math.floor(next() * 4) },
      () => randomValue(next, depth + 1),
    );
  }
  const out: Record<string, unknown> = {};
  const n = Math.floor(next() * 4);
  for (let i = 0; i < n; i++) {
    out[randomString(next)] = randomValue(next, depth + 1);
  }
  return out;
}

Deno.test("stringifyWorkflow() round-trips random awkward data byte-stably", () => {
  const next = prng(20260304);
  for (let i = 0; i < 400; i++) {
    const metadata = { v: randomValue(next, 0), k: randomString(next) };
    const text = stringifyWorkflow(docWith(metadata));
    assert.ok(!/[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/.test(text), text);
    const back = parse(text, { schema: "core" }) as WorkflowDocument;
    assert.deepEqual(back.workflow.metadata, metadata, text);
    assert.equal(stringifyWorkflow(back), text);
    assert.deepEqual(metadataOf(text, "1.1"), metadata, text);
  }
});

function keyOf(pair: Pair): string {
  return String(isScalar(pair.key) ? pair.key.value : pair.key);
}

/** The `yaml` library configured like the Relavium CLI's exports. */
function libraryStringify(value: unknown): string {
  return stringify(value, {
    schema: "core",
    compat: "yaml-1.1",
    aliasDuplicateObjects: false,
    lineWidth: 0,
    sortMapEntries: (a: Pair, b: Pair) => {
      const x = keyOf(a);
      const y = keyOf(b);
      return x < y ? -1 : x > y ? 1 : 0;
    },
  });
}

/**
 * Whether the data hits one of our deliberate style differences from the
 * library: keys starting with `---`/`...` are always quoted, a space
 * before a line feed inside double quotes is not escaped, text made only
 * of spaces and line feeds is double-quoted (the library's literal block
 * for it does not load back), blank text with a space gets an explicit
 * indentation indicator, and signed octal look-alikes such as
 * `-0o7` are quoted (js-yaml reads them as numbers).
 */
function hasKnownStyleDifference(v: unknown): boolean {
  if (typeof v === "string") return /^[ \t\n]* [ \t\n]*$| \n|^[-+]0o/.test(v);
  if (Array.isArray(v)) return v.some(hasKnownStyleDifference);
  if (typeof v === "object" && v !== null) {
    return Object.entries(v).some(([k, x]) =>
      /^(?:---|\.\.\.|[-+]0o)| \n/.test(k) ||
      hasKnownStyleDifference(x)
    );
  }
  return false;
}

Deno.test("stringifyWorkflow() writes what the yaml library writes (printable text)", () => {
  const next = prng(7);
  let compared = 0;
  for (let i = 0; i < 1000; i++) {
    const metadata = { v: randomValue(next, 0) };
    const printable =
      // deno-lint-ignore no-control-regex -- the characters escaped on purpose
      !/[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/
        .test(JSON.stringify(metadata));
    if (!printable || hasKnownStyleDifference(metadata)) continue;
    const doc = docWith(metadata);
    assert.equal(stringifyWorkflow(doc), libraryStringify(doc));
    compared++;
  }
  assert.ok(compared > 500, `only ${compared} cases compared`);
});

Deno.test("stringifyWorkflow() writes keys over 1024 characters as explicit keys", () => {
  const key = "k".repeat(1100);
  const metadata = { [key]: { nested: [1, "two"] }, [`${key}x`]: "flat" };
  const text = stringifyWorkflow(docWith(metadata));
  assert.ok(text.includes(`    ? ${key}\n    :\n      nested:\n`), text);
  assert.deepEqual(metadataOf(text, "1.2"), metadata);
  assert.deepEqual(metadataOf(text, "1.1"), metadata);
  const back = parse(text, { schema: "core" }) as WorkflowDocument;
  assert.equal(stringifyWorkflow(back), text);
});

Deno.test("stringifyWorkflow() refuses values that are not JSON-like", () => {
  for (const bad of [() => 1, 1n, Symbol("s"), new Date(0), new Map()]) {
    assert.throws(() => stringifyWorkflow(docWith({ bad })), TypeError);
  }
});

const BLANKISH = [
  " \n\n",
  " \n",
  "  \n",
  "\n \n",
  "\n",
  "\n\n",
  "\t\n",
  " \t\n",
  "x\n \n",
  " \nx",
  "\n\n  x\n",
  "line one \nline two",
  "a\n\n ",
  "a\n\t",
  "windows\r\nlines\r\n",
];

Deno.test("stringifyWorkflow() round-trips blank and whitespace-edged lines", async (t) => {
  for (const v of BLANKISH) {
    await t.step(JSON.stringify(v), () => {
      const text = stringifyWorkflow(docWith({ v, [v]: 1 }));
      assert.deepEqual(metadataOf(text, "1.2"), { v, [v]: 1 });
      assert.deepEqual(metadataOf(text, "1.1"), { v, [v]: 1 });
      const back = parse(text, { schema: "core" }) as WorkflowDocument;
      assert.equal(stringifyWorkflow(back), text);
    });
  }
});
