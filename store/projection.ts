/**
 * The structural projection of stored rows: completed turns,
 * legacy bare users, the compaction boundary and the sequences derived from
 * them. Pure: shared by resume, boundary mapping and export.
 *
 * @module
 */
import type { SessionMessage } from "../schema/message.ts";
import type {
  ResumeState,
  TurnSpan,
  WorkingMessage,
} from "../schema/resume.ts";
import { plainObject } from "./plain_object.ts";
import type { AgentSessionRecord } from "./store.ts";

/**
 * One completed turn: its user row, its terminal assistant row, every row
 * of the turn, and the legacy bare users that precede it.
 */
export interface ProjectedTurn {
  /** The `user` row that opened the turn. */
  user: SessionMessage;
  /** The terminal `assistant` row (a text part, no `tool_call` part). */
  terminal: SessionMessage;
  /**
   * Every row of the turn in sequence order, from `user` to `terminal`
   * inclusive (tool-round `assistant` and `tool` rows in between).
   */
  rows: SessionMessage[];
  /** Legacy bare `user` rows kept as context before this turn. */
  legacyPrefix: SessionMessage[];
}

/**
 * Options of {@linkcode projectStructure}.
 */
export interface ProjectionOptions {
  /**
   * Drop turns and legacy users at or below the compaction boundary `B`
   * (resume, boundary mapping). Export passes `false`.
   */
  honourBoundary: boolean;
}

/**
 * The result of {@linkcode projectStructure}.
 */
export interface StructuralProjection {
  /** Completed turns surviving the boundary, in order. */
  turns: ProjectedTurn[];
  /** Legacy bare users after the last completed turn. */
  trailingLegacy: SessionMessage[];
  /**
   * The boundary `B` = max `droppedThroughSequence` over markers, `-1`
   * when there is none (always computed, honoured only when asked).
   */
  boundary: number;
  /** Per turn: legacy prefix, user, terminal when its text is non-empty; then trailing legacy. */
  resumableMessages: SessionMessage[];
  /** Sequence numbers of {@linkcode StructuralProjection.resumableMessages}. */
  resumableMessageSequences: number[];
  /** Per turn: legacy prefix sequences then the terminal's; then trailing legacy sequences. */
  boundarySlots: number[];
}

/**
 * The text of a row: its text parts joined with `\n\n` (`""` when none).
 *
 * @param message A stored row.
 * @returns The joined text.
 */
export function messageText(message: SessionMessage): string {
  let out: string | undefined;
  const parts = message.content;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as SessionMessage["content"][number];
    if (part.type !== "text") continue;
    out = out === undefined ? part.text : `${out}\n\n${part.text}`;
  }
  return out ?? "";
}

/**
 * Whether a row closes a turn: an `assistant` row with a text part and no
 * `tool_call` part.
 *
 * @param message A stored row.
 * @returns `true` for a terminal assistant row.
 */
export function isTerminalRow(message: SessionMessage): boolean {
  if (message.role !== "assistant") return false;
  let text = false;
  const parts = message.content;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as SessionMessage["content"][number];
    if (part.type === "tool_call") return false;
    if (part.type === "text") text = true;
  }
  return text;
}

/**
 * The compaction boundary: max `droppedThroughSequence` over marker rows.
 *
 * @param messages Stored rows in any order.
 * @returns `B`, or `-1` when no marker exists.
 */
export function compactionBoundary(
  messages: ReadonlyArray<SessionMessage>,
): number {
  let b = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as SessionMessage;
    if (m.role !== "system" || m.compaction === undefined) continue;
    if (m.compaction.droppedThroughSequence > b) {
      b = m.compaction.droppedThroughSequence;
    }
  }
  return b;
}

/** Rows in sequence order: the input itself when already ordered. */
function inSequence(
  messages: ReadonlyArray<SessionMessage>,
): ReadonlyArray<SessionMessage> {
  for (let i = 1; i < messages.length; i++) {
    const a = messages[i - 1] as SessionMessage;
    const b = messages[i] as SessionMessage;
    if (!(a.sequenceNumber - b.sequenceNumber <= 0)) {
      return [...messages].sort((x, y) => x.sequenceNumber - y.sequenceNumber);
    }
  }
  return messages;
}

/** Called once per completed turn surviving the cut, in order. */
type OnTurn = (
  user: SessionMessage,
  terminal: SessionMessage,
  rows: SessionMessage[] | undefined,
  legacyPrefix: ReadonlyArray<SessionMessage>,
) => void;

const NO_ROWS: ReadonlyArray<SessionMessage> = Object.freeze([]);

/** The legacy users above the cut (the shared empty list when none). */
function aboveCut(
  legacy: ReadonlyArray<SessionMessage>,
  cut: number,
): ReadonlyArray<SessionMessage> {
  if (legacy.length === 0) return NO_ROWS;
  return legacy.filter((m) => m.sequenceNumber > cut);
}

/**
 * The turn walk of {@linkcode projectStructure} over rows in sequence
 * order: reports each completed turn above `cut` (with its rows when
 * `withRows`) and returns the trailing legacy users above `cut`.
 */
