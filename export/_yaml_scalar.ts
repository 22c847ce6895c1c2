/**
 * Scalar rendering for the deterministic YAML emitter: plain when a YAML
 * 1.2 core *and* a YAML 1.1 reader would load the text back as the same
 * string, else single- or double-quoted, and multi-line text as a literal
 * block. Styles follow the `yaml` library's choices (`lineWidth: 0`), so
 * files match the Relavium CLI's exports apart from quoting.
 *
 * @module
 */

/**
 * Plain scalars that some reader resolves to a non-string: the YAML 1.2
 * core schema and the YAML 1.1 types (booleans such as `yes`/`on`/`y`,
 * sexagesimal and underscored numbers, timestamps, the merge key `<<`,
 * the value key `=`).
 */
const NON_STRING: readonly RegExp[] = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Yy]|[Yy]es|YES|[Nn]|[Nn]o|NO|[Tt]rue|TRUE|[Ff]alse|FALSE|[Oo]n|ON|[Oo]ff|OFF)$/,
  /^[-+]?(?:0b[01_]+|0o[0-7]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:t|T|[ \t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:[ \t]*(?:Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?$/,
  /^(?:<<|=)$/,
];

/** Text a plain scalar cannot hold (the `yaml` library's test). */
const NOT_PLAIN =
  /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;

/**
 * Characters written only as double-quoted escapes: C0 controls other than
 * tab and line feed, DEL, C1 controls (NEL included), U+2028, U+2029,
 * U+FEFF, U+FFFE, U+FFFF; unpaired surrogates are found separately.
 */
const ESCAPED_CHAR =
  // deno-lint-ignore no-control-regex -- these are exactly the characters to find
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;

const DOUBLE_QUOTED_ESCAPE = new RegExp(
  `["\\\\\\n\\t]|${ESCAPED_CHAR.source}|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]`,
  "g",
);

function needsEscape(s: string): boolean {
  return ESCAPED_CHAR.test(s) || !s.isWellFormed();
}

const NAMED: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "\0": "\\0",
  "\x07": "\\a",
  "\b": "\\b",
  "\t": "\\t",
  "\n": "\\n",
  "\v": "\\v",
  "\f": "\\f",
  "\r": "\\r",
  "\x1b": "\\e",
  "\x85": "\\N",
  "\u2028": "\\L",
  "\u2029": "\\P",
};

function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** A one-line double-quoted scalar. */
function doubleQuoted(s: string): string {
  return `"${s.replace(DOUBLE_QUOTED_ESCAPE, escapeChar)}"`;
}

/** A one-line quoted scalar: single quotes only when that avoids escapes. */
function quoted(s: string): string {
  if (s.includes('"') && !s.includes("'") && !s.includes("\n")) {
    return `'${s}'`;
  }
  return doubleQuoted(s);
}

/** First characters of every {@linkcode NON_STRING} match but `""`. */
const NON_STRING_FIRST = new Set("~nNyYtTfFoO0123456789+-.<=");

function loadsAsOtherType(s: string): boolean {
  if (s !== "" && !NON_STRING_FIRST.has(s[0] ?? "")) return false;
  for (const re of NON_STRING) if (re.test(s)) return true;
  return false;
}

/**
 * A literal block scalar (`|`), its content indented by `indent`. Chomping
 * keeps exactly the trailing line feeds; an indentation indicator is added
 * when the content starts with spaces.
 */
function literalBlock(s: string, indent: string): string {
  let endStart = s.length;
  while (endStart > 0) {
    const c = s[endStart - 1];
    if (c !== "\n" && c !== "\t" && c !== " ") break;
    endStart--;
  }
  const end = s.slice(endStart);
  const nl = end.indexOf("\n");
  const chomp = nl === -1
    ? "-"
    : endStart === 0 || nl !== end.length - 1
    ? "+"
    : "";
  const lead = /^[ \n]*/.exec(s)?.[0] ?? "";
  const header = `|${lead.includes(" ") ? "2" : ""}${chomp}`;
  const lines = s.split("\n");
  if (s.endsWith("\n")) lines.pop();
  let body = "";
  lines.forEach((line, i) => {
    body += i === 0 || line !== "" ? `\n${indent}${line}` : "\n";
  });
  return header + body;
}

/**
 * Renders a string in value position (after `key: ` or `- `).
 *
 * @param s The string.
 * @param indent Indentation of block content (the parent's plus two).
 */
export function valueScalar(s: string, indent: string): string {
  if (needsEscape(s)) return doubleQuoted(s);
  if (s.includes("\n")) {
    // A literal block cannot end in a blank line with spaces or tabs, and
    // readers disagree on blocks made only of spaces and line feeds.
    return /\n[\t ]+$|^[ \n]* [ \n]*$/.test(s)
      ? doubleQuoted(s)
      : literalBlock(s, indent);
  }
  if (NOT_PLAIN.test(s) || loadsAsOtherType(s)) return quoted(s);
  return s;
}

/**
 * Renders a mapping key (an implicit key, so always on one line).
 *
 * @param s The key.
 */
export function keyScalar(s: string): string {
  if (needsEscape(s) || s.includes("\n")) return doubleQuoted(s);
  if (
    NOT_PLAIN.test(s) || loadsAsOtherType(s) || s.startsWith("---") ||
    s.startsWith("...")
  ) {
    return quoted(s);
  }
  return s;
}

/**
 * Renders a number as the `yaml` library does.
 *
 * @param n The number.
 */
export function numberScalar(n: number): string {
  if (Number.isNaN(n)) return ".nan";
  if (!Number.isFinite(n)) return n < 0 ? "-.inf" : ".inf";
  return Object.is(n, -0) ? "-0" : JSON.stringify(n);
}
