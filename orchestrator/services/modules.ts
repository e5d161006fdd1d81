import { createHash } from 'node:crypto';
import { formatModuleError, MAX_MODULE_BYTES, parseModule, type ModuleDefinition } from '../../common/modules/index.js';
import type { ModuleDetails, ModuleSummary, UploadResult } from '../../common/schemas/modules.js';
import type { List } from '../../common/schemas/shared.js';
import type { Db } from '../db/database.js';
import { BadRequest, Conflict, HttpError, NotFound } from '../http/errors.js';
import type { ModuleRow, ModulesRepository, RevisionRow } from '../repositories/modules.js';
import { decodeCursor, encodeCursor } from './cursor.js';

export interface ModulesOptions {
  /** Whether a secret exists; module references to unknown secrets are refused at upload. */
  secretExists: (name: string) => boolean;
  /**
   * Names of the assignments that use a module. The assignments service, built after this
   * one, plugs in through setAssignmentsLookup; until then the answer is "none".
   */
  assignmentsUsing?: (moduleName: string) => string[];
}

export interface UploadOutcome {
  result: UploadResult;
  module: ModuleDetails;
}

/** A module revision as work (apply, plan) will use it: the exact text and its hash. */
export interface ModuleContent {
  name: string;
  revision: number;
  content: string;
  content_hash: string;
  definition: ModuleDefinition;
  secrets: string[];
}

/** Parsed revisions kept (oldest dropped first). */
const PARSED_CACHE_SIZE = 64;

export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The rules about modules: validation at upload, revisions, what may be deleted. */
export class ModulesService {
  private secretExists: (name: string) => boolean;
  private readonly parsed = new Map<string, Pick<ModuleContent, 'definition' | 'secrets'>>();
  private assignmentsUsing: (moduleName: string) => string[];

  constructor(
    private readonly db: Db,
    private readonly repo: ModulesRepository,
    options: ModulesOptions,
  ) {
    this.secretExists = options.secretExists;
    this.assignmentsUsing = options.assignmentsUsing ?? (() => []);
  }

  setSecretLookup(secretExists: (name: string) => boolean): void {
    this.secretExists = secretExists;
  }

  setAssignmentsLookup(assignmentsUsing: (moduleName: string) => string[]): void {
    this.assignmentsUsing = assignmentsUsing;
  }

