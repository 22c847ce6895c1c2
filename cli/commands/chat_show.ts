/**
 * `chat-show <id>` (cli.md §1): a stored session's transcript text, the
 * tool names of each turn, every compaction or trim boundary (what it
 * dropped from the model's context, and the summary that replaced it),
 * the totals and the per-model cost. Plain text (control sequences
 * stripped) or, under `--json`, one record.
 *
 * @module
 */
import type { CliCommand } from "../args.ts";
import type { SessionMessage } from "../../schema/message.ts";
import { messageText, projectStructure } from "../../store/projection.ts";
import type { LoadedSession, ModelCostTotals } from "../../store/store.ts";
import {
  boundaryLines,
  shownBoundaries,
  type ShownBoundary,
} from "./chat_show_boundaries.ts";

export type { ShownBoundary } from "./chat_show_boundaries.ts";
import { toListRecord } from "./chat_list.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { stripControl } from "../io/control.ts";
import {
  modelCostLines,
  shownCosts,
  type ShownModelCost,
  totalPriceText,
} from "./cost_report.ts";
import { fault } from "../fault.ts";
import { openExistingHistory } from "../run/history.ts";

/**
 * One turn of the `--json` transcript.
 *
 * @example Value
 * ```ts
 * import type { ShownTurn } from "./chat_show.ts";
 * const t: ShownTurn = { user: "hi", assistant: "hello", tools: [], model: null, compacted: false };
 * ```
 */
export interface ShownTurn {
  /** Bare user messages (no reply) stored just before this turn. */
  unansweredBefore?: string[];
  user: string;
  assistant: string;
  /** Tool names called in the turn, in call order. */
  tools: string[];
  /** The model that served the turn, when stored. */
  model: string | null;
  /** Whether the turn lies at or below the compaction boundary. */
  compacted: boolean;
}

/**
 * The `chat-show --json` record.
 *
 * @example Shape
 * ```ts
 * import type { ShownSession } from "./chat_show.ts";
 * type Turns = ShownSession["turns"];
 * ```
 */
export interface ShownSession {
  sessionId: string;
  agentSlug: string;
  title: string | null;
  status: string;
  modelId: string | null;
  createdAt: string;
  updatedAt: string;
  totalCostMicrocents: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  workingDir: string;
  turns: ShownTurn[];
  /** Bare user messages after the last completed turn. */
  unansweredAfter: string[];
  /** Every boundary, oldest first. */
  boundaries: ShownBoundary[];
  /** Spend per model (every recorded attempt), first-recorded first. */
  costs: ShownModelCost[];
}

function toolNames(rows: readonly SessionMessage[]): string[] {
  const names: string[] = [];
  for (const row of rows) {
    for (const part of row.content) {
      if (part.type === "tool_call") names.push(part.name);
    }
  }
  return names;
}

/**
 * Builds the `--json` record of a loaded session.
 *
 * @param loaded The session and its rows.
 * @param costs Its per-model spend rows (`SessionStore.costs`), if read.
 * @returns The record.
 *
 * @example One turn
 * ```ts
 * import { showSession } from "./chat_show.ts";
 * import assert from "node:assert/strict";
 * const at = "2026-01-01T00:00:00.000Z";
 * const row = (n: number, role: "user" | "assistant", text: string) => ({
 *   id: `m${n}`, sessionId: "s", sequenceNumber: n, role, timestamp: at, content: [{ type: "text" as const, text }],
 * });
 * const shown = showSession({
 *   record: { id: "s", agentSlug: "mini", context: { workingDir: "/w", fsScopeTier: "sandboxed" }, status: "active",
 *     totalInputTokens: 3, totalOutputTokens: 1, totalCostMicrocents: 0, totalConservativeMicrocents: 0, createdAt: at, updatedAt: at },
 *   messages: [row(0, "user", "hi"), row(1, "assistant", "hello")],
 * });
 * assert.deepEqual(shown.turns, [{ user: "hi", assistant: "hello", tools: [], model: null, compacted: false }]);
 * assert.deepEqual([shown.boundaries, shown.costs], [[], []]);
 * ```
 */
export function showSession(
  loaded: LoadedSession,
  costs?: readonly ModelCostTotals[],
): ShownSession {
  const { record, messages } = loaded;
  const p = projectStructure(messages, { honourBoundary: false });
  const boundaries = shownBoundaries(messages, p.turns);
  const turns = p.turns.map((t): ShownTurn => {
    const turn: ShownTurn = {
      user: messageText(t.user),
      assistant: messageText(t.terminal),
      tools: toolNames(t.rows),
      model: t.terminal.modelId ?? null,
      compacted: t.terminal.sequenceNumber <= p.boundary,
    };
    if (t.legacyPrefix.length > 0) {
      return { unansweredBefore: t.legacyPrefix.map(messageText), ...turn };
    }
    return turn;
  });
  const base = toListRecord(record);
  return {
    ...base,
    totalInputTokens: record.totalInputTokens,
    totalOutputTokens: record.totalOutputTokens,
    workingDir: record.context.workingDir,
    turns,
    unansweredAfter: p.trailingLegacy.map(messageText),
    boundaries,
    costs: shownCosts(costs),
  };
}

