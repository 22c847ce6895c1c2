/**
 * What a person sees of a long answer on a real pseudo-terminal
 * (tests/_kit/pty_run.py) once the terminal has drawn it: the bytes the
 * chat wrote are played on a small terminal emulator (`_vt.ts`), its
 * scrollback included, and every sentence of the answer must be there
 * exactly once and in order: a paragraph taller than the screen is not
 * duplicated, a resize while it streams does not garble it, and the
 * prompt is redrawn after a resize.
 */
import assert from "node:assert/strict";
import { spawnPty } from "../_pty.ts";
import { type Answer, chatProvider, chatSetup } from "../_pty_chat.ts";
import { tempDir } from "../_helpers.ts";
import { createVt } from "./_vt.ts";

const RESIZED = "\x1b]pty-resized\x07";

/** 40 sentences, each with its own token, as one paragraph. */
function sentences(from: number, to: number): string[] {
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    out.push(`Sentence S${n}x says a few words, `, `then it ends here. `);
  }
  return out;
}

/** The screen and scrollback after `raw`, resized where the driver marked. */
function seen(raw: string, size: [number, number], after?: [number, number]) {
  const vt = createVt(...size);
  const [before, ...rest] = raw.split(RESIZED);
  vt.write(before ?? "");
  if (rest.length > 0 && after !== undefined) {
    vt.resize(...after);
    vt.write(rest.join(""));
  }
  return vt.lines();
}

/** Every `S<n>x` token on screen, in order. */
function tokens(lines: readonly string[]): number[] {
  return [...lines.join(" ").matchAll(/S(\d+)x/g)].map((m) => Number(m[1]));
}

const ALL = Array.from({ length: 40 }, (_, i) => i + 1);

/** A chat on a 60x20 terminal against `answer`, "talk" sent. */
async function talk(dir: string, answer: Answer) {
  const provider = chatProvider([answer]);
  const { args, env } = await chatSetup(dir, `${dir}/home`, provider);
  const chat = spawnPty(args, { cwd: dir, env, columns: 60, rows: 20 });
  const at = await chat.waitFor("> ");
  await chat.type("talk\r");
  return { provider, chat, at };
}

Deno.test("chat on a 60x20 terminal: a paragraph taller than the screen is in the scrollback once", async () => {
  await using dir = await tempDir();
  const started = await talk(dir.path, {
    deltas: [...sentences(1, 40), "\n"],
  });
  await using _provider = started.provider;
  await using chat = started.chat;
  let at = started.at;
  at = await chat.waitFor("S40x", at);
  await chat.waitFor("\n> ", at);
  const lines = seen(chat.raw(), [60, 20]);
  assert.deepEqual(tokens(lines), ALL, lines.join("\n"));
  await chat.type("\x04");
  assert.equal(await chat.waitExit(), 4);
});

Deno.test("chat on a terminal resized while a paragraph streams: nothing garbled; the prompt is redrawn", async () => {
  await using dir = await tempDir();
  const started = await talk(dir.path, {
    deltas: sentences(1, 20),
    hold: true,
    rest: [...sentences(21, 40), "\n"],
  });
  await using provider = started.provider;
  await using chat = started.chat;
  let at = started.at;
  // The host holds back the newest delta: S19x is the last one shown.
  at = await chat.waitFor("S19x", at);
  await chat.type("\x1b]pty-resize;40;20\x07");
  // The driver marks where the terminal changed size.
  at = await chat.waitFor("]pty-resized", at);
  provider.release();
  at = await chat.waitFor("S40x", at);
  at = await chat.waitFor("\n> ", at);
  const lines = seen(chat.raw(), [60, 20], [40, 20]);
  assert.deepEqual(tokens(lines), ALL, lines.join("\n"));
  // At the prompt, a resize redraws it.
  const mark = chat.raw().length;
  await chat.type("draft");
  await chat.waitFor("draft", at);
  await chat.type("\x1b]pty-resize;50;20\x07");
  at = await chat.waitFor("]pty-resized", at);
  await chat.waitFor("> draft", at);
  assert.ok(
    chat.raw().slice(mark).split(RESIZED)[1]?.includes("> draft"),
    "the prompt and its text are drawn again after the resize",
  );
  await chat.type("\x15\x04");
  assert.equal(await chat.waitExit(), 4);
});
