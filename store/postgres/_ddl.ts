/**
 * The Postgres schema: the SQLite store's tables with the same column
 * names and meanings (contents as text, times as epoch milliseconds, so a
 * row read back decodes through the same codecs and exports byte for
 * byte alike), a `relavium_schema_version` table, a fencing `epoch` on the
 * lease, and one server-side function per write. Every write function
 * takes the writer's `(holder, epoch)`: when given and no longer the
 * stored lease, it raises `RL001` and writes nothing. Lease staleness is
 * judged by the database clock. Version 2 adds the session event table
 * (`relavium_session_events`, its head counter, `rlv_append_events`):
 * what `serve` instances stream to each other. Version 4: an event is
 * appended only under the writer's live lease (no holder, no row).
 *
 * @module
 */
import type { CostEntry } from "../store.ts";

/** The schema version these statements build. */
export const PG_SCHEMA_VERSION = 4;

/** The channel `rlv_append_events` notifies: `{"s": session, "q": last seq}`. */
export const EVENTS_CHANNEL = "relavium_events";

/** SQLSTATE of a write under a lease this writer no longer holds. */
export const LEASE_LOST_STATE = "RL001";
/** SQLSTATE of a write to a session that is absent or soft-deleted. */
export const NOT_FOUND_STATE = "RL002";
/** SQLSTATE of a marker placed against rows that changed since it was planned. */
export const MOVED_STATE = "RL003";

