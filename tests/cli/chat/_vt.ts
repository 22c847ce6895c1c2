/**
 * A small terminal emulator for screen tests: it plays what a program
 * wrote to a pseudo-terminal onto a grid of the terminal's size, with
 * autowrap (deferred at the right margin, as xterm does), scrolling into
 * a scrollback, CR/LF, cursor moves (CSI A B C D G H), erase (CSI J, K)
 * and a resize that keeps rows as they are (no reflow; a narrower
 * terminal keeps what was drawn past its new margin). Styles
 * and modes are ignored. What a person would see, scrollback included,
 * is {@linkcode Vt.lines}.
 */

/** The emulator. */
export interface Vt {
  /** Plays bytes (as text) written to the terminal. */
  write(text: string): void;
  /** Changes the size (rows are kept, cut or padded). */
  resize(columns: number, rows: number): void;
  /** Scrollback then screen, one string per row, trailing blanks trimmed. */
  lines(): string[];
}

/**
 * Creates an emulator.
 *
 * @param columns Width.
 * @param rows Height.
 * @returns The emulator.
 */
export function createVt(columns: number, rows: number): Vt {
  let cols = columns;
  let height = rows;
  const scrollback: string[][] = [];
  const blank = (): string[] => Array.from({ length: cols }, () => " ");
  let screen: string[][] = Array.from({ length: height }, blank);
  let r = 0;
  let c = 0;
  let wrapNext = false;
  const lineFeed = (): void => {
    if (r === height - 1) {
      scrollback.push(screen.shift() ?? blank());
      screen.push(blank());
    } else r++;
  };
  const put = (ch: string): void => {
    if (wrapNext) {
      c = 0;
      lineFeed();
      wrapNext = false;
    }
    const row = screen[r];
    if (row !== undefined) row[c] = ch;
    if (c === cols - 1) wrapNext = true;
    else c++;
  };
  const csi = (params: string, final: string): void => {
    if (params.startsWith("?")) return;
    const ns = params.split(";").map((p) => p === "" ? NaN : Number(p));
    const n = Number.isNaN(ns[0] ?? NaN) ? 1 : ns[0] ?? 1;
    const row = screen[r] ?? blank();
    switch (final) {
      case "A":
        r = Math.max(0, r - n);
        wrapNext = false;
        return;
      case "B":
        r = Math.min(height - 1, r + n);
        wrapNext = false;
        return;
      case "C":
        c = Math.min(cols - 1, c + n);
        wrapNext = false;
        return;
      case "D":
        c = Math.max(0, c - n);
        wrapNext = false;
        return;
      case "G":
        c = Math.min(cols - 1, n - 1);
        wrapNext = false;
        return;
      case "H":
        r = Math.min(
          height - 1,
          (Number.isNaN(ns[0] ?? NaN) ? 1 : ns[0] ?? 1) - 1,
        );
        c = Math.min(
          cols - 1,
          (Number.isNaN(ns[1] ?? NaN) ? 1 : ns[1] ?? 1) - 1,
        );
        wrapNext = false;
        return;
      case "K": {
        const mode = Number.isNaN(ns[0] ?? NaN) ? 0 : ns[0];
        const [from, to] = mode === 0
          ? [c, row.length]
          : mode === 1
          ? [0, c + 1]
          : [0, row.length];
        for (let i = from; i < to; i++) row[i] = " ";
        return;
      }
      case "J": {
        const mode = Number.isNaN(ns[0] ?? NaN) ? 0 : ns[0];
        if (mode === 2 || mode === 3) {
          screen = Array.from({ length: height }, blank);
          return;
        }
        for (let i = c; i < row.length; i++) row[i] = " ";
        for (let i = r + 1; i < height; i++) screen[i] = blank();
        return;
      }
      default:
        return;
    }
  };
  return {
    write(text) {
      let i = 0;
      while (i < text.length) {
        const ch = text[i] ?? "";
        if (ch === "\x1b") {
          // deno-lint-ignore no-control-regex
          const m = /^\x1b\[([0-9;?]*)[ -\/]*([@-~])/.exec(
            text.slice(i, i + 32),
          );
          if (m !== null) {
            csi(m[1] ?? "", m[2] ?? "");
            i += m[0].length;
            continue;
          }
          // deno-lint-ignore no-control-regex
          const osc = /^\x1b\][^\x07]*\x07/.exec(text.slice(i));
          i += osc !== null ? osc[0].length : 2;
          continue;
        }
        if (ch === "\r") {
          c = 0;
          wrapNext = false;
        } else if (ch === "\n") {
          lineFeed();
          wrapNext = false;
        } else if (ch === "\b") {
          c = Math.max(0, c - 1);
        } else if (ch >= " ") {
          const code = text.codePointAt(i) ?? 0;
          const s = String.fromCodePoint(code);
          put(s);
          i += s.length;
          continue;
        }
        i++;
      }
    },
    resize(columns, rows) {
      // A narrower terminal keeps what was drawn past its new margin.
      const fit = (row: string[]): string[] =>
        row.length >= columns ? row : [
          ...row,
          ...Array.from({ length: columns - row.length }, () => " "),
        ];
      cols = columns;
      screen = screen.map(fit);
      while (screen.length > rows) {
        scrollback.push(screen.shift() ?? []);
        r = Math.max(0, r - 1);
      }
      while (screen.length < rows) screen.push(blank());
      height = rows;
      c = Math.min(c, cols - 1);
      wrapNext = false;
    },
    lines() {
      return [...scrollback, ...screen].map((row) => row.join("").trimEnd());
    },
  };
}
