import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { splitArgv } from "../../cli/argv.ts";
import { OPTIONS } from "../../cli/command_line.ts";

// The CLI's own splitter replaces `node:util` `parseArgs` on the start-up
// path: on every line here it gives parseArgs's values, positionals and
// options as written, and fails strictly exactly where parseArgs throws.
const LINES: string[][] = [
  [],
  ["chat"],
  ["chat", "--agent", "a.yaml", "--json"],
  ["chat", "--agent=a.yaml", "-v"],
  ["-vq", "chat"],
  ["chat", "--no-color", "--color"],
  ["chat", "--no-json"],
  ["chat", "--no-cwd"],
  ["chat", "--no-bogus"],
  ["chat", "--bogus"],
  ["chat", "-x"],
  ["chat", "-vx"],
  ["chat", "--cwd"],
  ["chat", "--cwd", "--json"],
  ["chat", "--cwd", "-"],
  ["chat", "--cwd=-x"],
  ["chat", "--json=1"],
  ["chat", "--verbose=1"],
  ["chat", "--no-color=1"],
  ["agent", "run", "a.yaml", "--input", "k=v", "--input=j=w"],
  ["agent", "run", "--", "--json", "-v"],
  ["chat", "-", "x"],
  ["chat", "--agent", ""],
  ["--help"],
  ["-h", "--bogus"],
  ["chat", "-V"],
  ["chat", "--__proto__"],
  ["chat", "--=x"],
];

for (const strict of [false, true]) {
  Deno.test(`splitArgv gives parseArgs's result (strict: ${strict})`, () => {
    for (const line of LINES) {
      let expected: unknown;
      try {
        const r = parseArgs({
          args: [...line],
          options: OPTIONS,
          allowPositionals: true,
          allowNegative: true,
          strict,
          tokens: true,
        });
        expected = {
          ok: true,
          values: { ...r.values },
          positionals: r.positionals,
          optionNames: r.tokens.flatMap((t) =>
            t.kind === "option" ? [t.rawName] : []
          ),
        };
      } catch {
        expected = { ok: false };
      }
      const ours = splitArgv(line, OPTIONS, strict);
      const got = ours.ok ? { ...ours } : { ok: false };
      assert.deepEqual(got, expected, JSON.stringify(line));
    }
  });
}

Deno.test("splitArgv's faults name the option as written", () => {
  const fault = (line: string[]) => {
    const r = splitArgv(line, OPTIONS, true);
    return r.ok ? "" : r.message;
  };
  assert.equal(fault(["--bogus"]), "Unknown option: --bogus");
  assert.equal(fault(["-x"]), "Unknown option: -x");
  assert.equal(fault(["--cwd"]), "Missing value for --cwd");
  assert.equal(fault(["--json=1"]), "Option --json does not take a value");
  assert.equal(
    fault(["--cwd", "-q"]),
    'Missing value for --cwd (write --cwd=<value> for a value starting with "-")',
  );
});
