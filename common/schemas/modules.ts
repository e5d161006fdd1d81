import { Type, type Static } from 'typebox';
import { MODULE_NAME_PATTERN } from '../modules/spec.js';
import { Timestamp } from './shared.js';

export const ModuleName = Type.String({
  pattern: MODULE_NAME_PATTERN,
  description: 'Module name: 1-63 lower-case letters, digits, . _ -, starting with a letter or digit',
});

const ContentHash = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of the exact module text' });

export const ModuleSummary = Type.Object({
  name: ModuleName,
  description: Type.String(),
  revision: Type.Integer({ minimum: 1, description: 'The current revision' }),
  content_hash: ContentHash,
  resource_count: Type.Integer({ minimum: 0 }),
  secrets: Type.Array(Type.String(), { description: 'Names of the secrets the module references (never their values)' }),
  created_at: Timestamp,
  created_by: Type.String(),
  updated_at: Timestamp,
  updated_by: Type.String(),
});
export type ModuleSummary = Static<typeof ModuleSummary>;

export const ModuleRevision = Type.Object({
  revision: Type.Integer({ minimum: 1 }),
  content_hash: ContentHash,
  description: Type.String(),
  resource_count: Type.Integer({ minimum: 0 }),
  secrets: Type.Array(Type.String()),
  created_at: Timestamp,
  created_by: Type.String(),
});
export type ModuleRevision = Static<typeof ModuleRevision>;

/** One revision's content and facts (the current one unless ?revision= asked for another). */
export const ModuleDetails = Type.Object({
  name: ModuleName,
  revision: Type.Integer({ minimum: 1, description: 'The revision shown' }),
  current_revision: Type.Integer({ minimum: 1 }),
  description: Type.String(),
  content_hash: ContentHash,
  content: Type.String({ description: 'The YAML text exactly as uploaded' }),
  resource_count: Type.Integer({ minimum: 0 }),
  secrets: Type.Array(Type.String()),
  revision_created_at: Timestamp,
  revision_created_by: Type.String(),
  created_at: Timestamp,
  created_by: Type.String(),
  updated_at: Timestamp,
  updated_by: Type.String(),
  revisions: Type.Array(ModuleRevision, { description: 'Every revision, newest first' }),
});
export type ModuleDetails = Static<typeof ModuleDetails>;

export const UploadResult = Type.Union([Type.Literal('created'), Type.Literal('revised'), Type.Literal('unchanged')], {
  description: 'created: a new module (201); revised: a new revision of an existing one (200); unchanged: the text equals the current revision, nothing stored (200)',
});
export type UploadResult = Static<typeof UploadResult>;

export const ModuleUploadResponse = Type.Object({ ...ModuleDetails.properties, result: UploadResult });
export type ModuleUploadResponse = Static<typeof ModuleUploadResponse>;

export const ModuleUploadRequest = Type.Object(
  { content: Type.String({ description: 'The module YAML text (at most 2 MiB); the name comes from the YAML' }) },
  { additionalProperties: false },
);
export type ModuleUploadRequest = Static<typeof ModuleUploadRequest>;

export const ModuleText = Type.String({ description: 'The module YAML text itself (at most 2 MiB); the name comes from the YAML' });

export const ModuleParams = Type.Object({ name: ModuleName });
export const ModuleQuery = Type.Object(
  { revision: Type.Optional(Type.Integer({ minimum: 1, description: 'Show this revision instead of the current one' })) },
  { additionalProperties: false },
);
export type ModuleQuery = Static<typeof ModuleQuery>;
