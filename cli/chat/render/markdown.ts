/**
 * A small streaming markdown renderer for the terminal: the model's
 * text is rendered by completed lines, for people. Headings lose their
 * `#` and are bold, `**strong**` bold, `*emphasis*` italic, `` `code` ``
 * and links marked, list bullets become `•` with wrapped items indented
 * under their text, quotes get a bar, rules a line, tables are aligned
 * (once the table ends) when they fit, and everything else is word
 * wrapped at the width. Code fences are kept verbatim: neither wrapped
 * nor rendered. Without colour the markers go and the words stay. The
 * input is already stripped of control sequences; the renderer adds
 * only SGR styles, and only with colour.
 *
 * @module
 */
import { visibleWidth, wrapLine } from "./wrap.ts";

/** A streaming renderer: text in, rendered whole lines out. */
export interface MarkdownRenderer {
  /**
   * Takes the next piece of text.
   *
   * @returns What can be printed now: whole rendered lines, each ending
   * in a newline (may be empty).
   */
  push(text: string): string;
  /** Whether an unfinished line (or table) is held. */
  readonly pending: boolean;
  /** Renders and returns what is held (the last line gets no newline). */
  flush(): string;
}

/** Options of {@linkcode createMarkdownRenderer}. */
export interface MarkdownOptions {
  /** The terminal width in columns (read for each line). */
  columns(): number;
  /** Use SGR styles. */
  color: boolean;
}

const sgr = (on: number, off: number) => (t: string, color: boolean) =>
  color ? `\x1b[${on}m${t}\x1b[${off}m` : t;
const bold = sgr(1, 22);
const italic = sgr(3, 23);
const dim = sgr(2, 22);
const cyan = sgr(36, 39);

/**
 * Inline markdown of one line: code spans first (their text is kept
 * as is), then links, strong and emphasis.
 *
 * @param line One line of text.
 * @param color Use SGR styles.
 * @returns The rendered line.
 */
export function renderInline(line: string, color: boolean): string {
  return line.split(/(`[^`]+`)/).map((part) => {
    if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) {
      return color ? cyan(part.slice(1, -1), true) : part;
    }
    return part
      .replace(
        /\[([^\]]+)\]\((\S+?)\)/g,
        (_m, t: string, u: string) => `${t} (${dim(u, color)})`,
      )
      .replace(
        /(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g,
        (_m, _d, t: string) => bold(t, color),
      )
      .replace(
        /(^|[\s(])([*_])(?=\S)([^*_]+?)(?<=\S)\2(?=$|[\s.,;:!?)])/g,
        (_m, pre: string, _d, t: string) => `${pre}${italic(t, color)}`,
      );
  }).join("");
}

function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  return inner.split("|").map((c) => c.trim());
}

const SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/**
 * A table's rows aligned in columns, or `undefined` when it is not a
 * table (no separator row) or does not fit the width.
 */
function renderTable(
  rows: string[],
  width: number,
  color: boolean,
): string[] | undefined {
  if (rows.length < 2 || !SEPARATOR.test(rows[1] ?? "")) return undefined;
  const body = [rows[0] ?? "", ...rows.slice(2)].map((r) =>
    cells(r).map((c) => renderInline(c, color))
  );
  const n = Math.max(...body.map((r) => r.length));
  const widths = Array.from(
    { length: n },
    (_, i) => Math.max(...body.map((r) => visibleWidth(r[i] ?? ""))),
  );
  const total = widths.reduce((a, b) => a + b, 0) + 3 * (n - 1);
  if (total > width) return undefined;
  const line = (r: string[]): string =>
    widths.map((w, i) => {
      const c = r[i] ?? "";
      return c + " ".repeat(w - visibleWidth(c));
    }).join(dim(" │ ", color)).trimEnd();
  const [head = [], ...rest] = body;
  return [
    line(head.map((h) => bold(h, color))),
    dim(widths.map((w) => "─".repeat(w)).join("─┼─"), color),
    ...rest.map(line),
  ];
}

/**
 * Creates a streaming renderer.
 *
 * @param options Width and colour.
 * @returns The renderer.
 */
export function createMarkdownRenderer(
  options: MarkdownOptions,
): MarkdownRenderer {
  const { color } = options;
  let partial = "";
  let fence: string | undefined;
  let table: string[] = [];

  const width = (): number => Math.max(20, options.columns());
  const wrapped = (first: string, indent: string, text: string): string[] =>
    wrapLine(`${first}${renderInline(text, color)}`, width(), indent);

  const endTable = (): string[] => {
    if (table.length === 0) return [];
    const rows = table;
    table = [];
    return renderTable(rows, width(), color) ??
      rows.flatMap((r) => wrapLine(r, width()));
  };

  const renderLine = (line: string): string[] => {
    if (fence !== undefined) {
      if (line.trim().startsWith(fence)) {
        fence = undefined;
        return [dim(line, color)];
      }
      return [line];
    }
    const opening = /^\s*(`{3,}|~{3,})/.exec(line);
    if (opening !== null) {
      fence = opening[1]?.[0]?.repeat(3) ?? "```";
      return [...endTable(), dim(line, color)];
    }
    if (/^\s*\|/.test(line)) {
      table.push(line);
      return [];
    }
    const before = endTable();
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading !== null) {
      const text = renderInline(heading[2] ?? "", color);
      return [...before, ...wrapLine(bold(text, color), width())];
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      return [...before, dim("─".repeat(Math.min(width(), 40)), color)];
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item !== null) {
      const lead = item[1] ?? "";
      const marker = /\d/.test(item[2] ?? "") ? item[2] ?? "" : "•";
      const first = `${lead}${marker} `;
      return [
        ...before,
        ...wrapped(first, " ".repeat(first.length), item[3] ?? ""),
      ];
    }
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote !== null) {
      const bar = dim("│ ", color);
      return [...before, ...wrapped(bar, bar, quote[1] ?? "")];
    }
    return [...before, ...wrapped("", "", line)];
  };

  return {
    push(text) {
      partial += text;
      const parts = partial.split("\n");
      partial = parts.pop() ?? "";
      const out = parts.flatMap(renderLine);
      return out.map((l) => `${l}\n`).join("");
    },
    get pending() {
      return partial !== "" || table.length > 0;
    },
    flush() {
      const rest = partial;
      partial = "";
      const lines = [...(rest === "" ? [] : renderLine(rest)), ...endTable()];
      fence = undefined;
      return lines.join("\n");
    },
  };
}
