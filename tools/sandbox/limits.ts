/**
 * Host limits of the tools. Configuration may only lower them.
 *
 * @module
 */

/**
 * Every limit the tools enforce.
 */
export interface ToolLimits {
  /** Bytes per `read_file` (glob: total). */
  readBytes: number;
  /** Leading bytes probed for NUL (binary refusal). */
  binaryProbeBytes: number;
  /** Files a `read_file` glob may match. */
  globMatches: number;
  /** Entries a `list_directory` returns. */
  listEntries: number;
  /** Directory entries a walk may visit before it stops. */
  walkVisits: number;
  /** Default child-process timeout. */
  processTimeoutMs: number;
  /** Ceiling of a configured `run_command` `timeoutMs`. */
  processTimeoutCeilingMs: number;
  /** Captured bytes per child stream. */
  processOutputBytes: number;
  /** Bytes of an `http_request` response body (over ⇒ failure). */
  httpBodyBytes: number;
  /** `http_request` timeout. */
  httpTimeoutMs: number;
  /** Model-facing result bytes (bounding). */
  resultBytes: number;
  /** Model-facing result lines (bounding). */
  resultLines: number;
}

/**
 * The defaults.
 */
export const DEFAULT_TOOL_LIMITS: Readonly<ToolLimits> = Object.freeze({
  readBytes: 8 * 1024 * 1024,
  binaryProbeBytes: 8192,
  globMatches: 200,
  listEntries: 1000,
  walkVisits: 20_000,
  processTimeoutMs: 30_000,
  processTimeoutCeilingMs: 120_000,
  processOutputBytes: 1024 * 1024,
  httpBodyBytes: 1024 * 1024,
  httpTimeoutMs: 30_000,
  resultBytes: 50 * 1024,
  resultLines: 2000,
});

/**
 * Applies overrides that may only lower the defaults.
 *
 * @param overrides Lower values for some limits.
 * @returns The effective limits.
 * @throws {RangeError} When a value is not a positive integer or raises a
 *   default.
 */
export function resolveToolLimits(
  overrides: Partial<ToolLimits> = {},
): ToolLimits {
  const out: ToolLimits = { ...DEFAULT_TOOL_LIMITS };
  for (const key of Object.keys(overrides) as (keyof ToolLimits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (!(key in DEFAULT_TOOL_LIMITS)) {
      throw new RangeError(`Cannot set tool limit: unknown limit ${key}`);
    }
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(
        `Cannot set tool limit: ${key} must be a positive integer`,
      );
    }
    if (value > DEFAULT_TOOL_LIMITS[key]) {
      throw new RangeError(
        `Cannot set tool limit: ${key} may only lower the default of ${
          DEFAULT_TOOL_LIMITS[key]
        }`,
      );
    }
    out[key] = value;
  }
  return out;
}
