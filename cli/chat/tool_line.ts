/**
 * The terminal's tool lines: when a call starts, the tool and what it
 * works on (`read_file notes.md`, `run_command git status`,
 * `http_request GET https://…`), and once it ends a one-line result (the
 * tool's own summary: bytes read, exit code, entries listed, bytes
 * written, or why it failed). Only what the model sent is shown, control
 * characters stripped, strings shaped like provider keys (and the
 * configured keys given) redacted, long targets cut with `…`.
 *
 * @module
 */
import { createSecretScreen } from "../../host/secrets.ts";
import { paint } from "../io/color.ts";
import { stripControl } from "../io/control.ts";

/** Longest target shown on a tool line. */
const TARGET_MAX = 100;

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function shownArg(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg)
    ? arg
    : `'${arg.replaceAll("'", "'\\''")}'`;
}

/** The fields other tools are shown by, as `key=value`. */
function keyValues(args: Record<string, unknown>): string {
  return Object.entries(args)
    .filter(([, v]) => ["string", "number", "boolean"].includes(typeof v))
    .map(([k, v]) => `${k}=${typeof v === "string" ? shownArg(v) : String(v)}`)
    .join(" ");
}

/**
 * What a call works on, as a person reads it.
 *
 * @param name The tool's name.
 * @param args The call's arguments (anything; unknown shapes shown by
 * their plain fields).
 * @returns The target (may be empty).
 */
export function toolTarget(name: string, args: unknown): string {
  const a = typeof args === "object" && args !== null && !Array.isArray(args)
    ? args as Record<string, unknown>
    : {};
  switch (name) {
    case "read_file":
    case "list_directory":
      return text(a["path"]) ?? (name === "list_directory" ? "." : "");
    case "write_file": {
      const path = text(a["path"]) ?? "";
      return a["append"] === true ? `${path} (append)` : path;
    }
    case "run_command": {
      const argv = Array.isArray(a["args"])
        ? a["args"].filter((x): x is string => typeof x === "string")
        : [];
      return [text(a["command"]) ?? "", ...argv].map(shownArg).join(" ");
    }
    case "http_request":
      return `${text(a["method"]) ?? "GET"} ${text(a["url"]) ?? ""}`;
    case "git_status":
      return "";
    case "git_commit":
      return JSON.stringify(text(a["message"]) ?? "");
    default:
      return keyValues(a);
  }
}

/**
 * Options of the tool lines.
 */
export interface ToolLineOptions {
  /** Colour the line. */
  color: boolean;
  /** Configured keys to redact (key shapes are redacted always). */
  secrets?: readonly string[];
}

function clean(value: string, secrets: readonly string[] = []): string {
  const one = stripControl(createSecretScreen(secrets).redact(value), {
    markBidi: true,
  })
    .replace(/\s+/g, " ").trim();
  return one.length <= TARGET_MAX ? one : `${one.slice(0, TARGET_MAX - 1)}…`;
}

/**
 * A call as plain words: `<tool> <target>`, cleaned and bounded.
 *
 * @param name The tool's name.
 * @param args The call's arguments.
 * @param secrets Configured keys to redact.
 * @returns The words.
 */
export function toolCallText(
  name: string,
  args: unknown,
  secrets?: readonly string[],
): string {
  const target = clean(toolTarget(name, args), secrets);
  return target === "" ? clean(name) : `${clean(name)} ${target}`;
}

/**
 * The line printed when a call starts (no newline).
 *
 * @param name The tool's name.
 * @param args The call's arguments.
 * @param options Colour and keys.
 * @returns `● <tool> <target>`.
 */
export function toolStartLine(
  name: string,
  args: unknown,
  options: ToolLineOptions,
): string {
  const target = clean(toolTarget(name, args), options.secrets);
  const tool = paint("bold", clean(name), options.color);
  return `${paint("dim", "●", options.color)} ${tool}${
    target === "" ? "" : ` ${target}`
  }`;
}

/**
 * The line printed when a call ends (no newline).
 *
 * @param success Whether the call succeeded.
 * @param summary The tool's bounded summary (or its failure).
 * @param options Colour and keys.
 * @returns `  ⎿ <summary>`, in red with `✗` on a failure.
 */
export function toolResultLine(
  success: boolean,
  summary: string,
  options: ToolLineOptions,
): string {
  const shown = clean(summary, options.secrets);
  return success
    ? paint("dim", `  ⎿ ${shown === "" ? "done" : shown}`, options.color)
    : paint("red", `  ✗ ${shown === "" ? "failed" : shown}`, options.color);
}

/** The tool-line functions, as the printer is handed them. */
export interface ToolLines {
  /** See {@linkcode toolStartLine}. */
  toolStartLine: typeof toolStartLine;
  /** See {@linkcode toolResultLine}. */
  toolResultLine: typeof toolResultLine;
  /** See {@linkcode toolCallText}. */
  toolCallText: typeof toolCallText;
}

/** The tool-line functions. */
export const TOOL_LINES: ToolLines = Object.freeze({
  toolStartLine,
  toolResultLine,
  toolCallText,
});