/**
 * Renders the human transcript (control sequences stripped).
 *
 * @param s The record from {@linkcode showSession}.
 * @returns The text, ending with a newline.
 *
 * @example Header
 * ```ts
 * import { renderSession } from "./chat_show.ts";
 * import assert from "node:assert/strict";
 * const at = "2026-01-01T00:00:00.000Z";
 * const text = renderSession({
 *   sessionId: "s", agentSlug: "mini", title: "hi", status: "active", modelId: "m", createdAt: at, updatedAt: at,
 *   totalCostMicrocents: 0, totalInputTokens: 3, totalOutputTokens: 1, workingDir: "/w",
 *   turns: [{ user: "hi", assistant: "hel\x1b[2Jlo", tools: ["read_file"], model: "m", compacted: true }], unansweredAfter: [],
 *   boundaries: [{ reason: "compaction", sequenceNumber: 4, droppedFromSequence: 0, droppedThroughSequence: 1, droppedTurns: { first: 1, last: 1 }, summary: "We said hi.", timestamp: at }],
 *   costs: [{ model: "m", inputTokens: 3, outputTokens: 1, costMicrocents: 0, calls: 1, unpricedCalls: 1 }],
 * });
 * assert.match(text, /^Session s\n/);
 * assert.match(text, /\nassistant: hello\n/);
 * assert.match(text, /tools: read_file/);
 * assert.match(text, /=== compaction boundary \(.*\): turn 1, stored messages #0–#1, are no longer sent to the model; the model sees this summary instead:\n  We said hi\.\n===\n/);
 * assert.match(text, /Totals: 1 turns, 3 input tokens, 1 output tokens, price unknown\nCost by model:\n  m  price unknown/);
 * ```
 */
export function renderSession(s: ShownSession): string {
  const clean = stripControl;
  const lines: string[] = [
    `Session ${clean(s.sessionId)}`,
    `  agent:   ${clean(s.agentSlug)}`,
    `  model:   ${clean(s.modelId ?? "(unknown)")}`,
    `  status:  ${s.status}`,
    `  title:   ${JSON.stringify(s.title ?? "")}`,
    `  cwd:     ${clean(s.workingDir)}`,
    `  created: ${s.createdAt}`,
    `  updated: ${s.updatedAt}`,
  ];
  // Each boundary sits after the last turn it dropped (or where the one
  // before it sits, when it dropped no whole turn).
  const below = new Map<number, ShownBoundary[]>();
  let at = 0;
  for (const b of s.boundaries) {
    at = b.droppedTurns?.last ?? at;
    below.set(at, [...(below.get(at) ?? []), b]);
  }
  const boundaries = (after: number): void => {
    for (const b of below.get(after) ?? []) lines.push("", ...boundaryLines(b));
  };
  boundaries(0);
  s.turns.forEach((t, i) => {
    lines.push(
      "",
      `--- turn ${i + 1}${t.model === null ? "" : ` (${clean(t.model)})`} ---`,
    );
    for (const u of t.unansweredBefore ?? []) {
      lines.push(`user (no reply): ${clean(u)}`);
    }
    lines.push(`user: ${clean(t.user)}`);
    if (t.tools.length > 0) lines.push(`tools: ${t.tools.join(", ")}`);
    lines.push(`assistant: ${clean(t.assistant)}`);
    boundaries(i + 1);
  });
  for (const u of s.unansweredAfter) {
    lines.push("", `user (no reply): ${clean(u)}`);
  }
  const { costs } = s;
  lines.push(
    "",
    `Totals: ${s.turns.length} turns, ${s.totalInputTokens} input tokens, ${s.totalOutputTokens} output tokens, ${
      totalPriceText(s, costs)
    }`,
  );
  if (costs.length > 0) lines.push("Cost by model:", ...modelCostLines(costs));
  return `${lines.join("\n")}\n`;
}

/**
 * Runs `chat-show <id>`.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0, or a fault (`not_found` for an unknown id).
 *
 * @example Unknown id
 * ```ts
 * import { runChatShow } from "./chat_show.ts";
 * import { createBufferedIo } from "../io/io.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const b = createBufferedIo({ env: { RELAVIUM_HOME: dir } });
 * const r = await runChatShow({ name: "chat-show", sessionId: "nope" }, { io: b.io, globals: { json: false, verbose: false, quiet: false }, color: false, cwd: dir });
 * assert.equal(typeof r === "object" ? r.code : r, "not_found");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runChatShow(
  command: Extract<CliCommand, { name: "chat-show" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const opened = await openExistingHistory(ctx);
  if (!opened.ok) return opened.error;
  const store = opened.value;
  let loaded: LoadedSession | undefined;
  let costs: ModelCostTotals[] | undefined;
  try {
    loaded = store?.load(command.sessionId);
    if (loaded !== undefined) costs = store?.costs?.(command.sessionId);
  } finally {
    store?.close();
  }
  if (loaded === undefined) {
    return fault("not_found", `No session with id ${command.sessionId}`);
  }
  const shown = showSession(loaded, costs);
  ctx.io.stdout.write(
    ctx.globals.json ? `${JSON.stringify(shown)}\n` : renderSession(shown),
  );
  return 0;
}
