/**
 * The interactive chat's line editor over a raw terminal. It owns the
 * terminal's input mode: raw while a line is read (every key is a key:
 * Ctrl-C clears the line, Ctrl-D ends, nothing is echoed but what it
 * draws), no-echo with signals between reads (a turn runs: Ctrl-C is
 * SIGINT as before, so a running command's child gets it too; typed text
 * is held, never echoed into the answer). Bracketed paste is switched on
 * so a paste arrives as one text, newlines included; the terminal is put
 * back on {@linkcode TerminalReader.close}.
 *
 * Held keys (typed while no line is read): Esc ⇒ `interrupt`; an entered
 * `/cancel` ⇒ `cancel`; another entered line is queued and returned by
 * the next `readMessage` (drawn after its prompt); the unentered rest is
 * pre-filled into the next message. An answer read (`next()`) starts
 * empty: text typed before a question never answers it; Ctrl-C or Esc
 * there ends it with no answer and reports `interrupt`.
 *
 * @module
 */
import type { TerminalMode } from "../../io/io.ts";
import type { PathCompleter } from "./complete.ts";
import { applyCompletion, typedAtPath } from "./complete.ts";
import type { InputHistory } from "./history.ts";
import { type Key, KeyDecoder } from "./keys.ts";
import {
  applyEdit,
  EMPTY_LINE,
  insertText,
  lineAtEnd,
  type LineState,
  moveLine,
} from "./line_state.ts";
import type { ControlKey, TerminalReader } from "./reader_types.ts";
import { displayWidth, drawLine } from "./render.ts";

/** What {@linkcode createTerminalReader} needs. */
export interface TerminalReaderOptions {
  /** Terminal input bytes. */
  stdin: ReadableStream<Uint8Array>;
  /** Writes to the terminal (stderr). */
  write(text: string): void;
  /** Switches the terminal's input mode. */
  setMode(mode: TerminalMode): void;
  /** The terminal's width in columns. */
  columns(): number;
  /** Calls `handler` when the terminal is resized (the prompt is redrawn). */
  onResize?(handler: () => void): () => void;
  /** The message history (Up/Down; submitted messages are added). */
  history: InputHistory;
  /** `@` path completion (absent ⇒ Tab does nothing). */
  complete?: PathCompleter;
}

const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";
const CLEAR_SCREEN = "\x1b[H\x1b[2J";
/** Shown after a first Ctrl-C on an empty prompt. */
const EXIT_HINT = "(Ctrl-C again or Ctrl-D ends the chat)";

/** Control characters a paste keeps (others are dropped). */
function cleanPaste(text: string, multiline: boolean): string {
  const unified = text.replace(/\r\n?/g, "\n");
  // deno-lint-ignore no-control-regex
  const kept = unified.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
  return multiline ? kept : kept.replaceAll("\n", " ");
}

interface Read {
  kind: "message" | "answer";
  prompt: string;
  state: LineState;
  cursorRow: number;
  /** A first Ctrl-C on an empty message line was pressed. */
  armed: boolean;
  /** Position in the history while browsing (`entries.length` ⇒ the draft). */
  historyIndex: number;
  draft: LineState;
  resolve(line: string | undefined): void;
  promise: Promise<string | undefined>;
}

/**
 * Creates the editor. Reading starts at the first read.
 *
 * @param options Terminal effects, history and completion.
 * @returns The reader.
 */