  /**
   * Validates and stores. A new name makes revision 1 ('created'); a changed text of a
   * known name makes the next revision ('revised'); the same text as the current
   * revision stores nothing ('unchanged'). An invalid module stores nothing.
   */
  upload(text: string, actor: string, now = new Date().toISOString()): UploadOutcome {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_MODULE_BYTES) {
      throw new HttpError(413, 'module-too-large', 'Module too large', `the module is ${bytes} bytes; at most ${MAX_MODULE_BYTES} (2 MiB) are allowed`);
    }
    const parsed = parseModule(text, { secretExists: (name) => this.secretExists(name) });
    if (!parsed.ok) {
      const errors = parsed.errors.map((e) => ({
        field: 'body.content',
        message: formatModuleError(e),
        line: e.line,
        ...(e.resource !== undefined ? { resource: e.resource } : {}),
      }));
      const n = errors.length;
      throw new BadRequest(`the module is invalid (${n} error${n === 1 ? '' : 's'}): ${errors[0]!.message}`, errors, 'invalid-module');
    }
    const { module: def, secrets } = parsed;
    const hash = contentHash(text);
    const result = this.db.transaction((): UploadResult => {
      const existing = this.repo.get(def.name);
      const rev = {
        name: def.name,
        content: text,
        content_hash: hash,
        description: def.description,
        resource_count: def.resources.length,
        secrets: JSON.stringify(secrets),
      };
      if (!existing) {
        this.repo.create({ ...rev, revision: 1 }, actor, now);
        return 'created';
      }
      if (this.repo.revision(def.name, existing.current_revision)?.content_hash === hash) return 'unchanged';
      this.repo.addRevision({ ...rev, revision: existing.current_revision + 1 }, actor, now);
      return 'revised';
    })();
    return { result, module: this.get(def.name) };
  }

  exists(name: string): boolean {
    return this.repo.get(name) !== undefined;
  }

  require(name: string): ModuleRow {
    const row = this.repo.get(name);
    if (!row) throw new NotFound(`module ${name} does not exist`, 'module-not-found');
    return row;
  }

  private requireRevision(name: string, revision: number): RevisionRow {
    const row = this.repo.revision(name, revision);
    if (!row) throw new NotFound(`module ${name} has no revision ${revision}`, 'revision-not-found');
    return row;
  }

  get(name: string, revision?: number): ModuleDetails {
    const m = this.require(name);
    const r = this.requireRevision(name, revision ?? m.current_revision);
    return {
      name,
      revision: r.revision,
      current_revision: m.current_revision,
      description: r.description,
      content_hash: r.content_hash,
      content: r.content,
      resource_count: r.resource_count,
      secrets: JSON.parse(r.secrets) as string[],
      revision_created_at: r.created_at,
      revision_created_by: r.created_by,
      created_at: m.created_at,
      created_by: m.created_by,
      updated_at: m.updated_at,
      updated_by: m.updated_by,
      revisions: this.repo.revisions(name).map((x) => ({ ...x, secrets: JSON.parse(x.secrets) as string[] })),
    };
  }

  /** The current (or a given) revision parsed, for apply and plan. */
  content(name: string, revision?: number): ModuleContent {
    const m = this.require(name);
    return this.toContent(name, this.requireRevision(name, revision ?? m.current_revision));
  }

  /** The revision an operation used, found by its content hash (deleted modules have none). */
  contentByHash(name: string, hash: string): ModuleContent {
    const r = this.repo.revisionByHash(name, hash);
    if (!r) throw new NotFound(`module ${name} no longer has the revision (content ${hash.slice(0, 12)}) that was applied; it was deleted`, 'revision-not-found');
    return this.toContent(name, r);
  }

  /**
   * A stored revision parsed. An assignment over many agents asks for the same revisions
   * once per agent, so parsed texts are kept by content hash (they never change; treated
   * as read-only by everyone who gets them).
   */
  private toContent(name: string, r: RevisionRow): ModuleContent {
    let parsed = this.parsed.get(r.content_hash);
    if (!parsed) {
      const result = parseModule(r.content);
      if (!result.ok) throw new Error(`stored module ${name} revision ${r.revision} no longer parses: ${formatModuleError(result.errors[0]!)}`);
      parsed = { definition: result.module, secrets: result.secrets };
      if (this.parsed.size >= PARSED_CACHE_SIZE) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(r.content_hash, parsed);
    }
    return { name, revision: r.revision, content: r.content, content_hash: r.content_hash, ...parsed };
  }

  /** Ordered by name, keyset pages. */
  list(q: { limit?: number; cursor?: string }): List<ModuleSummary> {
    const limit = q.limit ?? 100;
    const after = q.cursor === undefined ? '' : String(decodeCursor(q.cursor, 'after'));
    const rows = this.repo.page(after, limit + 1);
    const items = rows.slice(0, limit).map(
      (r): ModuleSummary => ({
        name: r.name,
        description: r.description,
        revision: r.current_revision,
        content_hash: r.content_hash,
        resource_count: r.resource_count,
        secrets: JSON.parse(r.secrets) as string[],
        created_at: r.created_at,
        created_by: r.created_by,
        updated_at: r.updated_at,
        updated_by: r.updated_by,
      }),
    );
    return { items, next_cursor: rows.length > limit ? encodeCursor({ after: items[items.length - 1]!.name }) : null };
  }

  /** Deletes every revision; refused while an assignment uses the module. */
  remove(name: string): { revision: number; content_hash: string } {
    return this.db.transaction(() => {
      const m = this.require(name);
      const users = this.assignmentsUsing(name);
      if (users.length) {
        throw new Conflict(`module ${name} is used by assignment${users.length === 1 ? '' : 's'} ${users.join(', ')}; remove it from ${users.length === 1 ? 'that assignment' : 'those assignments'} first`, 'module-in-use');
      }
      const current = this.requireRevision(name, m.current_revision);
      this.repo.delete(name);
      return { revision: m.current_revision, content_hash: current.content_hash };
    })();
  }

  /** Modules whose current revision references the secret (for the secrets pages). */
  usingSecret(secretName: string): string[] {
    return this.repo
      .currentSecrets()
      .filter((m) => m.secrets.includes(secretName))
      .map((m) => m.name);
  }
}
