/**
 * Our tools' JSON Schema → the OpenAPI subset Gemini's `Schema` accepts.
 *
 * @module
 */
import { isObject, type JsonObject } from "../_wire_json.ts";

/** Deepest nesting converted; anything below is an unconstrained value. */
const MAX_DEPTH = 32;

const TYPES: Readonly<Record<string, string>> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
  null: "NULL",
};

/** The `format` values Gemini takes, by type; others are dropped. */
const FORMATS: Readonly<Record<string, readonly string[]>> = {
  STRING: ["enum", "date-time"],
  NUMBER: ["float", "double"],
  INTEGER: ["int32", "int64"],
};

/** Integer bounds, sent as strings (the API's int64 fields). */
const COUNT_KEYS = [
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
] as const;

const COPIED_KEYS = ["description", "title", "pattern", "default", "example"];

interface Context {
  root: JsonObject;
  depth: number;
}

/** A local `#/$defs/<name>` or `#/definitions/<name>` reference. */
function resolveRef(ref: unknown, root: JsonObject): JsonObject | undefined {
  if (typeof ref !== "string") return undefined;
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (m === null) return undefined;
  const table = root[m[1] ?? ""];
  const name = decodeURIComponent(m[2] ?? "").replaceAll("~1", "/")
    .replaceAll("~0", "~");
  const target = isObject(table) ? table[name] : undefined;
  return isObject(target) ? target : undefined;
}

/** The members of `allOf` merged into one schema (properties and required). */
function mergeAllOf(schema: JsonObject, members: unknown[]): JsonObject {
  const { allOf: _, ...rest } = schema;
  const out: JsonObject = { ...rest };
  const properties: JsonObject = isObject(rest["properties"])
    ? { ...rest["properties"] }
    : {};
  const required = new Set<string>(
    Array.isArray(rest["required"]) ? rest["required"].map(String) : [],
  );
  for (const m of members) {
    if (!isObject(m)) continue;
    for (const [k, v] of Object.entries(m)) {
      if (k === "properties" && isObject(v)) Object.assign(properties, v);
      else if (k === "required" && Array.isArray(v)) {
        for (const r of v) required.add(String(r));
      } else if (!(k in out)) out[k] = v;
    }
  }
  if (Object.keys(properties).length > 0) out["properties"] = properties;
  if (required.size > 0) out["required"] = [...required];
  return out;
}

