/**
 * Markdown for people: the model's text as a terminal shows it, line by
 * line as it streams. Headings, emphasis, inline code, links, lists,
 * quotes, rules, fenced code and tables are rendered; prose is wrapped at
 * the terminal's width on word boundaries. Only for a terminal: piped
 * output stays the raw text.
 *
 * @module
 */

/** Options of {@linkcode createMarkdownRenderer}. */
export interface MarkdownOptions {
  /**
   * Columns to wrap at (the terminal's width); a function is asked again
   * for every line, so a resized terminal wraps at its new width.
   */
  width: number | (() => number);
  /** Use SGR styles (bold, dim, italic, …). */
  color: boolean;
}

/** A streaming renderer: push text as it arrives, flush at the end. */
export interface MarkdownRenderer {
  /** The rendered lines completed by `text` (each ends with `\n`). */
  push(text: string): string;
  /** Renders what is left (an unfinished line, a pending table). */
  flush(): string;
}

const SGR = {
  bold: ["\x1b[1m", "\x1b[22m"],
  dim: ["\x1b[2m", "\x1b[22m"],
  italic: ["\x1b[3m", "\x1b[23m"],
  underline: ["\x1b[4m", "\x1b[24m"],
  cyan: ["\x1b[36m", "\x1b[39m"],
} as const;

type Style = keyof typeof SGR;

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Visible width of a rendered string (styles excluded; one column per code
 * point).
 *
 * @param text The rendered text.
 * @returns Its columns.
 */
export function visible(text: string): number {
  return [...text.replace(ANSI, "")].length;
}

/** The narrowest width a renderer wraps at, whatever the terminal says. */
const MIN_WIDTH = 20;

/**
 * Creates a renderer. Rules, per complete line: a ``` or ~~~ fence opens
 * or closes a code block (its lines kept as they are, styled, never
 * wrapped; the fence shows as its language, dim); `#`… headings are bold
 * (level 1 underlined too); `-`, `*`, `+` and `1.` items get a bullet or
 * their number and a hanging indent; `>` quotes a `│ ` bar; `---`, `***`
 * and `___` are a rule across the width; consecutive `|` rows are a table,
 * aligned when it ends; anything else is a paragraph line. Inline:
 * `**bold**`, `*italic*` / `_italic_`, `` `code` ``, `[text](url)` (the
 * URL after the text, dim). Every line but code is wrapped at `width`.
 *
 * @param options The width and whether to style.
 * @returns The renderer.
 */
export function createMarkdownRenderer(
  options: MarkdownOptions,
): MarkdownRenderer {
  const core = createMarkdownCore(options);
  return { push: core.push, flush: core.flush };
}

/** How a wrapped line (paragraph, item, quote, heading) is drawn. */
export interface Lead {
  /** Before its first row. */
  first: string;
  /** Before every other row. */
  rest: string;
  /** Its text, after the marker. */
  body: string;
  /** The style of all of it. */
  style?: "bold" | "italic" | "heading";
}

/** The renderer with what the live renderer draws rows with. */
export interface MarkdownCore extends MarkdownRenderer {
  /** The width now. */
  width(): number;
  /** Whether a fenced code block is open. */
  inFence(): boolean;
  /** A pending table, rendered (and forgotten); `""` when none. */
  takeTable(): string;
  /** The lead of a line that wraps (`undefined`: a line that does not). */
  lead(raw: string): Lead | undefined;
  /** Inline markup and the lead's style applied to `text`. */
  styled(text: string, lead: Lead): string;
  /** `text` wrapped into rows behind `first` and `rest` (each ends with `\n`). */
  wrap(text: string, first: string, rest: string): string;
}

function widthOf(options: MarkdownOptions): number {
  const w = typeof options.width === "function"
    ? options.width()
    : options.width;
  return Math.max(MIN_WIDTH, Math.floor(w));
}

/**
 * The renderer with its parts for the live renderer (`live_markdown.ts`).
 *
 * @param options The width and whether to style.
 * @returns The renderer and its parts.
 */
