/**
 * Our tools' JSON Schema, converted to the OpenAPI subset Gemini's
 * `functionDeclarations[].parameters` accepts.
 *
 * @module
 */
import { isObject } from "../_wire_json.ts";

/** Keywords carried over as they are. */
const KEPT = new Set([
  "description",
  "title",
  "nullable",
  "format",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minProperties",
  "maxProperties",
  "propertyOrdering",
]);

/** How deep a schema (and `$ref` resolution) may nest before it is cut. */
const MAX_DEPTH = 32;

/**
 * Converts a JSON Schema to the subset Gemini accepts: `type` (a
 * `["x", "null"]` union becomes `x` with `nullable: true`), `properties`,
 * `required` (only names that are properties), `items`, `enum` (values as
 * strings; `const` becomes a one-value `enum`), `anyOf` (`oneOf` too), and
 * the plain keywords Gemini knows; local `$ref`s into `$defs` /
 * `definitions` are inlined. Everything else (`$schema`,
 * `additionalProperties`, `allOf`, `not`, `default`, `examples`, …) is
 * dropped; nothing nests deeper than 32 levels.
 *
 * @param schema The tool's JSON Schema.
 * @returns The Gemini schema.
 */
export function toGeminiSchema(
  schema: Record<string, unknown>,
): Record<string, unknown> {
  const defs = {
    ...(isObject(schema["definitions"]) ? schema["definitions"] : {}),
    ...(isObject(schema["$defs"]) ? schema["$defs"] : {}),
  };
  return convert(schema, defs, 0);
}

function resolve(
  node: Record<string, unknown>,
  defs: Record<string, unknown>,
): Record<string, unknown> {
  const ref = node["$ref"];
  if (typeof ref !== "string") return node;
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
  const target = name === undefined ? undefined : defs[name];
  return isObject(target) ? target : {};
}

function convert(
  raw: Record<string, unknown>,
  defs: Record<string, unknown>,
  depth: number,
): Record<string, unknown> {
  if (depth >= MAX_DEPTH) return {};
  const node = resolve(raw, defs);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (KEPT.has(key)) out[key] = value;
  }
  const type = node["type"];
  if (typeof type === "string") out["type"] = type;
  else if (Array.isArray(type)) {
    const named = type.filter((t): t is string =>
      typeof t === "string" && t !== "null"
    );
    if (named.length > 0) out["type"] = named[0];
    if (type.includes("null")) out["nullable"] = true;
  }
  const choices = node["enum"] ??
    (node["const"] === undefined ? undefined : [node["const"]]);
  if (Array.isArray(choices) && choices.length > 0) {
    out["enum"] = choices.map((v) => typeof v === "string" ? v : String(v));
    out["type"] = "string";
  }
  const props = node["properties"];
  if (isObject(props)) {
    const converted: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(props)) {
      converted[name] = isObject(sub) ? convert(sub, defs, depth + 1) : {};
    }
    out["properties"] = converted;
    out["type"] ??= "object";
    const required = node["required"];
    if (Array.isArray(required)) {
      const known = required.filter((r): r is string =>
        typeof r === "string" && Object.hasOwn(converted, r)
      );
      if (known.length > 0) out["required"] = known;
    }
  }
  const items = node["items"];
  if (isObject(items)) out["items"] = convert(items, defs, depth + 1);
  const any = node["anyOf"] ?? node["oneOf"];
  if (Array.isArray(any)) {
    const branches = any.filter(isObject).map((b) =>
      convert(b, defs, depth + 1)
    );
    if (branches.length > 0) out["anyOf"] = branches;
  }
  return out;
}
