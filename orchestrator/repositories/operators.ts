import type { Role } from '../../common/auth.js';
import type { Operator } from '../../common/schemas/operators.js';
import type { Db } from '../db/database.js';

export interface StoredKey {
  fingerprint: string;
  operator_id: string;
  public_key: string;
}

interface OperatorRow {
  operator_id: string;
  name: string;
  role: Role;
  created_at: string;
}

export class OperatorsRepository {
  private readonly selectAll;
  private readonly selectOne;
  private readonly selectKeys;
  private readonly selectAllKeys;
  private readonly insertOperator;
  private readonly insertKey;
  private readonly deleteOperator;
  private readonly deleteKeyStmt;
  private readonly countAdmins;
  private readonly countAll;
  private readonly keyByFingerprint;

  constructor(private readonly db: Db) {
    this.selectAll = db.prepare<[string, number], OperatorRow>(
      'SELECT * FROM operators WHERE operator_id > ? ORDER BY operator_id LIMIT ?',
    );
    this.selectOne = db.prepare<[string], OperatorRow>('SELECT * FROM operators WHERE operator_id = ?');
    this.selectKeys = db.prepare<[string], StoredKey>(
      'SELECT * FROM operator_keys WHERE operator_id = ? ORDER BY created_at, fingerprint',
    );
    this.selectAllKeys = db.prepare<[], StoredKey>('SELECT * FROM operator_keys ORDER BY created_at, fingerprint');
    this.insertOperator = db.prepare('INSERT INTO operators (operator_id, name, role, created_at) VALUES (?, ?, ?, ?)');
    this.insertKey = db.prepare(
      'INSERT INTO operator_keys (fingerprint, operator_id, public_key, created_at) VALUES (?, ?, ?, ?)',
    );
    this.deleteOperator = db.prepare('DELETE FROM operators WHERE operator_id = ?');
    this.deleteKeyStmt = db.prepare('DELETE FROM operator_keys WHERE operator_id = ? AND fingerprint = ?');
    this.countAdmins = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM operators WHERE role = 'admin'");
    this.countAll = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM operators');
    this.keyByFingerprint = db.prepare<[string], StoredKey>('SELECT * FROM operator_keys WHERE fingerprint = ?');
  }

  private withKeys(row: OperatorRow, keys = this.selectKeys.all(row.operator_id)): Operator {
    return { ...row, public_keys: keys.map((k) => k.public_key) };
  }

  /** Keyset page ordered by operator_id, starting after `after`. */
  list(after: string, limit: number): Operator[] {
    const rows = this.selectAll.all(after, limit);
    const keys = new Map<string, StoredKey[]>();
    for (const k of this.selectAllKeys.all()) {
      const list = keys.get(k.operator_id) ?? [];
      list.push(k);
      keys.set(k.operator_id, list);
    }
    return rows.map((r) => this.withKeys(r, keys.get(r.operator_id) ?? []));
  }

  get(operatorId: string): Operator | undefined {
    const row = this.selectOne.get(operatorId);
    return row && this.withKeys(row);
  }

  keys(operatorId: string): StoredKey[] {
    return this.selectKeys.all(operatorId);
  }

  keyByPrint(fingerprint: string): StoredKey | undefined {
    return this.keyByFingerprint.get(fingerprint);
  }

  insert(op: { operator_id: string; name: string; role: Role }, keys: { fingerprint: string; line: string }[]): void {
    const now = new Date().toISOString();
    this.insertOperator.run(op.operator_id, op.name, op.role, now);
    for (const k of keys) this.insertKey.run(k.fingerprint, op.operator_id, k.line, now);
  }

  addKey(operatorId: string, fingerprint: string, line: string): void {
    this.insertKey.run(fingerprint, operatorId, line, new Date().toISOString());
  }

  removeKey(operatorId: string, fingerprint: string): boolean {
    return this.deleteKeyStmt.run(operatorId, fingerprint).changes > 0;
  }

  remove(operatorId: string): boolean {
    return this.deleteOperator.run(operatorId).changes > 0;
  }

  adminCount(): number {
    return this.countAdmins.get()!.n;
  }

  count(): number {
    return this.countAll.get()!.n;
  }
}