export function createTerminalReader(
  options: TerminalReaderOptions,
): TerminalReader {
  const { write, history } = options;
  const decoder = new KeyDecoder();
  const handlers = new Set<(key: ControlKey) => void>();
  const queued: string[] = [];
  let heldDraft: LineState = EMPTY_LINE;
  let active: Read | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let ended = false;
  let closed = false;
  let pump: Promise<void> | undefined;
  let pasteOn = false;

  // A resize redraws the prompt being edited at the new width.
  const stopResize = options.onResize?.(() => {
    if (active?.kind === "message" && !closed) draw(active);
  }) ?? ((): void => {});

  function emit(key: ControlKey): void {
    for (const h of [...handlers]) h(key);
  }

  function draw(read: Read): void {
    if (read.kind === "message") {
      const d = drawLine(read.state, {
        prompt: read.prompt,
        columns: options.columns(),
        cursorRow: read.cursorRow,
      });
      read.cursorRow = d.cursorRow;
      write(d.output);
      return;
    }
    // An answer is drawn where the question left the cursor: back to
    // the answer's start, rewritten, cursor put back.
    const col = displayWidth(read.state.text.slice(0, read.state.cursor));
    const back = read.cursorRow > 0 ? `\x1b[${read.cursorRow}D` : "";
    const tail = displayWidth(read.state.text) - col;
    write(`${back}\x1b[K${read.state.text}${tail > 0 ? `\x1b[${tail}D` : ""}`);
    read.cursorRow = col;
  }

  /** Puts the cursor after the drawing, on a fresh line. */
  function leave(read: Read, mark = ""): void {
    read.state = lineAtEnd(read.state.text);
    draw(read);
    write(`${mark}\r\n`);
    read.cursorRow = 0;
  }

  function finish(read: Read, line: string | undefined): void {
    if (active !== read) return;
    active = undefined;
    if (!closed) options.setMode("cbreak");
    read.resolve(line);
  }

  function startRead(kind: Read["kind"], prompt: string): Read {
    if (active !== undefined) finish(active, undefined);
    let resolve: (line: string | undefined) => void = () => {};
    const promise = new Promise<string | undefined>((r) => {
      resolve = r;
    });
    const read: Read = {
      kind,
      prompt,
      state: EMPTY_LINE,
      cursorRow: 0,
      armed: false,
      historyIndex: history.entries.length,
      draft: EMPTY_LINE,
      resolve,
      promise,
    };
    active = read;
    if (ended || closed) {
      finish(read, undefined);
      return read;
    }
    options.setMode("raw");
    pump ??= runPump();
    return read;
  }

  async function runPump(): Promise<void> {
    reader = options.stdin.getReader();
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        const keys = decoder.feed(chunk.value);
        for (const key of keys) await handle(key);
        if (active !== undefined) draw(active);
      }
    } catch {
      // A closed or failed terminal ends the input.
    }
    ended = true;
    if (active !== undefined) {
      leave(active);
      finish(active, undefined);
    }
  }

  async function handle(key: Key): Promise<void> {
    const read = active;
    if (read === undefined) return hold(key);
    if (key.type !== "key" || key.name !== "interrupt") read.armed = false;
    const multiline = read.kind === "message";
    if (key.type === "text" || key.type === "paste") {
      read.state = insertText(read.state, cleanPaste(key.text, multiline));
      return;
    }
    const { state } = read;
    // An answer is one line: a line feed ends it too (keys typed before
    // the terminal left canonical mode arrive with Enter as `\n`).
    const name = !multiline && key.name === "newline" ? "enter" : key.name;
    switch (name) {
      case "enter":
        if (
          multiline && state.text.endsWith("\\") &&
          state.cursor === state.text.length
        ) {
          // A trailing backslash continues the message on a new line.
          read.state = lineAtEnd(`${state.text.slice(0, -1)}\n`);
          return;
        }
        leave(read);
        if (multiline) await history.add(state.text);
        return finish(read, state.text);
      case "newline":
        read.state = insertText(state, "\n");
        return;
      case "eof":
        if (state.text === "") {
          leave(read);
          return finish(read, undefined);
        }
        read.state = applyEdit(state, "delete") ?? state;
        return;
      case "interrupt":
        return interrupt(read);
      case "clear-screen":
        if (!multiline) return;
        write(CLEAR_SCREEN);
        read.cursorRow = 0;
        return;
      case "up":
      case "down":
        if (multiline) browse(read, key.name === "up" ? -1 : 1);
        return;
      case "tab":
        if (multiline) await complete(read);
        return;
      case "escape":
        if (!multiline) interrupt(read);
        return;
      default:
        read.state = applyEdit(state, name) ?? state;
    }
  }

  function interrupt(read: Read): void {
    if (read.kind === "answer") {
      // A question (an approval during a turn): Ctrl-C or Esc gives no
      // answer and stops the turn, as Ctrl-C does while a turn streams.
      leave(read, "^C");
      finish(read, undefined);
      emit("interrupt");
      return;
    }
    if (read.state.text !== "") {
      leave(read, "^C");
      read.state = EMPTY_LINE;
      read.historyIndex = history.entries.length;
      return;
    }
    if (read.armed) {
      leave(read);
      return finish(read, undefined);
    }
    read.armed = true;
    leave(read);
    write(`${EXIT_HINT}\r\n`);
  }

  function browse(read: Read, direction: -1 | 1): void {
    const moved = moveLine(read.state, direction);
    if (moved !== undefined) {
      read.state = moved;
      return;
    }
    const entries = history.entries;
    const to = read.historyIndex + direction;
    if (to < 0 || to > entries.length) return;
    if (read.historyIndex === entries.length) read.draft = read.state;
    read.historyIndex = to;
    read.state = to === entries.length
      ? read.draft
      : lineAtEnd(entries[to] ?? "");
  }

  async function complete(read: Read): Promise<void> {
    const partial = typedAtPath(read.state);
    if (partial === undefined || options.complete === undefined) return;
    const candidates = await options.complete(partial);
    const completed = applyCompletion(read.state, partial, candidates);
    if (completed !== read.state || candidates.length < 2) {
      read.state = completed;
      return;
    }
    const cursor = read.state.cursor;
    leave(read);
    write(`${candidates.join("  ")}\r\n`);
    read.state = { text: read.state.text, cursor };
  }

  function hold(key: Key): void {
    if (key.type === "text" || key.type === "paste") {
      heldDraft = insertText(heldDraft, cleanPaste(key.text, true));
      return;
    }
    switch (key.name) {
      case "escape":
      case "interrupt":
        emit("interrupt");
        return;
      case "enter": {
        const text = heldDraft.text;
        heldDraft = EMPTY_LINE;
        if (text.trim() === "/cancel") emit("cancel");
        else queued.push(text);
        return;
      }
      default:
        heldDraft = applyEdit(heldDraft, key.name) ?? heldDraft;
    }
  }

  return {
    terminal: true,
    readMessage(prompt: string): Promise<string | undefined> {
      const read = startRead("message", prompt);
      if (active !== read) return read.promise;
      // Bracketed paste stays on from the first prompt to close().
      if (!pasteOn) write(PASTE_ON);
      pasteOn = true;
      const ahead = queued.shift();
      if (ahead !== undefined) {
        read.state = lineAtEnd(ahead);
        leave(read);
        void history.add(ahead);
        finish(read, ahead);
        return read.promise;
      }
      read.state = heldDraft;
      heldDraft = EMPTY_LINE;
      draw(read);
      return read.promise;
    },
    next(): Promise<string | undefined> {
      if (active?.kind === "answer") return active.promise;
      return startRead("answer", "").promise;
    },
    onControl(handler: (key: ControlKey) => void): () => void {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    async close(): Promise<void> {
      if (closed) return;
      stopResize();
      if (active !== undefined) {
        leave(active);
        finish(active, undefined);
      }
      closed = true;
      if (pasteOn) write(PASTE_OFF);
      if (pump !== undefined) {
        try {
          await reader?.cancel();
        } catch {
          // Already closed.
        }
        await pump;
        reader?.releaseLock();
      }
      options.setMode("normal");
    },
  };
}
