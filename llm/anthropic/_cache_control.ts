/**
 * Prompt-cache breakpoints on a built Anthropic Messages request body.
 *
 * Anthropic caches the request prefix up to each block that carries
 * `cache_control: {type: "ephemeral"}` (prefix order: tools, system,
 * messages) and refuses a request with more than four such blocks.
 *
 * @module
 */
import { isObject, type JsonObject } from "../_wire_json.ts";

/** Anthropic refuses a request with more breakpoints than this. */
export const MAX_CACHE_BREAKPOINTS = 4;

/**
 * How long a cache entry lives: `5m` (Anthropic's default, writes at 1.25×
 * the input rate) or `1h` (writes at 2×).
 */
export type CacheTtl = "5m" | "1h";

/**
 * The `promptCaching` option as written by a caller: `true` (the default)
 * is `5m`, `false` sends no breakpoint.
 */
export type PromptCachingSetting = boolean | CacheTtl;

/**
 * The TTL of a `promptCaching` setting, or `undefined` when caching is off.
 *
 * @param setting The setting (`undefined` = the default, on at `5m`).
 * @returns The TTL, or `undefined`.
 */
export function cacheTtlOf(
  setting: PromptCachingSetting | undefined,
): CacheTtl | undefined {
  if (setting === false) return undefined;
  return setting === "1h" ? "1h" : "5m";
}

// Thinking blocks cannot carry a breakpoint, nor can an empty text block.
function cacheable(block: unknown): block is JsonObject {
  if (!isObject(block)) return false;
  const type = block["type"];
  if (type === "thinking" || type === "redacted_thinking") return false;
  return !(type === "text" && block["text"] === "");
}

function hasMarker(value: unknown): boolean {
  return isObject(value) && value["cache_control"] !== undefined;
}

function countIn(blocks: unknown): number {
  if (!Array.isArray(blocks)) return 0;
  let n = 0;
  for (const b of blocks) {
    if (hasMarker(b)) n++;
    // A tool_result's own content blocks may carry markers too.
    if (isObject(b)) n += countIn(b["content"]);
  }
  return n;
}

/** Markers where Anthropic counts them: top level, tools, system, messages. */
function countMarkers(body: Readonly<JsonObject>): number {
  let n = hasMarker(body) ? 1 : 0;
  n += countIn(body["tools"]) + countIn(body["system"]);
  const messages = body["messages"];
  if (Array.isArray(messages)) {
    for (const m of messages) if (isObject(m)) n += countIn(m["content"]);
  }
  return n;
}

function marked(block: JsonObject, marker: JsonObject): JsonObject {
  return { ...block, cache_control: { ...marker } };
}

/** The blocks with the last cacheable one marked, or `undefined`. */
function markLast(
  blocks: readonly unknown[],
  marker: JsonObject,
): unknown[] | undefined {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i];
    if (!cacheable(block)) continue;
    if (block["cache_control"] !== undefined) return undefined;
    const out = [...blocks];
    out[i] = marked(block, marker);
    return out;
  }
  return undefined;
}

function blocksOf(content: unknown): unknown[] | undefined {
  if (typeof content === "string") {
    return content === "" ? undefined : [{ type: "text", text: content }];
  }
  return Array.isArray(content) ? content : undefined;
}

/**
 * Places cache breakpoints on a built request body and returns the new
 * body (the argument is not changed). In order, while fewer than four
 * blocks carry `cache_control` (markers already in the body count): the
 * last tool definition; the system prompt (a string becomes one text
 * block); the last message's last cacheable block (a `tool_result`
 * included; thinking blocks and empty text are skipped); and the same in
 * the message before it, so the next tool round or turn reads the prefix
 * this request wrote. A part that already carries a marker, or has no
 * cacheable block, gets none. A short prefix (under the model's minimum
 * cacheable length) is harmless: Anthropic then neither reads nor writes.
 * `5m` markers omit `ttl` (the API's default); `1h` ones send it. Without
 * a TTL (caching off) the body is returned as it is.
 *
 * @param body The request body as built.
 * @param ttl The cache entries' lifetime, `undefined` when caching is off.
 * @returns The body with the breakpoints.
 */
export function withCacheBreakpoints(
  body: Readonly<JsonObject>,
  ttl: CacheTtl | undefined,
): Readonly<JsonObject> {
  if (ttl === undefined) return body;
  const marker: JsonObject = ttl === "1h"
    ? { type: "ephemeral", ttl: "1h" }
    : { type: "ephemeral" };
  const out: JsonObject = { ...body };
  let budget = MAX_CACHE_BREAKPOINTS - countMarkers(body);
  const tools = body["tools"];
  if (budget > 0 && Array.isArray(tools) && tools.length > 0) {
    const last = tools[tools.length - 1];
    if (isObject(last) && last["cache_control"] === undefined) {
      out["tools"] = [...tools.slice(0, -1), marked(last, marker)];
      budget--;
    }
  }
  const system = blocksOf(body["system"]);
  if (budget > 0 && system !== undefined) {
    const next = markLast(system, marker);
    if (next !== undefined) {
      out["system"] = next;
      budget--;
    }
  }
  const messages = body["messages"];
  if (!Array.isArray(messages)) return out;
  const list: unknown[] = [...messages];
  for (let i = list.length - 1; i >= list.length - 2 && i >= 0; i--) {
    const message = list[i];
    if (budget <= 0 || !isObject(message)) break;
    const content = blocksOf(message["content"]);
    const next = content === undefined ? undefined : markLast(content, marker);
    if (next === undefined) continue;
    list[i] = { ...message, content: next };
    budget--;
  }
  out["messages"] = list;
  return out;
}