const TABLES = `
CREATE TABLE IF NOT EXISTS relavium_schema_version (
  version integer PRIMARY KEY NOT NULL
);
CREATE TABLE IF NOT EXISTS agent_sessions (
  id text PRIMARY KEY NOT NULL,
  agent_id text,
  agent_slug text NOT NULL,
  agent_snapshot text,
  title text,
  model_id text,
  working_dir text,
  git_ref text,
  fs_scope_tier text DEFAULT 'sandboxed' NOT NULL
    CHECK (fs_scope_tier in ('sandboxed', 'project', 'full')),
  status text DEFAULT 'active' NOT NULL
    CHECK (status in ('active', 'idle', 'exported', 'ended')),
  context_json text DEFAULT '{}' NOT NULL,
  total_input_tokens bigint DEFAULT 0 NOT NULL,
  total_output_tokens bigint DEFAULT 0 NOT NULL,
  total_cost_microcents bigint DEFAULT 0 NOT NULL,
  exported_workflow_path text,
  deleted_at bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS session_messages (
  id text PRIMARY KEY NOT NULL,
  session_id text NOT NULL REFERENCES agent_sessions(id) ON DELETE cascade,
  sequence_number bigint NOT NULL,
  role text NOT NULL,
  content text,
  content_parts text,
  tool_calls text,
  tool_call_id text,
  name text,
  finish_reason text,
  model_id text,
  created_at bigint NOT NULL,
  compaction_dropped_through_sequence bigint,
  UNIQUE (session_id, sequence_number)
);
CREATE TABLE IF NOT EXISTS session_costs (
  id text PRIMARY KEY NOT NULL,
  ord bigserial NOT NULL,
  session_id text NOT NULL REFERENCES agent_sessions(id) ON DELETE cascade,
  model text NOT NULL CHECK (model <> ''),
  model_catalog_id text,
  input_tokens bigint DEFAULT 0 NOT NULL,
  output_tokens bigint DEFAULT 0 NOT NULL,
  cost_microcents bigint DEFAULT 0 NOT NULL,
  call_count bigint DEFAULT 0 NOT NULL,
  unpriced_calls bigint DEFAULT 0 NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  is_legacy integer DEFAULT 0 NOT NULL,
  UNIQUE (session_id, model, is_legacy)
);
CREATE TABLE IF NOT EXISTS relavium_session_state (
  session_id text PRIMARY KEY NOT NULL REFERENCES agent_sessions(id) ON DELETE cascade,
  effect_turn_high_water bigint DEFAULT 0 NOT NULL,
  total_conservative_microcents bigint DEFAULT 0 NOT NULL
);
CREATE TABLE IF NOT EXISTS relavium_session_turns (
  session_id text PRIMARY KEY NOT NULL REFERENCES agent_sessions(id) ON DELETE cascade,
  turns_used bigint DEFAULT 0 NOT NULL
);
CREATE TABLE IF NOT EXISTS relavium_cost_details (
  session_id text NOT NULL REFERENCES agent_sessions(id) ON DELETE cascade,
  model text NOT NULL CHECK (model <> ''),
  cache_read_tokens bigint DEFAULT 0 NOT NULL,
  cache_write_tokens bigint DEFAULT 0 NOT NULL,
  cache_read_microcents bigint DEFAULT 0 NOT NULL,
  cache_write_microcents bigint DEFAULT 0 NOT NULL,
  usage_unknown_calls bigint DEFAULT 0 NOT NULL,
  PRIMARY KEY (session_id, model)
);
CREATE TABLE IF NOT EXISTS relavium_session_leases (
  session_id text PRIMARY KEY NOT NULL REFERENCES agent_sessions(id) ON DELETE cascade,
  holder_id text NOT NULL CHECK (holder_id <> ''),
  epoch bigint NOT NULL,
  pid integer,
  hostname text,
  acquired_at bigint NOT NULL,
  heartbeat_at bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS relavium_open_invocations (
  session_id text NOT NULL REFERENCES agent_sessions(id) ON DELETE cascade,
  id text NOT NULL,
  purpose text NOT NULL CHECK (purpose in ('turn', 'summary')),
  provider text NOT NULL,
  model text NOT NULL,
  status text DEFAULT 'pending' NOT NULL CHECK (status in ('pending', 'settled')),
  coverage text CHECK (coverage in ('priced', 'unpriced', 'no_usage', 'not_sent')),
  input_tokens bigint DEFAULT 0 NOT NULL,
  output_tokens bigint DEFAULT 0 NOT NULL,
  cost_microcents bigint DEFAULT 0 NOT NULL,
  started_at bigint NOT NULL,
  settled_at bigint,
  turn_number bigint CHECK (turn_number IS NULL OR turn_number >= 1),
  PRIMARY KEY (session_id, id)
);
-- Version 2: a session's events as its lease holder streamed them (JSON
-- text, redacted before they reach here), numbered from 1 by the head row.
-- No foreign key: an event is never lost to the order of two writes.
CREATE TABLE IF NOT EXISTS relavium_event_heads (
  session_id text PRIMARY KEY NOT NULL,
  last_seq bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS relavium_session_events (
  session_id text NOT NULL,
  seq bigint NOT NULL,
  type text NOT NULL,
  data text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (session_id, seq)
);
-- Version 3: one row per provider-engaged turn that recorded spend, by
-- turn number (the session's turns used after that turn), as SQLite's.
CREATE TABLE IF NOT EXISTS relavium_turn_usage (
  session_id text NOT NULL REFERENCES agent_sessions(id) ON DELETE cascade,
  turn_number bigint NOT NULL CHECK (turn_number >= 1),
  input_tokens bigint DEFAULT 0 NOT NULL,
  output_tokens bigint DEFAULT 0 NOT NULL,
  cost_microcents bigint DEFAULT 0 NOT NULL,
  PRIMARY KEY (session_id, turn_number)
);
CREATE INDEX IF NOT EXISTS idx_agent_sessions_updated
  ON agent_sessions (updated_at DESC, id DESC) WHERE deleted_at IS NULL;
`;

// The database clock in epoch ms (lease staleness is judged by it).
const NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

