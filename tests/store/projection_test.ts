import assert from "node:assert/strict";
import {
  projectStructure,
  reconstructSessionState,
} from "../../store/projection.ts";
import type { AgentSessionRecord } from "../../store/store.ts";
import type { SessionMessage } from "../../schema/message.ts";
import { calls, marker, reply, results, row, user } from "./_rows.ts";

interface Case {
  name: string;
  rows: SessionMessage[];
  honourBoundary?: boolean;
  /** Per turn: sequences of `rows` (user … terminal). */
  turns: number[][];
  /** Per turn: legacy prefix sequences. */
  legacy?: number[][];
  trailing: number[];
  boundary?: number;
  resumable: number[];
  slots: number[];
}

const cases: Case[] = [
  {
    name: "plain two-turn chat",
    rows: [user(0, "a"), reply(1, "A"), user(2, "b"), reply(3, "B")],
    turns: [[0, 1], [2, 3]],
    trailing: [],
    resumable: [0, 1, 2, 3],
    slots: [1, 3],
  },
  {
    name: "unsorted input is sorted by sequence",
    rows: [reply(3, "B"), user(2, "b"), reply(1, "A"), user(0, "a")],
    turns: [[0, 1], [2, 3]],
    trailing: [],
    resumable: [0, 1, 2, 3],
    slots: [1, 3],
  },
  {
    name: "legacy bare user before a turn gets its own slot",
    rows: [user(0, "old"), user(1, "b"), reply(2, "B")],
    turns: [[1, 2]],
    legacy: [[0]],
    trailing: [],
    resumable: [0, 1, 2],
    slots: [0, 2],
  },
  {
    name: "a final bare user is dropped",
    rows: [user(0, "a"), reply(1, "A"), user(2, "unanswered")],
    turns: [[0, 1]],
    trailing: [],
    resumable: [0, 1],
    slots: [1],
  },
  {
    name: "bare users before a final bare user are trailing legacy",
    rows: [user(0, "a"), reply(1, "A"), user(2, "x"), user(3, "y")],
    turns: [[0, 1]],
    trailing: [2],
    resumable: [0, 1, 2],
    slots: [1, 2],
  },
  {
    name: "a bare user with empty text is not legacy",
    rows: [user(0, ""), user(1, "b"), reply(2, "B")],
    turns: [[1, 2]],
    legacy: [[]],
    trailing: [],
    resumable: [1, 2],
    slots: [2],
  },
  {
    name: "tool preamble and tool rows join the turn",
    rows: [
      user(0, "look"),
      calls(1, 1, [0, 1], "Let me look"),
      results(2, 1, [0, 1]),
      calls(3, 1, [2]),
      results(4, 1, [2]),
      reply(5, "done"),
    ],
    turns: [[0, 1, 2, 3, 4, 5]],
    trailing: [],
    resumable: [0, 5],
    slots: [5],
  },
  {
    name: "an empty final reply completes the turn but is not resumable",
    rows: [user(0, "a"), reply(1, ""), user(2, "b"), reply(3, "B")],
    turns: [[0, 1], [2, 3]],
    trailing: [],
    resumable: [0, 2, 3],
    slots: [1, 3],
  },
  {
    name: "a reasoning-only assistant row is not terminal",
    rows: [
      user(0, "a"),
      row(1, "assistant", [{ type: "reasoning", text: "hmm" }]),
      reply(2, "A"),
    ],
    turns: [[0, 1, 2]],
    trailing: [],
    resumable: [0, 2],
    slots: [2],
  },
  {
    name: "a candidate with structural rows is abandoned, not legacy",
    rows: [
      user(0, "crashed"),
      calls(1, 1, [0]),
      results(2, 1, [0]),
      user(3, "b"),
      reply(4, "B"),
    ],
    turns: [[3, 4]],
    legacy: [[]],
    trailing: [],
    resumable: [3, 4],
    slots: [4],
  },
  {
    name: "an abandoned candidate keeps earlier legacy users pending",
    rows: [
      user(0, "old"),
      user(1, "crashed"),
      calls(2, 1, [0]),
      user(3, "b"),
      reply(4, "B"),
    ],
    turns: [[3, 4]],
    legacy: [[0]],
    trailing: [],
    resumable: [0, 3, 4],
    slots: [0, 4],
  },
  {
    name: "rows before any user are ignored",
    rows: [reply(0, "orphan"), results(1, 1, [0]), user(2, "a"), reply(3, "A")],
    turns: [[2, 3]],
    trailing: [],
    resumable: [2, 3],
    slots: [3],
  },
  {
    name: "the boundary drops turns and legacy at or below it",
    rows: [
      user(0, "old"),
      user(1, "a"),
      reply(2, "A"),
      user(3, "b"),
      reply(4, "B"),
      marker(5, 2, "summary"),
      user(6, "c"),
      reply(7, "C"),
    ],
    turns: [[3, 4], [6, 7]],
    trailing: [],
    boundary: 2,
    resumable: [3, 4, 6, 7],
    slots: [4, 7],
  },
  {
    name: "export ignores the boundary",
    honourBoundary: false,
    rows: [
      user(0, "old"),
      user(1, "a"),
      reply(2, "A"),
      marker(3, 2, "summary"),
      user(4, "c"),
      reply(5, "C"),
    ],
    turns: [[1, 2], [4, 5]],
    legacy: [[0], []],
    trailing: [],
    boundary: 2,
    resumable: [0, 1, 2, 4, 5],
    slots: [0, 2, 5],
  },
  {
    name: "the largest droppedThroughSequence wins",
    rows: [
      user(0, "a"),
      reply(1, "A"),
      user(2, "b"),
      reply(3, "B"),
      marker(4, 3),
      marker(5, 1, "older boundary"),
      user(6, "c"),
      reply(7, "C"),
    ],
    turns: [[6, 7]],
    trailing: [],
    boundary: 3,
    resumable: [6, 7],
    slots: [7],
  },
];