function convert(input: unknown, ctx: Context): JsonObject {
  if (!isObject(input) || ctx.depth > MAX_DEPTH) return {};
  let schema = input;
  // A reference is replaced by its target (depth-bounded: cycles end).
  const target = resolveRef(schema["$ref"], ctx.root);
  if (target !== undefined) {
    const { $ref: _, ...rest } = schema;
    schema = { ...target, ...rest };
  }
  if (Array.isArray(schema["allOf"])) {
    schema = mergeAllOf(schema, schema["allOf"]);
  }
  const inner: Context = { root: ctx.root, depth: ctx.depth + 1 };
  const out: JsonObject = {};
  for (const key of COPIED_KEYS) {
    if (schema[key] !== undefined) out[key] = schema[key];
  }
  const types = (Array.isArray(schema["type"]) ? schema["type"] : [
    schema["type"],
  ]).filter((t): t is string => typeof t === "string" && t in TYPES);
  const nonNull = types.filter((t) => t !== "null");
  if (types.includes("null") && nonNull.length > 0) out["nullable"] = true;
  if (nonNull.length > 1) {
    // Several types: one alternative per type, the rest of the schema
    // applying to each.
    const { type: _, ...rest } = schema;
    out["anyOf"] = nonNull.map((t) => convert({ ...rest, type: t }, inner));
    return out;
  }
  let type = nonNull[0] === undefined
    ? types[0] === undefined ? undefined : TYPES[types[0]]
    : TYPES[nonNull[0]];
  const constant = schema["const"];
  const values = constant !== undefined ? [constant] : schema["enum"];
  if (Array.isArray(values)) {
    const strings = values.filter((v): v is string => typeof v === "string");
    if (values.includes(null)) out["nullable"] = true;
    // Gemini's enums are strings: a string enum (or const) keeps its
    // values; any other enum is dropped, leaving its type.
    if (
      strings.length > 0 &&
      strings.length === values.filter((v) => v !== null).length
    ) {
      out["enum"] = strings;
      type ??= "STRING";
    }
  }
  if (type === undefined && isObject(schema["properties"])) type = "OBJECT";
  if (type === undefined && schema["items"] !== undefined) type = "ARRAY";
  if (type !== undefined) out["type"] = type;
  const format = schema["format"];
  if (
    typeof format === "string" && type !== undefined &&
    (FORMATS[type] ?? []).includes(format)
  ) {
    out["format"] = format;
  }
  for (const key of ["minimum", "maximum"]) {
    const v = schema[key];
    if (typeof v === "number" && Number.isFinite(v)) out[key] = v;
  }
  for (const key of COUNT_KEYS) {
    const v = schema[key];
    if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) {
      out[key] = String(v);
    }
  }
  const alternatives = Array.isArray(schema["anyOf"])
    ? schema["anyOf"]
    : Array.isArray(schema["oneOf"])
    ? schema["oneOf"]
    : undefined;
  if (alternatives !== undefined) {
    const nullable = alternatives.some((a) =>
      isObject(a) && a["type"] === "null"
    );
    const rest = alternatives.filter((a) =>
      !(isObject(a) && a["type"] === "null")
    );
    if (nullable) out["nullable"] = true;
    if (rest.length === 1) return { ...convert(rest[0], inner), ...out };
    if (rest.length > 1) out["anyOf"] = rest.map((a) => convert(a, inner));
  }
  const properties = schema["properties"];
  if (isObject(properties) && Object.keys(properties).length > 0) {
    const props: JsonObject = {};
    for (const [name, sub] of Object.entries(properties)) {
      props[name] = convert(sub, inner);
    }
    out["properties"] = props;
    const required = Array.isArray(schema["required"])
      ? schema["required"].filter((r): r is string =>
        typeof r === "string" && Object.hasOwn(props, r)
      )
      : [];
    if (required.length > 0) out["required"] = required;
  }
  const items = schema["items"];
  if (isObject(items)) out["items"] = convert(items, inner);
  else if (Array.isArray(items) && items.length > 0) {
    out["items"] = convert(items[0], inner);
  }
  if (type === "ARRAY" && out["items"] === undefined) {
    out["items"] = { type: "STRING" };
  }
  return out;
}

/**
 * Converts a JSON Schema to Gemini's `Schema`: types upper-cased (a type
 * list with `null` is `nullable`, several others an `anyOf`), `const` →
 * a one-value `enum`, string enums kept (other enums dropped), `oneOf` →
 * `anyOf` (a `null` alternative → `nullable`; one alternative left is
 * inlined), `allOf` merged, local `$ref`s inlined (depth-bounded),
 * `format` kept only where Gemini takes it, integer bounds as strings,
 * `required` limited to declared properties, an array without `items`
 * given string items; every other keyword (`$schema`,
 * `additionalProperties`, `exclusiveMinimum`, `not`, …) dropped.
 *
 * @param schema A JSON Schema.
 * @returns The Gemini schema.
 */
export function toGeminiSchema(schema: unknown): JsonObject {
  return convert(schema, { root: isObject(schema) ? schema : {}, depth: 0 });
}

/**
 * The `parameters` of a function declaration: the converted schema, or
 * `undefined` for a tool without arguments (Gemini refuses an `OBJECT`
 * with no properties there).
 *
 * @param schema The tool's JSON Schema.
 * @returns The parameters, or `undefined`.
 */
export function geminiParameters(schema: unknown): JsonObject | undefined {
  const out = toGeminiSchema(schema);
  return out["type"] === "OBJECT" && out["properties"] === undefined
    ? undefined
    : out;
}
