import assert from "node:assert/strict";
import { deriveTitle } from "../../store/title.ts";

const cases: Array<[string, string, string | undefined]> = [
  ["short text is kept", "hello", "hello"],
  ["whitespace collapses and trims", "  a \n\t b  ", "a b"],
  ["blank text gives no title", " \n\t ", undefined],
  ["empty text gives no title", "", undefined],
  ["exactly 40 code points is kept", "x".repeat(40), "x".repeat(40)],
  ["41 code points are cut to 39 + …", "x".repeat(41), `${"x".repeat(39)}…`],
  [
    "upstream example",
    "What does greet.js export? [[tool:read_file:greet.js]]",
    "What does greet.js export? [[tool:read_…",
  ],
  ["surrogate pairs count once", "😀".repeat(40), "😀".repeat(40)],
  ["surrogate pairs are never split", "😀".repeat(41), `${"😀".repeat(39)}…`],
  [
    "a long text is cut the same as its start",
    `${"word ".repeat(5000)}end`,
    `${"word ".repeat(7)}word…`,
  ],
  [
    "a long text that is mostly whitespace is read whole",
    `${" ".repeat(2000)}short then${" ".repeat(2000)}done`,
    "short then done",
  ],
  [
    "a trailing space before the cut is trimmed",
    `${"a".repeat(38)} bbbb`,
    `${"a".repeat(38)}…`,
  ],
];

Deno.test("deriveTitle() follows the title rules", async (t) => {
  for (const [name, input, expected] of cases) {
    await t.step(name, () => assert.equal(deriveTitle(input), expected));
  }
});
