/**
 * Markdown as a live terminal shows it while it streams: the renderer of
 * `markdown.ts`, drawn so that nothing above the cursor's row is ever
 * erased.
 *
 * @module
 */
import {
  createMarkdownCore,
  type Lead,
  type MarkdownOptions,
  type MarkdownRenderer,
  visible,
} from "./markdown.ts";

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
  const core = createMarkdownCore(options);
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