function walkTurns(
  sorted: ReadonlyArray<SessionMessage>,
  cut: number,
  withRows: boolean,
  onTurn: OnTurn,
): ReadonlyArray<SessionMessage> {
  const legacy: SessionMessage[] = [];
  // The open candidate: its user row, whether it holds structural rows,
  // and (when asked) its rows, starting with the user row.
  let user: SessionMessage | undefined;
  let structural = false;
  let rows: SessionMessage[] | undefined;

  for (let i = 0; i < sorted.length; i++) {
    const row = sorted[i] as SessionMessage;
    if (row.role === "system") continue;
    if (row.role === "user") {
      if (user !== undefined && !structural && messageText(user) !== "") {
        legacy.push(user);
      }
      user = row;
      structural = false;
      rows = withRows ? [row] : undefined;
      continue;
    }
    if (user === undefined) continue;
    if (!isTerminalRow(row)) {
      structural = true;
      rows?.push(row);
      continue;
    }
    if (user.sequenceNumber > cut) {
      rows?.push(row);
      onTurn(user, row, rows, aboveCut(legacy, cut));
    }
    legacy.length = 0;
    user = undefined;
  }
  return aboveCut(legacy, cut);
}

/** The turns part of {@linkcode projectStructure} (resume needs no more). */
function projectTurns(
  messages: ReadonlyArray<SessionMessage>,
  options: ProjectionOptions,
): Pick<StructuralProjection, "turns" | "trailingLegacy" | "boundary"> {
  const sorted = inSequence(messages);
  const boundary = compactionBoundary(sorted);
  const turns: ProjectedTurn[] = [];
  const trailing = walkTurns(
    sorted,
    options.honourBoundary ? boundary : -1,
    true,
    (user, terminal, rows, legacyPrefix) => {
      turns.push({
        user,
        terminal,
        rows: rows ?? [user, terminal],
        legacyPrefix: [...legacyPrefix],
      });
    },
  );
  return { turns, trailingLegacy: [...trailing], boundary };
}

/**
 * Projects stored rows into completed turns and legacy users.
 *
 * Rows are sorted by sequence; `system` rows are skipped. A `user` row
 * opens a candidate turn; a previous candidate holding only its user row
 * with non-empty text becomes legacy, one with structural rows is
 * abandoned. A terminal assistant row closes the candidate. A final
 * unanswered user is dropped.
 *
 * @param messages Stored rows of one session, in any order.
 * @param options Whether to honour the compaction boundary.
 * @returns Turns, trailing legacy, the boundary and derived sequences.
 */
export function projectStructure(
  messages: ReadonlyArray<SessionMessage>,
  options: ProjectionOptions,
): StructuralProjection {
  const { turns, trailingLegacy, boundary } = projectTurns(messages, options);
  const resumableMessages: SessionMessage[] = [];
  const boundarySlots: number[] = [];
  for (const turn of turns) {
    resumableMessages.push(...turn.legacyPrefix, turn.user);
    if (messageText(turn.terminal) !== "") {
      resumableMessages.push(turn.terminal);
    }
    for (const m of turn.legacyPrefix) boundarySlots.push(m.sequenceNumber);
    boundarySlots.push(turn.terminal.sequenceNumber);
  }
  resumableMessages.push(...trailingLegacy);
  for (const m of trailingLegacy) boundarySlots.push(m.sequenceNumber);

  return {
    turns,
    trailingLegacy,
    boundary,
    resumableMessages,
    resumableMessageSequences: resumableMessages.map((m) => m.sequenceNumber),
    boundarySlots,
  };
}

/**
 * Rebuilds the state a stored session resumes from: the boundary-honouring projection mapped to text-only
 * working messages, one span per completed turn, the stored spend and the
 * newest non-empty compaction summary.
 *
 * @param record The session row (spend totals).
 * @param messages All stored rows of the session, in any order.
 * @returns The resume state; pure, never throws.
 */
export function reconstructSessionState(
  record: AgentSessionRecord,
  messages: ReadonlyArray<SessionMessage>,
): ResumeState {
  const sorted = inSequence(messages);
  const working: WorkingMessage[] = [];
  const spans: TurnSpan[] = [];
  const trailing = walkTurns(
    sorted,
    compactionBoundary(sorted),
    false,
    (user, terminal, _rows, legacyPrefix) => {
      for (let i = 0; i < legacyPrefix.length; i++) {
        working.push(userText(legacyPrefix[i] as SessionMessage));
      }
      const start = working.length;
      working.push(userText(user));
      const reply = messageText(terminal);
      if (reply !== "") working.push(textMessage("assistant", reply));
      spans.push({ start, end: working.length });
    },
  );
  for (let i = 0; i < trailing.length; i++) {
    working.push(userText(trailing[i] as SessionMessage));
  }

  const state: ResumeState = {
    messages: working,
    completedTurnSpans: spans,
    turnCount: spans.length,
    cumulativeCostMicrocents: record.totalCostMicrocents,
    conservativeCostMicrocents: record.totalConservativeMicrocents,
  };
  if (record.turnsUsed !== undefined) state.turnsUsed = record.turnsUsed;
  const summary = newestSummary(messages);
  if (summary !== undefined) state.compactionSummary = summary;
  return state;
}

function userText(m: SessionMessage): WorkingMessage {
  return textMessage("user", messageText(m));
}

/** `{ role, content: [{ type: "text", text }] }`, see plain_object.ts. */
function textMessage(
  role: "user" | "assistant",
  text: string,
): WorkingMessage {
  const part = plainObject();
  part["type"] = "text";
  part["text"] = text;
  const message = plainObject();
  message["role"] = role;
  message["content"] = Array.of(part);
  return message as unknown as WorkingMessage;
}

function newestSummary(
  messages: ReadonlyArray<SessionMessage>,
): string | undefined {
  let best: SessionMessage | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as SessionMessage;
    if (m.role !== "system" || m.compaction === undefined) continue;
    if (messageText(m) === "") continue;
    if (best === undefined || m.sequenceNumber > best.sequenceNumber) best = m;
  }
  return best === undefined ? undefined : messageText(best);
}
