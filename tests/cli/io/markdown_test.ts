/** The terminal's markdown: structure rendered, prose wrapped, code kept. */
import assert from "node:assert/strict";
import { createLiveMarkdown } from "../../../cli/io/live_markdown.ts";
import { createMarkdownRenderer } from "../../../cli/io/markdown.ts";

function render(text: string, width = 40, color = false): string {
  const r = createMarkdownRenderer({ width, color });
  return r.push(text) + r.flush();
}

Deno.test("markdown: headings, emphasis, code and links without styles", () => {
  assert.equal(
    render(
      "# Title\nSome **bold**, *soft* and `code` [here](https://x.dev).\n",
    ),
    "Title\nSome bold, soft and code here\n(https://x.dev).\n",
  );
});

Deno.test("markdown: styles only with color", () => {
  const out = render("## Sub\n**b** `c`\n", 40, true);
  assert.equal(out, "\x1b[1mSub\x1b[22m\n\x1b[1mb\x1b[22m \x1b[36mc\x1b[39m\n");
});

Deno.test("markdown: prose wraps on words at the width, never mid-word", () => {
  const out = render(`${"lorem ipsum dolor ".repeat(6).trim()}\n`, 24);
  for (const l of out.trimEnd().split("\n")) {
    assert.ok(l.length <= 24, JSON.stringify(l));
    assert.ok(!l.startsWith(" ") && !l.endsWith(" "), JSON.stringify(l));
  }
  assert.equal(
    out.replaceAll("\n", " ").trim(),
    "lorem ipsum dolor ".repeat(6).trim(),
  );
  const long = render(`${"x".repeat(50)}\n`, 20);
  assert.deepEqual(long.trimEnd().split("\n").map((l) => l.length), [
    20,
    20,
    10,
  ]);
});

Deno.test("markdown: lists get bullets and hanging indents; quotes and rules", () => {
  assert.equal(
    render("- one two three four five six\n2. next\n> said\n---\n", 20),
    "• one two three four\n  five six\n2. next\n│ said\n" + "─".repeat(20) +
      "\n",
  );
});

Deno.test("markdown: fenced code is kept as is, never wrapped", () => {
  const code = "const x = 1; // a long line that would wrap if it were prose\n";
  assert.equal(
    render("```ts\n" + code + "```\nafter\n", 20),
    `  ts\n  ${code}after\n`,
  );
});

Deno.test("markdown: a table is aligned when it ends", () => {
  assert.equal(
    render("| a | long header |\n|---|---|\n| xyz | 1 |\ndone\n"),
    "a   │ long header\n────┼────────────\nxyz │ 1          \ndone\n",
  );
  assert.equal(render("| only | row |"), "only │ row\n", "flushed at the end");
});

Deno.test("markdown: streamed in pieces, the same as whole", () => {
  const text = "# T\nA *b* `c` d.\n- e\n```\nx\n```\n| h |\n|---|\n| v |\nend";
  const whole = render(text, 30);
  const r = createMarkdownRenderer({ width: 30, color: false });
  let pieces = "";
  for (const ch of text) pieces += r.push(ch);
  assert.equal(pieces + r.flush(), whole);
});

Deno.test("the terminal chat's printer renders the model's markdown; without it the text stays raw", async () => {
  const { createBufferedIo } = await import("../../../cli/io/io.ts");
  const { createPlainPrinter } = await import("../../../cli/io/output.ts");
  const { TOOL_LINES } = await import("../../../cli/chat/tool_line.ts");
  const env = { sessionId: "s", timestamp: "2026-01-01T00:00:00.000Z" };
  const tokens = ["# Pl", "an\n- **one** th", "ing\n", "`done`"];
  const run = (markdown: boolean): string => {
    const b = createBufferedIo();
    const p = createPlainPrinter(b.io, {
      color: false,
      quiet: true,
      verbose: false,
      terminal: {
        now: () => 0,
        lines: TOOL_LINES,
        ...(markdown
          ? { markdown: createLiveMarkdown({ width: 40, color: false }) }
          : {}),
      },
    });
    tokens.forEach((token, i) =>
      p.print({
        ...env,
        sequenceNumber: i,
        type: "agent:token",
        nodeId: "n",
        token,
        model: "m",
      })
    );
    p.print({
      ...env,
      sequenceNumber: 9,
      type: "session:turn_completed",
      stopReason: "stop",
      tokensUsed: { input: 1, output: 1 },
    });
    return b.stdoutText();
  };
  const ERASE = "\r\x1b[2K";
  assert.equal(
    run(true),
    `# Pl${ERASE}Plan\n- **one** th${ERASE}• one thing\n\`done\`${ERASE}done\n`,
    "each line streams plain, then is redrawn rendered",
  );
  assert.equal(run(false), "# Plan\n- **one** thing\n`done`\n");
});

Deno.test("live markdown: a line longer than a row is wrapped as it streams; a kept row is never erased", () => {
  const r = createLiveMarkdown({ width: 20, color: false });
  const long = "word ".repeat(9).trim(); // 44 columns: three rows at 20
  const out = r.push(long.slice(0, 10)) + r.push(long.slice(10)) +
    r.push("\n");
  assert.ok(!out.includes("\x1b[1A"), JSON.stringify(out));
  assert.ok(
    out.endsWith(
      "word word word word\nword word word word\nword\r\x1b[2Kword\n",
    ),
    JSON.stringify(out),
  );
  const same = createLiveMarkdown({ width: 40, color: false });
  assert.equal(
    same.push("Plain text") + same.push(" only.\n") + same.flush(),
    "Plain text only.\n",
    "a line that renders as streamed is not redrawn",
  );
});