Deno.test("projectStructure() projects rows into turns and legacy users", async (t) => {
  for (const c of cases) {
    await t.step(c.name, () => {
      const p = projectStructure(c.rows, {
        honourBoundary: c.honourBoundary ?? true,
      });
      assert.deepEqual(
        p.turns.map((turn) => turn.rows.map((m) => m.sequenceNumber)),
        c.turns,
      );
      for (const turn of p.turns) {
        assert.equal(turn.rows[0], turn.user);
        assert.equal(turn.rows[turn.rows.length - 1], turn.terminal);
      }
      assert.deepEqual(
        p.turns.map((turn) => turn.legacyPrefix.map((m) => m.sequenceNumber)),
        c.legacy ?? c.turns.map(() => []),
      );
      assert.deepEqual(
        p.trailingLegacy.map((m) => m.sequenceNumber),
        c.trailing,
      );
      assert.equal(p.boundary, c.boundary ?? -1);
      assert.deepEqual(p.resumableMessageSequences, c.resumable);
      assert.deepEqual(
        p.resumableMessages.map((m) => m.sequenceNumber),
        c.resumable,
      );
      assert.deepEqual(p.boundarySlots, c.slots);
    });
  }
});

function record(cost: number, conservative: number): AgentSessionRecord {
  const at = "2026-01-01T00:00:00.000Z";
  return {
    id: "s",
    agentSlug: "mini",
    context: { workingDir: "/w", fsScopeTier: "sandboxed" },
    status: "active",
    totalInputTokens: 0,
    totalOutputTokens: 0,
    totalCostMicrocents: cost,
    totalConservativeMicrocents: conservative,
    createdAt: at,
    updatedAt: at,
  };
}

Deno.test("reconstructSessionState() maps turns to text-only spans", () => {
  const state = reconstructSessionState(record(120, 30), [
    user(0, "old"),
    user(1, "a"),
    calls(2, 1, [0], "checking"),
    results(3, 1, [0]),
    row(4, "assistant", [
      { type: "reasoning", text: "thought" },
      { type: "text", text: "A1" },
      { type: "text", text: "A2" },
    ]),
    user(5, "b"),
    reply(6, ""),
    user(7, "legacy tail"),
    user(8, "final bare"),
  ]);
  assert.deepEqual(state, {
    messages: [
      { role: "user", content: [{ type: "text", text: "old" }] },
      { role: "user", content: [{ type: "text", text: "a" }] },
      { role: "assistant", content: [{ type: "text", text: "A1\n\nA2" }] },
      { role: "user", content: [{ type: "text", text: "b" }] },
      { role: "user", content: [{ type: "text", text: "legacy tail" }] },
    ],
    completedTurnSpans: [{ start: 1, end: 3 }, { start: 3, end: 4 }],
    turnCount: 2,
    cumulativeCostMicrocents: 120,
    conservativeCostMicrocents: 30,
  });
});

Deno.test("reconstructSessionState() honours the boundary and takes the newest non-empty summary", () => {
  const state = reconstructSessionState(record(0, 0), [
    user(0, "a"),
    reply(1, "A"),
    marker(2, 1, "first summary"),
    user(3, "b"),
    reply(4, "B"),
    marker(5, 4, "second summary"),
    marker(6, 4),
    user(7, "c"),
    reply(8, "C"),
  ]);
  assert.equal(state.turnCount, 1);
  assert.equal(state.compactionSummary, "second summary");
  assert.deepEqual(state.completedTurnSpans, [{ start: 0, end: 2 }]);
  assert.deepEqual(state.messages.map((m) => m.content[0]?.text), ["c", "C"]);
});

Deno.test("reconstructSessionState() omits the summary when no marker has text", () => {
  const state = reconstructSessionState(record(0, 0), [
    user(0, "a"),
    reply(1, "A"),
    marker(2, 1),
  ]);
  assert.equal("compactionSummary" in state, false);
  assert.equal(state.turnCount, 0);
  assert.deepEqual(state.messages, []);
});
