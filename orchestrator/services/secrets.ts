import type { CreateSecretRequest, SecretListQuery, SecretMetadata, UpdateSecretRequest } from '../../common/schemas/secrets.js';
import type { List } from '../../common/schemas/shared.js';
import type { Db } from '../db/database.js';
import { Conflict, NotFound } from '../http/errors.js';
import type { SecretRow, SecretsRepository } from '../repositories/secrets.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { SecretDecryptError, type SecretBox } from './secret-box.js';

/** Which modules reference a secret; the modules service provides it (none until then). */
export type SecretUsers = (name: string) => string[];

/**
 * The rules about secrets. Values go in sealed (secret-box.ts) and come out only
 * through reveal(), which nothing on the HTTP side calls: every read answers metadata.
 */
export class SecretsService {
  private usedByHook: SecretUsers = () => [];

  constructor(
    private readonly db: Db,
    private readonly repo: SecretsRepository,
    private readonly box: SecretBox,
  ) {}

  /**
   * Plugs in the modules that use a secret: shown as used_by, and a delete is refused
   * while any does. Returns the hook it replaces (tests put it back).
   */
  setUsedBy(hook: SecretUsers): SecretUsers {
    const previous = this.usedByHook;
    this.usedByHook = hook;
    return previous;
  }

  usedBy(name: string): string[] {
    return [...new Set(this.usedByHook(name))].sort();
  }

  private toMetadata(row: SecretRow): SecretMetadata {
    return {
      name: row.name,
      description: row.description,
      version: row.version,
      created_at: row.created_at,
      created_by: row.created_by,
      updated_at: row.updated_at,
      updated_by: row.updated_by,
      used_by: this.usedBy(row.name),
    };
  }

  private require(name: string): SecretRow {
    const row = this.repo.get(name);
    if (!row) throw new NotFound(`secret ${name} does not exist`, 'secret-not-found');
    return row;
  }

  /** The version of a secret's value (operations record which version they used), undefined when unknown. */
  versionOf(name: string): number | undefined {
    return this.repo.get(name)?.version;
  }

  exists(name: string): boolean {
    return this.repo.get(name) !== undefined;
  }

  get(name: string): SecretMetadata {
    return this.toMetadata(this.require(name));
  }

  list(q: SecretListQuery): List<SecretMetadata> {
    const limit = q.limit ?? 100;
    const after = q.cursor === undefined ? '' : String(decodeCursor(q.cursor, 'after'));
    const rows = this.repo.page(after, limit + 1);
    const more = rows.length > limit;
    const items = rows.slice(0, limit).map((r) => this.toMetadata(r));
    return { items, next_cursor: more ? encodeCursor({ after: items[items.length - 1]!.name }) : null };
  }

  create(req: CreateSecretRequest, actor: string): SecretMetadata {
    const at = new Date().toISOString();
    return this.db.transaction(() => {
      if (this.repo.get(req.name)) throw new Conflict(`secret ${req.name} already exists; PUT /secrets/${req.name} changes it`, 'secret-exists');
      this.repo.insert({ name: req.name, description: req.description ?? '', ciphertext: this.box.seal(req.name, req.value), at, by: actor });
      return this.get(req.name);
    })();
  }

  /**
   * Changes the value and/or the description. Any value given counts as a change and
   * bumps the version, even one equal to the old: comparing would let someone who may
   * write but not read a secret test guesses against it by watching the version.
   */
  update(name: string, req: UpdateSecretRequest, actor: string): { secret: SecretMetadata; valueChanged: boolean; descriptionChanged: boolean } {
    const at = new Date().toISOString();
    return this.db.transaction(() => {
      const before = this.require(name);
      const valueChanged = req.value !== undefined;
      const descriptionChanged = req.description !== undefined && req.description !== before.description;
      if (req.value !== undefined) this.repo.updateValue(name, this.box.seal(name, req.value), at, actor);
      if (req.description !== undefined) this.repo.updateDescription(name, req.description, at, actor);
      return { secret: this.get(name), valueChanged, descriptionChanged };
    })();
  }

  /** Deletes a secret no module uses; 409 secret-in-use names the modules otherwise. */
  remove(name: string): SecretMetadata {
    return this.db.transaction(() => {
      const secret = this.get(name);
      if (secret.used_by.length) {
        throw new Conflict(
          `secret ${name} is used by module${secret.used_by.length > 1 ? 's' : ''} ${secret.used_by.join(', ')}; change or delete ${secret.used_by.length > 1 ? 'them' : 'it'} first`,
          'secret-in-use',
        );
      }
      this.repo.delete(name);
      return secret;
    })();
  }

  /**
   * The plaintext value, for applies (inside the orchestrator only; no route calls this).
   * Throws NotFound for an unknown name and SecretDecryptError when the master key is
   * not the one the value was sealed with; neither message contains the value.
   */
  reveal(name: string): string {
    const blob = this.repo.ciphertext(name);
    if (!blob) throw new NotFound(`secret ${name} does not exist`, 'secret-not-found');
    return this.box.open(name, blob);
  }

  /** Every value this key can open, for masking what Corral cannot tell apart (terminal transcripts). */
  allValues(): string[] {
    const values: string[] = [];
    for (const { name, ciphertext } of this.repo.allCiphertexts()) {
      try {
        values.push(this.box.open(name, ciphertext));
      } catch {
        // sealed under another key: it cannot be in use here either
      }
    }
    return values;
  }

  /** Names of the secrets this master key cannot open (checked at start; a mismatch is logged, not fatal). */
  undecryptable(): string[] {
    const bad: string[] = [];
    for (const { name, ciphertext } of this.repo.allCiphertexts()) {
      try {
        this.box.open(name, ciphertext);
      } catch (err) {
        if (!(err instanceof SecretDecryptError)) throw err;
        bad.push(name);
      }
    }
    return bad;
  }
}
