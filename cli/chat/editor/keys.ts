/**
 * Terminal input bytes to editor keys: UTF-8 text, control characters,
 * CSI/SS3 escape sequences (arrows, Home/End, Delete, Ctrl/Alt-arrows),
 * Alt-letter combinations and bracketed pastes (`ESC[200~ … ESC[201~`,
 * delivered as one `paste` key however many reads it spans). An escape
 * sequence this editor does not know is dropped, never inserted as text.
 *
 * @module
 */

/** What an editing key asks for. */
export type KeyName =
  | "enter"
  | "newline"
  | "backspace"
  | "delete"
  | "eof"
  | "left"
  | "right"
  | "word-left"
  | "word-right"
  | "home"
  | "end"
  | "up"
  | "down"
  | "kill-word"
  | "kill-start"
  | "kill-end"
  | "tab"
  | "interrupt"
  | "clear-screen"
  | "escape";

/** One decoded key. */
export type Key =
  | { type: "text"; text: string }
  | { type: "paste"; text: string }
  | { type: "key"; name: KeyName };

/** Control characters (byte value → key). */
const CONTROL: Readonly<Record<number, KeyName>> = {
  0x01: "home", // Ctrl-A
  0x02: "left", // Ctrl-B
  0x03: "interrupt", // Ctrl-C
  0x04: "eof", // Ctrl-D (deletes forward on a non-empty line)
  0x05: "end", // Ctrl-E
  0x06: "right", // Ctrl-F
  0x08: "backspace", // Ctrl-H
  0x09: "tab",
  0x0a: "newline", // Ctrl-J
  0x0b: "kill-end", // Ctrl-K
  0x0c: "clear-screen", // Ctrl-L
  0x0d: "enter",
  0x0e: "down", // Ctrl-N
  0x10: "up", // Ctrl-P
  0x15: "kill-start", // Ctrl-U
  0x17: "kill-word", // Ctrl-W
  0x7f: "backspace",
};

/** `ESC <char>` (Alt-char). */
const ALT: Readonly<Record<string, KeyName>> = {
  b: "word-left",
  f: "word-right",
  "\r": "newline",
  "\n": "newline",
  "\x7f": "kill-word",
  "\b": "kill-word",
};

/** Final byte of a parameterless CSI or SS3 sequence. */
const FINAL: Readonly<Record<string, KeyName>> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
};

/** `ESC [ <n> ~`. */
const TILDE: Readonly<Record<string, KeyName>> = {
  "1": "home",
  "7": "home",
  "4": "end",
  "8": "end",
  "3": "delete",
};

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** Maps one complete CSI sequence (`params` + `final`) to a key. */
function csiKey(params: string, final: string): KeyName | undefined {
  if (final === "~") return TILDE[params.split(";")[0] ?? ""];
  const name = FINAL[final];
  if (name === undefined) return undefined;
  // `1;5C` (Ctrl) and `1;3C` (Alt) move by words.
  const modifier = params.split(";")[1];
  if (modifier !== undefined && modifier !== "1") {
    if (name === "left") return "word-left";
    if (name === "right") return "word-right";
  }
  return name;
}

/**
 * A stateful decoder: feed it each read; it returns the keys complete so
 * far and keeps an unfinished sequence or paste for the next read.
 */
export class KeyDecoder {
  #text = new TextDecoder();
  #pending = "";
  #paste: string | undefined;

  /**
   * Decodes one read.
   *
   * @param bytes The bytes read from the terminal.
   * @returns The keys they complete, in order.
   */
  feed(bytes: Uint8Array): Key[] {
    const keys: Key[] = [];
    let s = this.#pending + this.#text.decode(bytes, { stream: true });
    this.#pending = "";
    let text = "";
    const flush = (): void => {
      if (text !== "") keys.push({ type: "text", text });
      text = "";
    };
    while (s.length > 0) {
      if (this.#paste !== undefined) {
        const end = s.indexOf(PASTE_END);
        if (end === -1) {
          // Keep a possible partial end marker for the next read.
          const keep = partialSuffix(s, PASTE_END);
          this.#paste += s.slice(0, s.length - keep);
          this.#pending = s.slice(s.length - keep);
          return keys;
        }
        keys.push({ type: "paste", text: this.#paste + s.slice(0, end) });
        this.#paste = undefined;
        s = s.slice(end + PASTE_END.length);
        continue;
      }
      const c = s.charCodeAt(0);
      if (c === 0x1b) {
        flush();
        const seq = this.#escape(s);
        if (seq === "incomplete") {
          this.#pending = s;
          return keys;
        }
        if (seq.key !== undefined) keys.push(seq.key);
        s = s.slice(seq.length);
        continue;
      }
      if (c < 0x20 || c === 0x7f) {
        flush();
        const name = CONTROL[c];
        if (name !== undefined) keys.push({ type: "key", name });
        s = s.slice(1);
        continue;
      }
      text += s[0];
      s = s.slice(1);
    }
    flush();
    return keys;
  }

  /** Parses the escape sequence at the start of `s`. */
  #escape(
    s: string,
  ): "incomplete" | { key?: Key; length: number } {
    if (s.startsWith(PASTE_START)) {
      this.#paste = "";
      return { length: PASTE_START.length };
    }
    // A lone ESC at the end of a read is the Esc key: terminals send a
    // whole sequence in one write.
    if (s.length === 1) {
      return { key: { type: "key", name: "escape" }, length: 1 };
    }
    const second = s[1] ?? "";
    if (second === "[" || second === "O") {
      // CSI: parameters 0x30–0x3f, intermediates 0x20–0x2f, final 0x40–0x7e.
      let i = 2;
      while (i < s.length && /[\x20-\x3f]/.test(s[i] ?? "")) i++;
      if (i >= s.length) {
        return PASTE_START.startsWith(s) || s.length < 16
          ? "incomplete"
          : { length: s.length };
      }
      const name = csiKey(s.slice(2, i), s[i] ?? "");
      return {
        ...(name === undefined ? {} : { key: { type: "key", name } }),
        length: i + 1,
      };
    }
    if (second === "\x1b") {
      return { key: { type: "key", name: "escape" }, length: 1 };
    }
    const alt = ALT[second];
    return {
      ...(alt === undefined ? {} : { key: { type: "key", name: alt } }),
      length: 2,
    };
  }
}

/** Length of the longest suffix of `s` that starts `marker`. */
function partialSuffix(s: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length); n > 0; n--) {
    if (marker.startsWith(s.slice(s.length - n))) return n;
  }
  return 0;
}
