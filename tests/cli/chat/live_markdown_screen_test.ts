/**
 * The live markdown renderer as a terminal shows it: streamed in small
 * pieces and played on a small terminal emulator with a short screen,
 * what scrolled by plus what is on screen holds the same characters as
 * the whole text rendered at once (only where rows break may differ), for
 * prose, lists, quotes, headings, code, tables and long words; after a
 * resize, every word is there once, in order.
 */
import assert from "node:assert/strict";
import { createLiveMarkdown } from "../../../cli/io/live_markdown.ts";
import { createMarkdownRenderer } from "../../../cli/io/markdown.ts";
import { createVt } from "./_vt.ts";

const DOC = [
  "# A heading that is long enough to need more than one row here",
  "",
  "A paragraph with **bold words** and `code` and *italic* text that goes on for a while, longer than any screen row, so that it wraps many times over.",
  "",
  "- an item that is also quite long and wraps onto a second row at least",
  "  - a nested item",
  "1. numbered and long enough to wrap onto the next row of the terminal",
  "> a quote that is long enough to wrap onto a second row of the terminal",
  "",
  "```ts",
  "const aVeryLongIdentifierName = anotherVeryLongFunctionName(argumentNumberOne);",
  "```",
  "",
  "| a | b |",
  "|---|---|",
  "| one | two |",
  "",
  "Supercalifragilisticexpialidociouswordthatislongerthanarow ends it.",
  "",
].join("\n");

function played(width: number, pieces: readonly string[]): string[] {
  const vt = createVt(width, 6);
  const live = createLiveMarkdown({ width, color: false });
  for (const p of pieces) vt.write(live.push(p).replaceAll("\n", "\r\n"));
  vt.write(live.flush().replaceAll("\n", "\r\n"));
  return vt.lines();
}

/** The characters shown, whitespace aside (wrapping moves only spaces). */
function ink(lines: readonly string[]): string {
  return lines.join("").replace(/[\s│]+/g, "");
}

Deno.test("createLiveMarkdown() streamed on a short screen shows what the whole render shows, once, no row past the margin", async (t) => {
  for (const size of [1, 3, 7]) {
    await t.step(`pieces of ${size}`, () => {
      const pieces: string[] = [];
      for (let i = 0; i < DOC.length; i += size) {
        pieces.push(DOC.slice(i, i + size));
      }
      const whole = createMarkdownRenderer({ width: 30, color: false });
      const want = (whole.push(DOC) + whole.flush()).split("\n");
      const got = played(30, pieces);
      assert.equal(ink(got), ink(want));
      for (const row of got) assert.ok([...row].length <= 30, row);
    });
  }
});

Deno.test("createLiveMarkdown() after a resize mid-paragraph: every word once, in order", () => {
  let width = 40;
  const vt = createVt(40, 6);
  const live = createLiveMarkdown({ width: () => width, color: false });
  const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
  const text = `${words.join(" ")}\n`;
  for (let i = 0; i < text.length; i += 4) {
    if (i === 100) {
      width = 25;
      vt.resize(25, 6);
    }
    vt.write(live.push(text.slice(i, i + 4)).replaceAll("\n", "\r\n"));
  }
  vt.write(live.flush().replaceAll("\n", "\r\n"));
  const seen = vt.lines().join(" ").split(/\s+/).filter((w) => w !== "");
  assert.deepEqual(seen, words);
  for (const row of vt.lines()) assert.ok([...row].length <= 40, row);
});
