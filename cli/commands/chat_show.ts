/**
 * `chat-show <id>`: a stored session's transcript text, the
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
import { sessionFields } from "./chat_list.ts";
import { loadCliConfig } from "../config/config.ts";
import { DEFAULT_MAX_TURNS } from "../../session/session_types.ts";
import {
  type CommandEnv,
  type CommandResult,
  configRequestOf,
} from "../command_env.ts";
import { stripControl } from "../io/control.ts";
import {
  modelCostLines,
  shownCosts,
  type ShownCoverage,
  shownCoverage,
  type ShownModelCost,
  type ShownUnaccountedCall,
  totalPriceText,
  unaccountedLines,
} from "./cost_report.ts";
import { fault } from "../fault.ts";
import { damagedSessionFault, openExistingHistory } from "../run/history.ts";
import { resolveSessionId } from "./session_ref.ts";

/**
 * One turn of the `--json` transcript.
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
 * One provider-engaged turn's figures (what the page charts): the
 * recorded attempts' tokens and spend.
 */
export interface ShownTurnUsage {
  /** The turn's number among the session's provider-engaged turns. */
  turnNumber: number;
  inputTokens: number;
  outputTokens: number;
  costMicrocents: number;
}

/**
 * The `chat-show --json` record.
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
  /**
   * Provider-engaged turns over the session's life (what the hard cap
   * counts; compaction, trim and resume never lower it).
   */
  turnsUsed: number;
  /** The hard cap (`[chat] max_turns`), when the config could be read. */
  maxTurns?: number;
  turns: ShownTurn[];
  /** Bare user messages after the last completed turn. */
  unansweredAfter: string[];
  /** Every boundary, oldest first. */
  boundaries: ShownBoundary[];
  /** Spend per model (every recorded attempt), first-recorded first. */
  costs: ShownModelCost[];
  /**
   * Calls whose usage is unknown (the process ended while they were
   * open): `totalCostMicrocents` is then a lower bound.
   */
  unaccounted: ShownUnaccountedCall[];
  /**
   * Tokens and spend per provider-engaged turn, in turn order (empty when
   * the store keeps none, or for turns written before it kept them).
   */
  turnUsage: ShownTurnUsage[];
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
 * @param coverage Its usage coverage, if read.
 * @param maxTurns The configured hard cap, if known.
 * @param turnUsage Its per-turn figures (`SessionStore.turnUsage`), if read.
 * @returns The record.
 */
export function showSession(
  loaded: LoadedSession,
  costs?: readonly ModelCostTotals[],
  coverage?: ShownCoverage,
  maxTurns?: number,
  turnUsage?: readonly ShownTurnUsage[],
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
  const unrecorded = coverage?.unrecordedMicrocents ?? 0;
  const base = sessionFields({
    ...record,
    totalCostMicrocents: record.totalCostMicrocents + unrecorded,
    unaccountedCalls: coverage?.unaccounted.length ?? 0,
  });
  return {
    ...base,
    totalInputTokens: record.totalInputTokens,
    totalOutputTokens: record.totalOutputTokens,
    workingDir: record.context.workingDir,
    // Sessions written before the count was kept: their completed turns.
    turnsUsed: Math.max(record.turnsUsed ?? 0, turns.length),
    ...(maxTurns === undefined ? {} : { maxTurns }),
    turns,
    unansweredAfter: p.trailingLegacy.map(messageText),
    boundaries,
    costs: shownCosts(costs),
    unaccounted: coverage?.unaccounted ?? [],
    turnUsage: (turnUsage ?? []).map((t) => ({
      turnNumber: t.turnNumber,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      costMicrocents: t.costMicrocents,
    })),
  };
}

/**
 * Renders the human transcript (control sequences stripped).
 *
 * @param s The record from {@linkcode showSession}.
 * @returns The text, ending with a newline.
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
  // The shown total already holds the spend no turn recorded.
  const pending: ShownCoverage = {
    unaccounted: s.unaccounted,
    unrecordedMicrocents: 0,
  };
  lines.push(
    "",
    `Totals: ${s.turns.length} turns, ${s.totalInputTokens} input tokens, ${s.totalOutputTokens} output tokens, ${
      totalPriceText(s, costs, pending)
    }`,
  );
  lines.push(
    s.maxTurns === undefined
      ? `Turns used: ${s.turnsUsed} (every provider-engaged turn counts toward the hard cap)`
      : `Turns used: ${s.turnsUsed} of ${s.maxTurns} (the hard cap, [chat] max_turns; compaction and resume never lower it)`,
  );
  if (costs.length > 0) lines.push("Cost by model:", ...modelCostLines(costs));
  lines.push(
    ...unaccountedLines({
      unaccounted: s.unaccounted,
      unrecordedMicrocents: 0,
    }),
  );
  return `${lines.join("\n")}\n`;
}

/**
 * Runs `chat-show <id>`.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0, or a fault (`not_found` for an unknown id; `internal`
 * naming the row and column of a damaged session).
 */
export async function runChatShow(
  command: Extract<CliCommand, { name: "chat-show" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const ref = await resolveSessionId(ctx, command.sessionId);
  if (!ref.ok) return ref.error;
  const sessionId = ref.value;
  const opened = await openExistingHistory(ctx, { readOnly: true });
  if (!opened.ok) return opened.error;
  const store = opened.value;
  let loaded: LoadedSession | undefined;
  let costs: ModelCostTotals[] | undefined;
  let coverage: ShownCoverage | undefined;
  let turnUsage: ShownTurnUsage[] | undefined;
  try {
    loaded = await store?.load(sessionId);
    if (loaded !== undefined) {
      costs = await store?.costs?.(sessionId);
      turnUsage = await store?.turnUsage?.(sessionId);
      // Read first: the store may answer asynchronously (Postgres).
      const read = await store?.coverage?.(sessionId);
      coverage = shownCoverage(
        { coverage: () => read ?? { pending: [], unrecordedMicrocents: 0 } },
        sessionId,
      );
    }
  } catch (e) {
    const damaged = damagedSessionFault(sessionId, e);
    if (damaged === undefined) throw e;
    return damaged;
  } finally {
    await store?.close();
  }
  if (loaded === undefined) {
    return fault("not_found", `No session with id ${sessionId}`);
  }
  // The cap is shown when the config reads; a broken config does not stop
  // a read command.
  const config = await loadCliConfig(configRequestOf(ctx));
  const configured = config.ok
    ? config.value.resolved.chat.maxTurns.value
    : undefined;
  // As the engine: absent or ≤ 0 means the default cap.
  const cap = configured === undefined
    ? undefined
    : configured > 0
    ? configured
    : DEFAULT_MAX_TURNS;
  const shown = showSession(loaded, costs, coverage, cap, turnUsage);
  ctx.io.stdout.write(
    ctx.globals.json ? `${JSON.stringify(shown)}\n` : renderSession(shown),
  );
  return 0;
}