const FUNCTIONS = `
CREATE OR REPLACE FUNCTION rlv_fence(p_session text, p_holder text, p_epoch bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_holder IS NULL THEN RETURN; END IF;
  PERFORM 1 FROM relavium_session_leases
    WHERE session_id = p_session AND holder_id = p_holder AND epoch = p_epoch
    FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'lease lost' USING ERRCODE = '${LEASE_LOST_STATE}';
  END IF;
END $$;

-- The session is visible, else RL002; p_lock holds its row until commit
-- (a turn's or marker's rows then take sequence numbers one writer at a time).
CREATE OR REPLACE FUNCTION rlv_visible(p_session text, p_lock boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_lock THEN
    PERFORM 1 FROM agent_sessions WHERE id = p_session AND deleted_at IS NULL
      FOR UPDATE;
  ELSE
    PERFORM 1 FROM agent_sessions WHERE id = p_session AND deleted_at IS NULL;
  END IF;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no such session' USING ERRCODE = '${NOT_FOUND_STATE}';
  END IF;
END $$;

CREATE OR REPLACE FUNCTION rlv_add_costs(p_session text, p_now bigint, p_costs jsonb)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE c jsonb; total bigint := 0;
BEGIN
  FOR c IN SELECT * FROM jsonb_array_elements(p_costs) LOOP
    INSERT INTO session_costs (id, session_id, model, input_tokens,
      output_tokens, cost_microcents, call_count, unpriced_calls, created_at,
      updated_at, is_legacy)
    VALUES (c->>'id', p_session, c->>'model', (c->>'in')::bigint,
      (c->>'out')::bigint, (c->>'cost')::bigint, 1, (c->>'unpriced')::bigint,
      p_now, p_now, 0)
    ON CONFLICT (session_id, model, is_legacy) DO UPDATE SET
      input_tokens = session_costs.input_tokens + excluded.input_tokens,
      output_tokens = session_costs.output_tokens + excluded.output_tokens,
      cost_microcents = session_costs.cost_microcents + excluded.cost_microcents,
      call_count = session_costs.call_count + 1,
      unpriced_calls = session_costs.unpriced_calls + excluded.unpriced_calls,
      updated_at = excluded.updated_at;
    IF (c->>'cr')::bigint + (c->>'cw')::bigint + (c->>'unknown')::bigint > 0 THEN
      INSERT INTO relavium_cost_details (session_id, model, cache_read_tokens,
        cache_write_tokens, cache_read_microcents, cache_write_microcents,
        usage_unknown_calls)
      VALUES (p_session, c->>'model', (c->>'cr')::bigint, (c->>'cw')::bigint,
        (c->>'crc')::bigint, (c->>'cwc')::bigint, (c->>'unknown')::bigint)
      ON CONFLICT (session_id, model) DO UPDATE SET
        cache_read_tokens = relavium_cost_details.cache_read_tokens + excluded.cache_read_tokens,
        cache_write_tokens = relavium_cost_details.cache_write_tokens + excluded.cache_write_tokens,
        cache_read_microcents = relavium_cost_details.cache_read_microcents + excluded.cache_read_microcents,
        cache_write_microcents = relavium_cost_details.cache_write_microcents + excluded.cache_write_microcents,
        usage_unknown_calls = relavium_cost_details.usage_unknown_calls + excluded.usage_unknown_calls;
    END IF;
    IF (c->>'cost')::bigint <> 0 THEN
      -- The oldest settled call that spent exactly this entry's money.
      DELETE FROM relavium_open_invocations WHERE session_id = p_session
        AND id = (SELECT id FROM relavium_open_invocations
          WHERE session_id = p_session AND status = 'settled'
          AND model = c->>'model' AND input_tokens = (c->>'in')::bigint
          AND output_tokens = (c->>'out')::bigint
          AND cost_microcents = (c->>'cost')::bigint
          ORDER BY started_at, id LIMIT 1);
    END IF;
    total := total + (c->>'cost')::bigint;
  END LOOP;
  RETURN total;
END $$;

CREATE OR REPLACE FUNCTION rlv_raise_turns(p_session text, p_turns bigint)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO relavium_session_turns (session_id, turns_used)
  SELECT p_session, p_turns WHERE p_turns IS NOT NULL
  ON CONFLICT (session_id) DO UPDATE SET
    turns_used = greatest(relavium_session_turns.turns_used, excluded.turns_used)
$$;

-- Adds the tokens and money of p_costs to turn p_turn's row; a turn with
-- nothing recorded gets a row of zeros only when p_always (a completed
-- turn is charted, a spend-less failure is not). No turn number, no row.
CREATE OR REPLACE FUNCTION rlv_add_turn_usage(p_session text, p_turn bigint,
  p_costs jsonb, p_always boolean)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_turn IS NULL OR p_turn < 1 THEN RETURN; END IF;
  IF jsonb_array_length(p_costs) = 0 AND NOT p_always THEN RETURN; END IF;
  INSERT INTO relavium_turn_usage AS u (session_id, turn_number, input_tokens,
    output_tokens, cost_microcents)
  SELECT p_session, p_turn, COALESCE(SUM((c->>'in')::bigint), 0),
    COALESCE(SUM((c->>'out')::bigint), 0),
    COALESCE(SUM((c->>'cost')::bigint), 0)
  FROM jsonb_array_elements(p_costs) AS c
  ON CONFLICT (session_id, turn_number) DO UPDATE SET
    input_tokens = u.input_tokens + excluded.input_tokens,
    output_tokens = u.output_tokens + excluded.output_tokens,
    cost_microcents = u.cost_microcents + excluded.cost_microcents;
END $$;

CREATE OR REPLACE FUNCTION rlv_commit_turn(p_session text, p_holder text,
  p_epoch bigint, p_now bigint, p_in bigint, p_out bigint, p_title text,
  p_model text, p_rows jsonb, p_costs jsonb, p_turns bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE seq bigint; r jsonb; total bigint;
BEGIN
  PERFORM rlv_visible(p_session, true);
  PERFORM rlv_fence(p_session, p_holder, p_epoch);
  total := rlv_add_costs(p_session, p_now, p_costs);
  UPDATE agent_sessions SET
    total_input_tokens = total_input_tokens + p_in,
    total_output_tokens = total_output_tokens + p_out,
    total_cost_microcents = total_cost_microcents + total,
    title = COALESCE(title, p_title), model_id = COALESCE(p_model, model_id),
    status = 'active', updated_at = p_now
  WHERE id = p_session;
  SELECT COALESCE(MAX(sequence_number), -1) + 1 INTO seq
    FROM session_messages WHERE session_id = p_session;
  FOR r IN SELECT * FROM jsonb_array_elements(p_rows) LOOP
    INSERT INTO session_messages (id, session_id, sequence_number, role,
      content_parts, model_id, created_at)
    VALUES (r->>'id', p_session, seq, r->>'role', r->>'body',
      CASE WHEN r->>'role' = 'assistant' THEN p_model END, p_now);
    seq := seq + 1;
  END LOOP;
  PERFORM rlv_raise_turns(p_session, p_turns);
  PERFORM rlv_add_turn_usage(p_session, p_turns, p_costs, true);
  RETURN seq;
END $$;

CREATE OR REPLACE FUNCTION rlv_record_costs(p_session text, p_holder text,
  p_epoch bigint, p_now bigint, p_costs jsonb, p_turns bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE total bigint;
BEGIN
  PERFORM rlv_visible(p_session);
  PERFORM rlv_fence(p_session, p_holder, p_epoch);
  total := rlv_add_costs(p_session, p_now, p_costs);
  IF total > 0 THEN
    UPDATE agent_sessions SET total_cost_microcents = total_cost_microcents + total
      WHERE id = p_session;
  END IF;
  PERFORM rlv_raise_turns(p_session, p_turns);
  PERFORM rlv_add_turn_usage(p_session, p_turns, p_costs, false);
END $$;

CREATE OR REPLACE FUNCTION rlv_append_marker(p_session text, p_holder text,
  p_epoch bigint, p_now bigint, p_id text, p_body text, p_dropped bigint,
  p_seq bigint, p_in bigint, p_out bigint, p_costs jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE total bigint; seq bigint;
BEGIN
  PERFORM rlv_visible(p_session, true);
  PERFORM rlv_fence(p_session, p_holder, p_epoch);
  SELECT COALESCE(MAX(sequence_number), -1) + 1 INTO seq
    FROM session_messages WHERE session_id = p_session;
  IF seq <> p_seq THEN
    RAISE EXCEPTION 'rows changed' USING ERRCODE = '${MOVED_STATE}';
  END IF;
  IF p_dropped IS NOT NULL THEN
    INSERT INTO session_messages (id, session_id, sequence_number, role,
      content_parts, created_at, compaction_dropped_through_sequence)
    VALUES (p_id, p_session, seq, 'system', p_body, p_now, p_dropped);
  END IF;
  total := rlv_add_costs(p_session, p_now, p_costs);
  UPDATE agent_sessions SET
    total_input_tokens = total_input_tokens + p_in,
    total_output_tokens = total_output_tokens + p_out,
    total_cost_microcents = total_cost_microcents + total, updated_at = p_now
  WHERE id = p_session;
END $$;

CREATE OR REPLACE FUNCTION rlv_turn_key(p_session text, p_holder text,
  p_epoch bigint, p_seed bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE k bigint;
BEGIN
  PERFORM rlv_visible(p_session);
  PERFORM rlv_fence(p_session, p_holder, p_epoch);
  INSERT INTO relavium_session_state (session_id, effect_turn_high_water)
    VALUES (p_session, p_seed + 1)
  ON CONFLICT (session_id) DO UPDATE SET effect_turn_high_water =
    CASE WHEN relavium_session_state.effect_turn_high_water = 0
      THEN p_seed + 1 ELSE relavium_session_state.effect_turn_high_water + 1 END
  RETURNING effect_turn_high_water INTO k;
  RETURN k;
END $$;

CREATE OR REPLACE FUNCTION rlv_set_status(p_session text, p_holder text,
  p_epoch bigint, p_status text, p_now bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM rlv_visible(p_session);
  PERFORM rlv_fence(p_session, p_holder, p_epoch);
  UPDATE agent_sessions SET status = p_status, updated_at = p_now
    WHERE id = p_session;
END $$;

CREATE OR REPLACE FUNCTION rlv_begin_invocation(p_session text, p_holder text,
  p_epoch bigint, p_id text, p_purpose text, p_provider text, p_model text,
  p_now bigint, p_turn bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM rlv_visible(p_session);
  PERFORM rlv_fence(p_session, p_holder, p_epoch);
  INSERT INTO relavium_open_invocations (session_id, id, purpose, provider,
    model, started_at, turn_number)
  VALUES (p_session, p_id, p_purpose, p_provider, p_model, p_now, p_turn);
END $$;

CREATE OR REPLACE FUNCTION rlv_settle_invocation(p_session text, p_holder text,
  p_epoch bigint, p_id text, p_coverage text, p_in bigint, p_out bigint,
  p_cost bigint, p_now bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM rlv_fence(p_session, p_holder, p_epoch);
  IF p_cost = 0 THEN
    DELETE FROM relavium_open_invocations
      WHERE session_id = p_session AND id = p_id AND status = 'pending';
  ELSE
    UPDATE relavium_open_invocations SET status = 'settled',
      coverage = p_coverage, input_tokens = p_in, output_tokens = p_out,
      cost_microcents = p_cost, settled_at = p_now
    WHERE session_id = p_session AND id = p_id AND status = 'pending';
  END IF;
END $$;

-- Takes the lease when free, this holder's, stale by the database clock,
-- or held by p_dead (a holder the claimant saw gone on its own host).
-- Returns the epoch taken, or NULL when refused.
CREATE OR REPLACE FUNCTION rlv_acquire_lease(p_session text, p_holder text,
  p_pid integer, p_hostname text, p_dead text, p_stale_ms bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE e bigint; now_ms bigint := ${NOW_MS};
BEGIN
  PERFORM rlv_visible(p_session);
  INSERT INTO relavium_session_leases AS l (session_id, holder_id, epoch, pid,
    hostname, acquired_at, heartbeat_at)
  VALUES (p_session, p_holder, 1, p_pid, p_hostname, now_ms, now_ms)
  ON CONFLICT (session_id) DO UPDATE SET holder_id = excluded.holder_id,
    epoch = l.epoch + 1, pid = excluded.pid, hostname = excluded.hostname,
    acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at
  WHERE l.holder_id = p_holder OR l.holder_id = p_dead
    OR l.heartbeat_at < now_ms - p_stale_ms
  RETURNING epoch INTO e;
  RETURN e;
END $$;

CREATE OR REPLACE FUNCTION rlv_renew_lease(p_session text, p_holder text,
  p_epoch bigint)
RETURNS boolean LANGUAGE sql AS $$
  WITH u AS (UPDATE relavium_session_leases SET heartbeat_at = ${NOW_MS}
    WHERE session_id = p_session AND holder_id = p_holder AND epoch = p_epoch
    RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM u)
$$;

-- Appends a batch of events under the writer's fence, numbered after the
-- session's head; keeps the last p_keep; notifies a pointer (never the
-- events: a payload over 8,000 bytes is refused). Returns the first seq.
-- Only the lease holder appends: a writer without a lease is refused as
-- one that lost it (a late event never lands in another holder's turn).
CREATE OR REPLACE FUNCTION rlv_append_events(p_session text, p_holder text,
  p_epoch bigint, p_now bigint, p_events jsonb, p_keep bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := jsonb_array_length(p_events); last bigint;
BEGIN
  IF p_holder IS NULL THEN
    RAISE EXCEPTION 'lease lost' USING ERRCODE = '${LEASE_LOST_STATE}';
  END IF;
  PERFORM rlv_fence(p_session, p_holder, p_epoch);
  INSERT INTO relavium_event_heads AS h (session_id, last_seq)
    VALUES (p_session, n)
  ON CONFLICT (session_id) DO UPDATE SET last_seq = h.last_seq + n
  RETURNING last_seq INTO last;
  INSERT INTO relavium_session_events (session_id, seq, type, data, created_at)
    SELECT p_session, last - n + e.ord, e.v->>'type', e.v->>'data', p_now
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(v, ord);
  DELETE FROM relavium_session_events
    WHERE session_id = p_session AND seq <= last - p_keep;
  PERFORM pg_notify('${EVENTS_CHANNEL}',
    json_build_object('s', p_session, 'q', last)::text);
  RETURN last - n + 1;
END $$;

CREATE OR REPLACE FUNCTION rlv_release_lease(p_session text, p_holder text,
  p_epoch bigint)
RETURNS void LANGUAGE sql AS $$
  DELETE FROM relavium_session_leases
  WHERE session_id = p_session AND holder_id = p_holder AND epoch = p_epoch
$$;
`;

/**
 * The whole schema as one script: tables, then functions, then the
 * version row. Applying it twice is a no-op.
 */
export const PG_DDL: string = `${TABLES}${FUNCTIONS}
INSERT INTO relavium_schema_version (version) VALUES (${PG_SCHEMA_VERSION})
  ON CONFLICT DO NOTHING;`;

/**
 * Cost entries as `rlv_add_costs` reads them (one jsonb array), each with
 * a fresh row id.
 *
 * @param ids Source of row ids.
 * @param costs The entries.
 * @returns The array to send.
 */
export function costJson(
  ids: () => string,
  costs: readonly CostEntry[],
): Record<string, string | number>[] {
  return costs.map((c) => ({
    id: ids(),
    model: c.model,
    in: c.inputTokens,
    out: c.outputTokens,
    cost: c.costMicrocents,
    unpriced: c.priced ? 0 : 1,
    cr: c.cacheReadTokens ?? 0,
    cw: c.cacheWriteTokens ?? 0,
    crc: c.cacheReadMicrocents ?? 0,
    cwc: c.cacheWriteMicrocents ?? 0,
    unknown: c.usageUnknown === true ? 1 : 0,
  }));
}
