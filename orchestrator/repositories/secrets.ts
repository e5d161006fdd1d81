import type { Db } from '../db/database.js';

/** A secret's row without its sealed value: what every read works from. */
export interface SecretRow {
  name: string;
  description: string;
  version: number;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

export interface NewSecret {
  name: string;
  description: string;
  ciphertext: Buffer;
  at: string;
  by: string;
}

const METADATA = 'name, description, version, created_at, created_by, updated_at, updated_by';

export class SecretsRepository {
  private readonly selectOne;
  private readonly selectPage;
  private readonly selectCipher;
  private readonly selectAllCiphers;
  private readonly insertStmt;
  private readonly updateValueStmt;
  private readonly updateDescriptionStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.selectOne = db.prepare<[string], SecretRow>(`SELECT ${METADATA} FROM secrets WHERE name = ?`);
    this.selectPage = db.prepare<[string, number], SecretRow>(`SELECT ${METADATA} FROM secrets WHERE name > ? ORDER BY name LIMIT ?`);
    this.selectCipher = db.prepare<[string], { ciphertext: Buffer }>('SELECT ciphertext FROM secrets WHERE name = ?');
    this.selectAllCiphers = db.prepare<[], { name: string; ciphertext: Buffer }>('SELECT name, ciphertext FROM secrets ORDER BY name');
    this.insertStmt = db.prepare(
      `INSERT INTO secrets (name, description, version, ciphertext, created_at, created_by, updated_at, updated_by)
       VALUES (@name, @description, 1, @ciphertext, @at, @by, @at, @by)`,
    );
    this.updateValueStmt = db.prepare(
      'UPDATE secrets SET ciphertext = @ciphertext, version = version + 1, updated_at = @at, updated_by = @by WHERE name = @name',
    );
    this.updateDescriptionStmt = db.prepare('UPDATE secrets SET description = @description, updated_at = @at, updated_by = @by WHERE name = @name');
    this.deleteStmt = db.prepare('DELETE FROM secrets WHERE name = ?');
  }

  get(name: string): SecretRow | undefined {
    return this.selectOne.get(name);
  }

  /** Keyset page ordered by name, starting after `after`. */
  page(after: string, limit: number): SecretRow[] {
    return this.selectPage.all(after, limit);
  }

  ciphertext(name: string): Buffer | undefined {
    return this.selectCipher.get(name)?.ciphertext;
  }

  allCiphertexts(): { name: string; ciphertext: Buffer }[] {
    return this.selectAllCiphers.all();
  }

  insert(secret: NewSecret): void {
    this.insertStmt.run(secret);
  }

  /** New sealed value; the version goes up by one. */
  updateValue(name: string, ciphertext: Buffer, at: string, by: string): void {
    this.updateValueStmt.run({ name, ciphertext, at, by });
  }

  updateDescription(name: string, description: string, at: string, by: string): void {
    this.updateDescriptionStmt.run({ name, description, at, by });
  }

  delete(name: string): boolean {
    return this.deleteStmt.run(name).changes > 0;
  }
}