export function createMarkdownCore(options: MarkdownOptions): MarkdownCore {
  let width = widthOf(options);
  const paint = (style: Style, text: string): string =>
    options.color && text !== ""
      ? `${SGR[style][0]}${text}${SGR[style][1]}`
      : text;
  let partial = "";
  let fence: string | undefined;
  let table: string[][] = [];

  function inline(text: string): string {
    return text
      .replace(/`([^`]+)`/g, (_, code: string) => paint("cyan", code))
      .replace(
        /\[([^\]]+)\]\(([^)\s]+)\)/g,
        (_, label: string, url: string) =>
          `${paint("underline", label)} ${paint("dim", `(${url})`)}`,
      )
      .replace(
        /\*\*([^*]+)\*\*|__([^_]+)__/g,
        (_, a?: string, b?: string) => paint("bold", a ?? b ?? ""),
      )
      .replace(
        /(^|[^\w*])\*([^*\s][^*]*?)\*(?!\*)|(^|\W)_([^_\s][^_]*?)_(?!\w)/g,
        (_, p1?: string, a?: string, p2?: string, b?: string) =>
          `${p1 ?? p2 ?? ""}${paint("italic", a ?? b ?? "")}`,
      );
  }

  /** Wraps rendered text: `first` before the first line, `rest` before the others. */
  function wrap(text: string, first: string, rest: string): string {
    const words = text.split(/ +/).filter((w) => w !== "");
    if (words.length === 0) return `${first.trimEnd()}\n`;
    const lines: string[] = [];
    let line = first;
    let used = visible(first);
    let empty = true;
    for (const word of words) {
      let w = word;
      let size = visible(w);
      if (!empty && used + 1 + size > width) {
        lines.push(line);
        line = rest;
        used = visible(rest);
        empty = true;
      }
      // A word longer than a line is broken where it must be.
      while (empty && used + size > width && !w.includes("\x1b")) {
        const room = Math.max(1, width - used);
        const chars = [...w];
        lines.push(line + chars.slice(0, room).join(""));
        w = chars.slice(room).join("");
        size = visible(w);
        line = rest;
        used = visible(rest);
      }
      line += empty ? w : ` ${w}`;
      used += (empty ? 0 : 1) + size;
      empty = false;
    }
    lines.push(line);
    return lines.map((l) => `${l}\n`).join("");
  }

  function cells(line: string): string[] {
    return line.trim().replace(/^\||\|$/g, "").split("|").map((c) =>
      inline(c.trim())
    );
  }

  function renderTable(): string {
    const rows = table.filter((r) => !r.every((c) => /^:?-{3,}:?$/.test(c)));
    table = [];
    const cols = Math.max(0, ...rows.map((r) => r.length));
    const widths = Array.from(
      { length: cols },
      (_, i) => Math.max(1, ...rows.map((r) => visible(r[i] ?? ""))),
    );
    return rows.map((r, n) => {
      const line = widths.map((w, i) => {
        const cell = r[i] ?? "";
        return cell + " ".repeat(w - visible(cell));
      }).join(paint("dim", " │ "));
      const body = n === 0 ? paint("bold", line) : line;
      const rule = n === 0 && rows.length > 1
        ? `\n${paint("dim", widths.map((w) => "─".repeat(w)).join("─┼─"))}`
        : "";
      return `${body}${rule}\n`;
    }).join("");
  }

  function lead(raw: string): Lead | undefined {
    if (/^\s*(```+|~~~+)/.test(raw) || /^\s*\|/.test(raw)) return undefined;
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(raw) || raw.trim() === "") {
      return undefined;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    if (heading !== null) {
      return {
        first: "",
        rest: "",
        body: heading[2] ?? "",
        style: heading[1] === "#" ? "heading" : "bold",
      };
    }
    const quote = /^\s*>\s?(.*)$/.exec(raw);
    if (quote !== null) {
      const bar = paint("dim", "│ ");
      return { first: bar, rest: bar, body: quote[1] ?? "", style: "italic" };
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(raw);
    if (item !== null) {
      const indent = " ".repeat(Math.min(8, (item[1] ?? "").length));
      const mark = /^\d/.test(item[2] ?? "") ? item[2] ?? "" : "•";
      const first = `${indent}${mark} `;
      return { first, rest: " ".repeat(visible(first)), body: item[3] ?? "" };
    }
    return { first: "", rest: "", body: raw.trimStart() };
  }

  function styled(text: string, l: Lead): string {
    const t = inline(text);
    switch (l.style) {
      case "bold":
        return paint("bold", t);
      case "heading":
        return paint("underline", paint("bold", t));
      case "italic":
        return paint("italic", t);
      default:
        return t;
    }
  }

  function line(raw: string): string {
    width = widthOf(options);
    const fenceMark = /^\s*(```+|~~~+)\s*([\w+-]*)\s*$/.exec(raw);
    if (fence !== undefined) {
      if (fenceMark !== null && fenceMark[1]?.startsWith(fence)) {
        fence = undefined;
        return "";
      }
      return `${paint("cyan", `  ${raw}`)}\n`;
    }
    const isRow = /^\s*\|.*\|\s*$/.test(raw);
    const before = !isRow && table.length > 0 ? renderTable() : "";
    if (isRow) {
      table.push(cells(raw));
      return "";
    }
    if (fenceMark !== null) {
      fence = fenceMark[1]?.slice(0, 3);
      const lang = fenceMark[2] ?? "";
      return before + (lang === "" ? "" : `${paint("dim", `  ${lang}`)}\n`);
    }
    if (raw.trim() === "") return `${before}\n`;
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(raw);
    if (heading !== null) {
      const text = paint("bold", inline(heading[2] ?? ""));
      return before +
        wrap(heading[1] === "#" ? paint("underline", text) : text, "", "");
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(raw)) {
      return `${before}${paint("dim", "─".repeat(width))}\n`;
    }
    const quote = /^\s*>\s?(.*)$/.exec(raw);
    if (quote !== null) {
      const bar = paint("dim", "│ ");
      return before + wrap(paint("italic", inline(quote[1] ?? "")), bar, bar);
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(raw);
    if (item !== null) {
      const indent = " ".repeat(Math.min(8, (item[1] ?? "").length));
      const mark = /^\d/.test(item[2] ?? "") ? item[2] ?? "" : "•";
      const first = `${indent}${mark} `;
      return before +
        wrap(inline(item[3] ?? ""), first, " ".repeat(visible(first)));
    }
    return before + wrap(inline(raw.trim()), "", "");
  }

  return {
    width: () => widthOf(options),
    inFence: () => fence !== undefined,
    takeTable: () => table.length > 0 ? renderTable() : "",
    lead,
    styled,
    wrap: (text, first, rest) => {
      width = widthOf(options);
      return wrap(text, first, rest);
    },
    push(text: string): string {
      partial += text;
      let out = "";
      let nl = partial.indexOf("\n");
      while (nl >= 0) {
        out += line(partial.slice(0, nl).replace(/\r$/, ""));
        partial = partial.slice(nl + 1);
        nl = partial.indexOf("\n");
      }
      return out;
    },
    flush(): string {
      let out = partial === "" ? "" : line(partial);
      partial = "";
      if (table.length > 0) out += renderTable();
      fence = undefined;
      return out;
    },
  };
}
