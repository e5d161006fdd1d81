import type { Db } from '../db/database.js';

export interface ModuleRow {
  name: string;
  current_revision: number;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

export interface RevisionRow {
  name: string;
  revision: number;
  content: string;
  content_hash: string;
  description: string;
  resource_count: number;
  /** JSON array of secret names. */
  secrets: string;
  created_at: string;
  created_by: string;
}

export type RevisionSummaryRow = Omit<RevisionRow, 'content' | 'name'>;

/** A module with its current revision's facts, as lists show it. */
export type ModuleWithCurrentRow = ModuleRow & Omit<RevisionRow, 'name' | 'revision' | 'content' | 'created_at' | 'created_by'>;

export type NewRevision = Omit<RevisionRow, 'created_at' | 'created_by'>;

export class ModulesRepository {
  private readonly selectModule;
  private readonly selectRevision;
  private readonly selectRevisions;
  private readonly selectPage;
  private readonly insertModule;
  private readonly bumpModule;
  private readonly insertRevision;
  private readonly deleteModule;
  private readonly selectCurrentSecrets;

  constructor(private readonly db: Db) {
    this.selectModule = db.prepare<[string], ModuleRow>('SELECT * FROM modules WHERE name = ?');
    this.selectRevision = db.prepare<[string, number], RevisionRow>('SELECT * FROM module_revisions WHERE name = ? AND revision = ?');
    this.selectRevisions = db.prepare<[string], RevisionSummaryRow>(
      `SELECT revision, content_hash, description, resource_count, secrets, created_at, created_by
         FROM module_revisions WHERE name = ? ORDER BY revision DESC`,
    );
    this.selectPage = db.prepare<[string, number], ModuleWithCurrentRow>(
      `SELECT m.*, r.content_hash, r.description, r.resource_count, r.secrets
         FROM modules m JOIN module_revisions r ON r.name = m.name AND r.revision = m.current_revision
        WHERE m.name > ? ORDER BY m.name LIMIT ?`,
    );
    this.insertModule = db.prepare(
      `INSERT INTO modules (name, current_revision, created_at, created_by, updated_at, updated_by)
       VALUES (@name, 1, @at, @by, @at, @by)`,
    );
    this.bumpModule = db.prepare('UPDATE modules SET current_revision = @revision, updated_at = @at, updated_by = @by WHERE name = @name');
    this.insertRevision = db.prepare(
      `INSERT INTO module_revisions (name, revision, content, content_hash, description, resource_count, secrets, created_at, created_by)
       VALUES (@name, @revision, @content, @content_hash, @description, @resource_count, @secrets, @at, @by)`,
    );
    this.deleteModule = db.prepare('DELETE FROM modules WHERE name = ?');
    this.selectCurrentSecrets = db.prepare<[], { name: string; secrets: string }>(
      `SELECT m.name, r.secrets FROM modules m JOIN module_revisions r ON r.name = m.name AND r.revision = m.current_revision ORDER BY m.name`,
    );
  }

  get(name: string): ModuleRow | undefined {
    return this.selectModule.get(name);
  }

  revision(name: string, revision: number): RevisionRow | undefined {
    return this.selectRevision.get(name, revision);
  }

  /** Newest first. */
  revisionByHash(name: string, hash: string): RevisionRow | undefined {
    return this.db.prepare<[string, string], RevisionRow>('SELECT * FROM module_revisions WHERE name = ? AND content_hash = ? ORDER BY revision DESC LIMIT 1').get(name, hash);
  }

  revisions(name: string): RevisionSummaryRow[] {
    return this.selectRevisions.all(name);
  }

  /** Keyset page by name: modules after `after`, at most `limit`. */
  page(after: string, limit: number): ModuleWithCurrentRow[] {
    return this.selectPage.all(after, limit);
  }

  /** A new module with its first revision. */
  create(rev: NewRevision, by: string, at: string): void {
    this.insertModule.run({ name: rev.name, at, by });
    this.insertRevision.run({ ...rev, at, by });
  }

  /** A further revision, made current. */
  addRevision(rev: NewRevision, by: string, at: string): void {
    this.insertRevision.run({ ...rev, at, by });
    this.bumpModule.run({ name: rev.name, revision: rev.revision, at, by });
  }

  /** Removes the module and, by cascade, every revision. */
  delete(name: string): boolean {
    return this.deleteModule.run(name).changes > 0;
  }

  /** Each module's current secret references (for "which modules use this secret"). */
  currentSecrets(): { name: string; secrets: string[] }[] {
    return this.selectCurrentSecrets.all().map((r) => ({ name: r.name, secrets: JSON.parse(r.secrets) as string[] }));
  }
}
