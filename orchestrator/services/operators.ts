import type { Role } from '../../common/auth.js';
import type { CreateOperatorRequest, Operator } from '../../common/schemas/operators.js';
import type { List } from '../../common/schemas/shared.js';
import type { Db } from '../db/database.js';
import { Conflict, NotFound } from '../http/errors.js';
import type { OperatorsRepository } from '../repositories/operators.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { parseOperatorKey } from './keys.js';

export const FIRST_ADMIN_ID = 'admin';

/** The rules about operators: unique ids and keys, at least one admin, at least one key each. */
export class OperatorsService {
  private readonly removedListeners: ((operatorId: string) => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly repo: OperatorsRepository,
  ) {}

  /** Later features (terminals) close what an operator had open when the operator goes. */
  onRemoved(listener: (operatorId: string) => void): void {
    this.removedListeners.push(listener);
  }

  list(limit: number, cursor?: string): List<Operator> {
    const after = cursor === undefined ? '' : String(decodeCursor(cursor, 'after'));
    const items = this.repo.list(after, limit + 1);
    const more = items.length > limit;
    if (more) items.pop();
    return { items, next_cursor: more ? encodeCursor({ after: items[items.length - 1]!.operator_id }) : null };
  }

  get(operatorId: string): Operator {
    const op = this.repo.get(operatorId);
    if (!op) throw new NotFound(`operator ${operatorId} does not exist`, 'operator-not-found');
    return op;
  }

  find(operatorId: string): Operator | undefined {
    return this.repo.get(operatorId);
  }

  count(): number {
    return this.repo.count();
  }

  create(req: CreateOperatorRequest): Operator {
    const keys = req.public_keys.map((line, i) => {
      const parsed = parseOperatorKey(line, `body.public_keys.${i}`);
      return { fingerprint: parsed.fingerprint, line: line.trim() };
    });
    const unique = new Set(keys.map((k) => k.fingerprint));
    if (unique.size !== keys.length) throw new Conflict('the same key is listed twice', 'duplicate-key');
    return this.db.transaction(() => {
      if (this.repo.get(req.operator_id)) throw new Conflict(`operator ${req.operator_id} already exists`, 'operator-exists');
      for (const k of keys) {
        const owner = this.repo.keyByPrint(k.fingerprint);
        if (owner) throw new Conflict(`key ${k.fingerprint} already belongs to operator ${owner.operator_id}`, 'key-in-use');
      }
      this.repo.insert({ operator_id: req.operator_id, name: req.name ?? req.operator_id, role: req.role }, keys);
      return this.repo.get(req.operator_id)!;
    })();
  }

  remove(operatorId: string): Operator {
    const removed = this.db.transaction(() => {
      const op = this.get(operatorId);
      if (op.role === 'admin' && this.repo.adminCount() <= 1) {
        throw new Conflict(`${operatorId} is the last admin; add another admin first`, 'last-admin');
      }
      this.repo.remove(operatorId);
      return op;
    })();
    for (const listener of this.removedListeners) listener(operatorId);
    return removed;
  }

  addKey(operatorId: string, line: string): Operator {
    const parsed = parseOperatorKey(line, 'body.public_key');
    return this.db.transaction(() => {
      this.get(operatorId);
      const owner = this.repo.keyByPrint(parsed.fingerprint);
      if (owner) throw new Conflict(`key ${parsed.fingerprint} already belongs to operator ${owner.operator_id}`, 'key-in-use');
      this.repo.addKey(operatorId, parsed.fingerprint, line.trim());
      return this.repo.get(operatorId)!;
    })();
  }

  removeKey(operatorId: string, fingerprint: string): Operator {
    return this.db.transaction(() => {
      const keys = this.repo.keys(operatorId);
      if (!keys.some((k) => k.fingerprint === fingerprint)) throw new NotFound(`no key ${fingerprint} on ${operatorId}`, 'key-not-found');
      if (keys.length === 1) throw new Conflict('this is your only key; add another before removing it', 'last-key');
      this.repo.removeKey(operatorId, fingerprint);
      return this.repo.get(operatorId)!;
    })();
  }

  keyOwner(fingerprint: string): string | undefined {
    return this.repo.keyByPrint(fingerprint)?.operator_id;
  }

  operatorKeys(operatorId: string) {
    return this.repo.keys(operatorId);
  }

  /**
   * Creates the first admin from a public key. Does nothing when operators
   * exist already, so `--admin-key` can stay in a service file.
   */
  bootstrapAdmin(line: string, name = 'Administrator'): { created: boolean; operator?: Operator } {
    if (this.repo.count() > 0) return { created: false };
    return { created: true, operator: this.create({ operator_id: FIRST_ADMIN_ID, name, role: 'admin' as Role, public_keys: [line] }) };
  }
}
