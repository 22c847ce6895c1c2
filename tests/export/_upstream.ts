/**
 * Reads sessions from a copy of the upstream `history.db` with
 * `node:sqlite` directly, mapping rows to the store's domain shapes
 * (epoch ms → ISO strings, JSON columns parsed, NULL → absent).
 */
import { DatabaseSync } from "node:sqlite";
import type { Agent } from "../../schema/agent.ts";
import type { SessionContext } from "../../schema/context.ts";
import type {
  SessionContentPart,
  SessionMessage,
} from "../../schema/message.ts";
import type { AgentSessionRecord, SessionStatus } from "../../store/store.ts";

/** The vendored copy of the shared upstream fixture (shared/fixtures/upstream-history). */
export const UPSTREAM_DIR: string = new URL(
  "../store/_fixtures/upstream-history",
  import.meta.url,
).pathname;

/** A session and its rows. */
export interface UpstreamSession {
  /** The session row. */
  record: AgentSessionRecord;
  /** Its rows in sequence order. */
  messages: SessionMessage[];
}

type Row = Record<string, unknown>;

function text(row: Row, column: string): string | undefined {
  const v = row[column];
  if (v === null || v === undefined) return undefined;
  if (typeof v !== "string") throw new TypeError(`${column} is not text`);
  return v;
}

function int(row: Row, column: string): number | undefined {
  const v = row[column];
  if (v === null || v === undefined) return undefined;
  if (typeof v !== "number") throw new TypeError(`${column} is not a number`);
  return v;
}

function iso(ms: number | undefined): string {
  if (ms === undefined) throw new TypeError("missing timestamp");
  return new Date(ms).toISOString();
}

function toRecord(row: Row): AgentSessionRecord {
  const rec: AgentSessionRecord = {
    id: text(row, "id") ?? "",
    agentSlug: text(row, "agent_slug") ?? "",
    context: JSON.parse(text(row, "context_json") ?? "{}") as SessionContext,
    status: text(row, "status") as SessionStatus,
    totalInputTokens: int(row, "total_input_tokens") ?? 0,
    totalOutputTokens: int(row, "total_output_tokens") ?? 0,
    totalCostMicrocents: int(row, "total_cost_microcents") ?? 0,
    totalConservativeMicrocents: 0,
    createdAt: iso(int(row, "created_at")),
    updatedAt: iso(int(row, "updated_at")),
  };
  const agentId = text(row, "agent_id");
  if (agentId !== undefined) rec.agentId = agentId;
  const snapshot = text(row, "agent_snapshot");
  if (snapshot !== undefined) rec.agentSnapshot = JSON.parse(snapshot) as Agent;
  const title = text(row, "title");
  if (title !== undefined) rec.title = title;
  const modelId = text(row, "model_id");
  if (modelId !== undefined) rec.modelId = modelId;
  const exported = text(row, "exported_workflow_path");
  if (exported !== undefined) rec.exportedWorkflowPath = exported;
  const deleted = int(row, "deleted_at");
  if (deleted !== undefined) rec.deletedAt = iso(deleted);
  return rec;
}

function toMessage(row: Row): SessionMessage {
  const parts = text(row, "content_parts");
  const plain = text(row, "content");
  const content: SessionContentPart[] = parts !== undefined
    ? JSON.parse(parts) as SessionContentPart[]
    : plain !== undefined
    ? [{ type: "text", text: plain }]
    : [];
  const m: SessionMessage = {
    id: text(row, "id") ?? "",
    sessionId: text(row, "session_id") ?? "",
    sequenceNumber: int(row, "sequence_number") ?? 0,
    role: text(row, "role") as SessionMessage["role"],
    content,
    timestamp: iso(int(row, "created_at")),
  };
  const modelId = text(row, "model_id");
  if (modelId !== undefined) m.modelId = modelId;
  const dropped = int(row, "compaction_dropped_through_sequence");
  if (dropped !== undefined) {
    m.compaction = { droppedThroughSequence: dropped };
  }
  return m;
}

/**
 * Copies `history.db` to a fresh temp dir (never opening the shared file)
 * and reads every visible session with its rows.
 */
export async function readUpstreamSessions(): Promise<UpstreamSession[]> {
  const dir = await Deno.makeTempDir({ prefix: "export-upstream-" });
  try {
    const path = `${dir}/history.db`;
    await Deno.copyFile(`${UPSTREAM_DIR}/history.db`, path);
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const sessions = db.prepare(
        "SELECT * FROM agent_sessions WHERE deleted_at IS NULL ORDER BY id",
      ).all() as Row[];
      const rows = db.prepare(
        "SELECT * FROM session_messages WHERE session_id = ? ORDER BY sequence_number",
      );
      return sessions.map((s) => ({
        record: toRecord(s),
        messages: (rows.all(text(s, "id") ?? "") as Row[]).map(toMessage),
      }));
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
