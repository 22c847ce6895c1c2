/**
 * The live status line of the terminal chat: a spinner, what the turn
 * waits for (the model, a named tool and its target, a retry and when it
 * fires, a compaction) and how long it has waited, redrawn in place on
 * the terminal (stderr) and erased before anything else is printed. It
 * is drawn at once when a wait starts and then every
 * {@linkcode STATUS_TICK_MS}; it is never longer than the terminal is
 * wide (so erasing it erases all of it). Only ever built for a terminal:
 * the chat gives it no writer when stderr, stdout or stdin is not one, or
 * under `--json`.
 *
 * @module
 */
import { paint } from "../io/color.ts";
import type { Ticker } from "../io/io.ts";

/** Milliseconds between two redraws. */
export const STATUS_TICK_MS = 100;

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** What the turn waits for. */
export type StatusWait =
  | { kind: "model"; model: string }
  | { kind: "thinking"; model: string }
  | { kind: "tool"; tool: string }
  | { kind: "retry"; model: string; atMs: number; why?: string }
  | { kind: "compacting" };

/**
 * The effects of the status line: the terminal, the clock and a ticker.
 */
export interface StatusOptions {
  /** Writes to the terminal (stderr). */
  write(text: string): void;
  /** The clock, in epoch milliseconds. */
  now(): number;
  /** Repeats the redraw (a real one: `setInterval`). */
  every: Ticker;
  /** The terminal's width in columns (default 80). */
  columns?(): number;
  /** Colour the line. */
  color: boolean;
}

/**
 * A live status line.
 */
export interface StatusLine {
  /**
   * Shows (or replaces) what the turn waits for; its clock restarts,
   * unless the same wait is shown again (each reasoning delta repeats
   * `thinking`: the clock counts from the first).
   */
  show(wait: StatusWait): void;
  /** Erases the line (if drawn) and stops redrawing. */
  clear(): void;
  /** What is shown now, if anything. */
  readonly wait: StatusWait | undefined;
}

function seconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  return `${Math.floor(s / 60)}m ${
    String(Math.floor(s % 60)).padStart(2, "0")
  }s`;
}

/**
 * The words of a wait.
 *
 * @param wait What the turn waits for.
 * @param now The clock now.
 * @returns The label, without spinner or elapsed time.
 */
export function statusLabel(wait: StatusWait, now: number): string {
  switch (wait.kind) {
    case "model":
      return `Waiting for ${wait.model}`;
    case "thinking":
      return `${wait.model} is thinking`;
    case "tool":
      return `Running ${wait.tool}`;
    case "retry":
      return `Retrying ${wait.model} in ${seconds(wait.atMs - now)}${
        wait.why === undefined ? "" : ` (${wait.why})`
      }`;
    case "compacting":
      return "Compacting the conversation";
    default: {
      const never: never = wait;
      return never;
    }
  }
}

/**
 * Creates a status line.
 *
 * @param options The terminal, clock, ticker, width and colour.
 * @returns The line, not yet drawn.
 */
export function createStatusLine(options: StatusOptions): StatusLine {
  let wait: StatusWait | undefined;
  let since = 0;
  let frame = 0;
  let drawn = false;
  let stop: (() => void) | undefined;
  const draw = (): void => {
    if (wait === undefined) return;
    const now = options.now();
    const width = Math.max(10, (options.columns?.() ?? 80) - 1);
    const spin = FRAMES[frame++ % FRAMES.length] ?? "";
    const tail = ` · ${seconds(now - since)} · Ctrl-C to stop`;
    let label = statusLabel(wait, now);
    const room = width - 2 - tail.length;
    if ([...label].length > room) {
      label = `${[...label].slice(0, Math.max(0, room - 1)).join("")}…`;
    }
    options.write(
      `\r\x1b[2K${paint("dim", `${spin} ${label}${tail}`, options.color)}`,
    );
    drawn = true;
  };
  return {
    show(next) {
      if (wait !== undefined && JSON.stringify(wait) === JSON.stringify(next)) {
        return;
      }
      wait = next;
      since = options.now();
      draw();
      stop ??= options.every(STATUS_TICK_MS, draw);
    },
    clear() {
      wait = undefined;
      stop?.();
      stop = undefined;
      if (drawn) options.write("\r\x1b[2K");
      drawn = false;
    },
    get wait() {
      return wait;
    },
  };
}

/**
 * The real ticker: `setInterval`, never keeping the process alive.
 *
 * @param ms Milliseconds between ticks.
 * @param tick The redraw.
 * @returns Stops it.
 */
export function intervalTicker(ms: number, tick: () => void): () => void {
  const id = setInterval(tick, ms);
  Deno.unrefTimer(id);
  return () => clearInterval(id);
}
