/**
 * The command line split into options and positionals, by the rules of
 * `node:util` `parseArgs` (with `allowPositionals` and `allowNegative`):
 * `--name value` and `--name=value` for a string option (a string option
 * takes the next argument whatever it starts with), `-x` for a short
 * boolean and `-xy` for several, `--no-name` for a boolean's false, and
 * everything after `--` positional. It is written here so that parsing a
 * line loads no `node:*` module (the first one brings the Node compatibility
 * layer, which a one-shot command does not otherwise need).
 *
 * Strict parsing stops at the first fault with its message; lenient parsing
 * keeps unknown options as values and never fails.
 *
 * @module
 */

/** One option's declaration. */
export interface OptionSpec {
  readonly type: "boolean" | "string";
  readonly short?: string;
  readonly multiple?: boolean;
}

/** A split command line, or the first fault of a strict parse. */
export type SplitArgv =
  | {
    ok: true;
    values: Record<string, string | boolean | Array<string | boolean>>;
    positionals: string[];
    /** Each option as written (`--name`, `-x`), in order. */
    optionNames: string[];
  }
  | { ok: false; message: string };

interface Token {
  name: string;
  rawName: string;
  value: string | undefined;
  inline: boolean;
}

function longFor(
  short: string,
  options: Readonly<Record<string, OptionSpec>>,
): string {
  for (const [name, spec] of Object.entries(options)) {
    if (spec.short === short) return name;
  }
  return short;
}

function typeOf(
  name: string,
  options: Readonly<Record<string, OptionSpec>>,
): string | undefined {
  return Object.hasOwn(options, name) ? options[name]?.type : undefined;
}

/**
 * Splits `argv` into option values and positionals.
 *
 * @param argv The arguments after the program name.
 * @param options The options, by long name.
 * @param strict Whether an unknown option or a wrong value is a fault.
 * @returns The values, positionals and options as written, or a fault.
 */
export function splitArgv(
  argv: readonly string[],
  options: Readonly<Record<string, OptionSpec>>,
  strict: boolean,
): SplitArgv {
  const tokens: Token[] = [];
  const positionals: string[] = [];
  const rest = [...argv];
  while (rest.length > 0) {
    const arg = rest.shift() ?? "";
    const next = rest[0];
    if (arg === "--") {
      positionals.push(...rest);
      break;
    }
    if (arg.length === 2 && arg[0] === "-" && arg[1] !== "-") {
      const name = longFor(arg[1] ?? "", options);
      const takes = typeOf(name, options) === "string" && next !== undefined;
      tokens.push({
        name,
        rawName: arg,
        value: takes ? rest.shift() : undefined,
        inline: false,
      });
      continue;
    }
    if (arg.length > 2 && arg[0] === "-" && arg[1] !== "-") {
      const first = longFor(arg[1] ?? "", options);
      if (typeOf(first, options) === "string") {
        // -fVALUE: a string option and its value.
        tokens.push({
          name: first,
          rawName: arg.slice(0, 2),
          value: arg.slice(2),
          inline: true,
        });
        continue;
      }
      // A group: -xy is -x -y; a string option in it takes the rest.
      const expanded: string[] = [];
      for (let i = 1; i < arg.length; i++) {
        const short = arg[i] ?? "";
        if (
          typeOf(longFor(short, options), options) !== "string" ||
          i === arg.length - 1
        ) {
          expanded.push(`-${short}`);
        } else {
          expanded.push(`-${arg.slice(i)}`);
          break;
        }
      }
      rest.unshift(...expanded);
      continue;
    }
    if (arg.length > 2 && arg.startsWith("--")) {
      const eq = arg.indexOf("=", 3);
      if (eq === -1) {
        const name = arg.slice(2);
        const takes = typeOf(name, options) === "string" &&
          next !== undefined;
        tokens.push({
          name,
          rawName: arg,
          value: takes ? rest.shift() : undefined,
          inline: false,
        });
      } else {
        const name = arg.slice(2, eq);
        tokens.push({
          name,
          rawName: `--${name}`,
          value: arg.slice(eq + 1),
          inline: true,
        });
      }
      continue;
    }
    // Positionals keep their place relative to options only in order.
    tokens.push({ name: "", rawName: "", value: arg, inline: false });
  }
  const values: Record<string, string | boolean | Array<string | boolean>> = {};
  const optionNames: string[] = [];
  const ordered: string[] = [];
  for (const t of tokens) {
    if (t.rawName === "") {
      ordered.push(t.value ?? "");
      continue;
    }
    let name = t.name;
    let value: string | boolean = t.value ?? true;
    const negated = !Object.hasOwn(options, name) && name.startsWith("no-");
    if (negated && typeOf(name.slice(3), options) !== "string") {
      if (strict && typeOf(name.slice(3), options) !== "boolean") {
        return { ok: false, message: `Unknown option: ${t.rawName}` };
      }
      name = name.slice(3);
      value = false;
    } else if (
      (strict || negated) && !Object.hasOwn(options, name)
    ) {
      // (A negated string option is a fault even when lenient.)
      return { ok: false, message: `Unknown option: ${t.rawName}` };
    }
    if (strict) {
      const type = typeOf(name, options);
      if (type === "string" && t.value === undefined) {
        return { ok: false, message: `Missing value for ${t.rawName}` };
      }
      if (type === "boolean" && t.value !== undefined) {
        return {
          ok: false,
          message: `Option ${t.rawName} does not take a value`,
        };
      }
      if (
        !t.inline && t.value !== undefined && t.value.length > 1 &&
        t.value[0] === "-"
      ) {
        return {
          ok: false,
          message:
            `Missing value for ${t.rawName} (write ${t.rawName}=<value> for a value starting with "-")`,
        };
      }
    }
    optionNames.push(t.rawName);
    if (name === "__proto__") continue;
    if (Object.hasOwn(options, name) && options[name]?.multiple === true) {
      const list = values[name];
      if (Array.isArray(list)) list.push(value);
      else values[name] = [value];
    } else {
      values[name] = value;
    }
  }
  return {
    ok: true,
    values,
    positionals: [...ordered, ...positionals],
    optionNames,
  };
}
