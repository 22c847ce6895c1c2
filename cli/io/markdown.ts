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

/** Visible width of a rendered string (styles excluded; one column per code point). */
function visible(text: string): number {
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
  const core = createCore(options);
  return { push: core.push, flush: core.flush };
}

/** How a wrapped line (paragraph, item, quote, heading) is drawn. */
interface Lead {
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
interface Core extends MarkdownRenderer {
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

function createCore(options: MarkdownOptions): Core {
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

/**
 * The renderer for a live terminal. Nothing it has drawn ever needs
 * erasing above the cursor's row, so a line taller than the screen is
 * never drawn twice and a resize never garbles what scrolled by:
 *
 * - a line that fits on the current row streams as it arrives (plain),
 *   and once complete is redrawn rendered (only that row is erased);
 * - a longer prose line (paragraph, list item, quote, heading) is wrapped
 *   as it streams: each full row is drawn rendered and kept, only the
 *   row being written is redrawn (an inline span a row break would split
 *   moves to the next row whole, when it can);
 * - a longer code line is written as it arrives, styled, never redrawn;
 *   a longer table row waits for its table;
 * - after a resize (the width changed), the rest wraps at the new width;
 *   a row being written that no longer fits is kept as it is.
 *
 * @param options The width (a function: read again as it streams) and
 * whether to style.
 * @returns The renderer.
 */
export function createLiveMarkdown(options: MarkdownOptions): MarkdownRenderer {
  const core = createCore(options);
  /** The whole text of the line being written. */
  let line = "";
  /** What of it is shown on the current row (erased before a redraw). */
  let shown = "";
  let mode: "row" | "prose" | "code" | "hold" = "row";
  let lead: Lead = { first: "", rest: "", body: "" };
  /** The prose not yet drawn in a kept row, and its row's prefix. */
  let tail = "";
  let prefix = "";
  let drawnWidth = core.width();

  const erase = (): string => {
    if (shown === "") return "";
    shown = "";
    return "\r\x1b[2K";
  };

  /** Splits off one row's worth of `tail`, or `undefined` if it fits. */
  function takeRow(width: number): string | undefined {
    const room = width - 1 - visible(prefix);
    if ([...tail].length <= room) return undefined;
    const words = tail.split(" ");
    let used = 0;
    let n = 0;
    while (n < words.length - 1) {
      const w = [...(words[n] ?? "")].length;
      if (used + (n > 0 ? 1 : 0) + w > room) break;
      used += (n > 0 ? 1 : 0) + w;
      n++;
    }
    if (n === 0) {
      // One word wider than the row: broken where it must be.
      const chars = [...tail];
      const row = chars.slice(0, Math.max(1, room)).join("");
      tail = chars.slice(Math.max(1, room)).join("");
      return row;
    }
    // A span opened in the row and closed after it moves down whole.
    let cut = n;
    while (cut > 1 && !balanced(words.slice(0, cut).join(" "))) cut--;
    if (balanced(words.slice(0, cut).join(" "))) n = cut;
    const row = words.slice(0, n).join(" ");
    tail = words.slice(n).join(" ").replace(/^ +/, "");
    return row;
  }

  /** Draws the kept rows `tail` fills, then the row being written. */
  function drawProse(): string {
    let out = erase();
    const width = core.width();
    for (let row = takeRow(width); row !== undefined; row = takeRow(width)) {
      out += `${prefix}${core.styled(row, lead)}\n`;
      prefix = lead.rest;
    }
    if (tail !== "") {
      shown = `${prefix}${tail}`;
      out += shown;
    }
    return out;
  }

  /** The line no longer fits on its row: how it goes on. */
  function overflow(): string {
    if (core.inFence()) {
      mode = "code";
      return `${erase()}${paintCode(`  ${line}`)}`;
    }
    const l = core.lead(line);
    if (l === undefined) {
      mode = "hold";
      return erase();
    }
    mode = "prose";
    lead = l;
    prefix = l.first;
    tail = l.body;
    return erase() + core.takeTable() + drawProse();
  }

  const paintCode = (text: string): string =>
    options.color && text !== "" ? `\x1b[36m${text}\x1b[39m` : text;

  /**
   * After a resize: a row being written that still fits is redrawn at the
   * new width as usual; one now wider than the terminal (which may have
   * wrapped it) stays as it is, and the line goes on below it.
   */
  function resized(): string {
    const width = core.width();
    if (width === drawnWidth) return "";
    drawnWidth = width;
    if (shown === "" || visible(shown) <= width - 1) return "";
    shown = "";
    if (mode === "row") {
      const l = core.lead(line);
      if (l === undefined || core.inFence()) {
        mode = core.inFence() ? "code" : "hold";
        return "\n";
      }
      mode = "prose";
      lead = l;
    }
    prefix = lead.rest;
    tail = "";
    return "\n";
  }

  /**
   * More of the line; `ends` when the line's newline follows at once (a
   * row-sized line is then drawn rendered, not first as it came).
   */
  function partial(text: string, ends: boolean): string {
    const out = resized();
    line += text;
    switch (mode) {
      case "row":
        if (ends) return out;
        if ([...line].length <= core.width() - 1) {
          shown += text;
          return out + text;
        }
        return out + overflow();
      case "prose":
        tail += text;
        return ends ? out : out + drawProse();
      case "code":
        return out + paintCode(text);
      case "hold":
        return out;
    }
  }

  function end(last: boolean): string {
    let out = resized();
    switch (mode) {
      case "row": {
        const rendered = core.push(last ? line : `${line}\n`) +
          (last ? core.flush() : "");
        // A line that renders as it was streamed is only ended.
        out += rendered === `${line}\n` && line.startsWith(shown)
          ? `${line.slice(shown.length)}\n`
          : erase() + rendered;
        break;
      }
      case "prose":
        out += erase();
        if (tail.trim() !== "") {
          out += core.wrap(core.styled(tail, lead), prefix, lead.rest);
        } else if (prefix === lead.first) out += "\n";
        if (last) out += core.flush();
        break;
      case "code":
        core.push(`${line}\n`);
        out += "\n" + (last ? core.flush() : "");
        break;
      case "hold":
        out += core.push(last ? line : `${line}\n`) +
          (last ? core.flush() : "");
        break;
    }
    line = "";
    shown = "";
    tail = "";
    mode = "row";
    return out;
  }

  return {
    push(text: string): string {
      let out = "";
      let rest = text;
      let nl = rest.indexOf("\n");
      while (nl >= 0) {
        if (nl > 0) out += partial(rest.slice(0, nl), true);
        out += end(false);
        rest = rest.slice(nl + 1);
        nl = rest.indexOf("\n");
      }
      if (rest !== "") out += partial(rest, false);
      return out;
    },
    flush(): string {
      if (line === "" && mode === "row") return core.flush();
      return end(true);
    },
  };
}

/** Whether no inline span (`**`, `__`, `` ` ``, `*`, `_`) is left open. */
function balanced(text: string): boolean {
  const count = (re: RegExp): number => (text.match(re) ?? []).length;
  const ticks = count(/`/g);
  if (ticks % 2 !== 0) return false;
  const plain = text.replace(/`[^`]*`/g, "");
  const strong = (plain.match(/\*\*|__/g) ?? []).length;
  if (strong % 2 !== 0) return false;
  const single = plain.replace(/\*\*|__/g, "");
  const stars = (single.match(/(^|[^\w*])\*(?=\S)|(?<=\S)\*(?!\w)/g) ?? [])
    .length;
  return stars % 2 === 0;
}
