/**
 * The provider seam and what is built on it: the request and chunk types a
 * provider speaks, the errors it returns, the fallback chain, the model
 * catalog and cost, the scripted and replay providers, and cassettes.
 *
 * @module
 */
export type {
  ContentPart,
  LlmMessage,
  LlmProvider,
  LlmRequest,
  ProviderSupports,
  ToolDef,
} from "./provider.ts";
export type {
  LlmError,
  LlmErrorKind,
  StopReason,
  StreamChunk,
  Usage,
} from "./chunk.ts";
export { LlmProviderError, makeLlmError } from "./errors.ts";
export type { ModelCatalog, ModelInfo } from "./catalog.ts";
export { createCatalog } from "./create_catalog.ts";
export {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedProviderOptions,
} from "./scripted_provider.ts";
export {
  type Cassette,
  type CassetteError,
  parseCassette,
} from "./cassette.ts";
export {
  type AdapterSettings,
  createProviderRegistry,
  type ProviderEntry,
  type ProviderRegistry,
} from "./provider_registry.ts";
export type { ProviderKind } from "./provider_table.ts";
export { createRecorder, type Recorder } from "./record.ts";
export { type EnvReader, MissingKeyError } from "./keys.ts";
export type { ErrorCode, SessionError } from "../schema/event.ts";
export type { Result } from "../schema/result.ts";
export type { ValidationIssue } from "../schema/issues.ts";

// The types the signatures above refer to, so this entry point documents
// them too.
export type { FetchFn } from "./http.ts";
