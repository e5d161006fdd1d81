import type { Db } from '../db/database.js';

export interface AssignmentRow {
  name: string;
  description: string;
  selector: string;
  modules: string;
  vars: string;
  only_in_maintenance: number;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

export interface BatchRow {
  batch_id: string;
  assignment: string;
  kind: 'apply' | 'plan';
  batch_size: number | null;
  stop_on_failure: number;
  created_at: string;
  created_by: string;
}

/** assignments and state_batches. */
export class AssignmentsRepository {
  private readonly insertStmt;
  private readonly byName;
  private readonly pageStmt;
  private readonly deleteStmt;
  private readonly allStmt;
  private readonly insertBatchStmt;
  private readonly batchStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO assignments (name, description, selector, modules, vars, only_in_maintenance, created_at, created_by, updated_at, updated_by)
       VALUES (@name, @description, @selector, @modules, @vars, @only_in_maintenance, @created_at, @created_by, @created_at, @created_by)`,
    );
    this.byName = db.prepare<[string], AssignmentRow>('SELECT * FROM assignments WHERE name = ?');
    this.pageStmt = db.prepare<[string, number], AssignmentRow>('SELECT * FROM assignments WHERE name > ? ORDER BY name LIMIT ?');
    this.deleteStmt = db.prepare('DELETE FROM assignments WHERE name = ?');
    this.allStmt = db.prepare<[], AssignmentRow>('SELECT * FROM assignments ORDER BY name');
    this.insertBatchStmt = db.prepare(
      `INSERT INTO state_batches (batch_id, assignment, kind, batch_size, stop_on_failure, created_at, created_by)
       VALUES (@batch_id, @assignment, @kind, @batch_size, @stop_on_failure, @created_at, @created_by)`,
    );
    this.batchStmt = db.prepare<[string], BatchRow>('SELECT * FROM state_batches WHERE batch_id = ?');
  }

  insert(row: Omit<AssignmentRow, 'updated_at' | 'updated_by'>): void {
    this.insertStmt.run(row);
  }

  get(name: string): AssignmentRow | undefined {
    return this.byName.get(name);
  }

  page(after: string, limit: number): AssignmentRow[] {
    return this.pageStmt.all(after, limit);
  }

  all(): AssignmentRow[] {
    return this.allStmt.all();
  }

  delete(name: string): boolean {
    return this.deleteStmt.run(name).changes > 0;
  }

  insertBatch(row: BatchRow): void {
    this.insertBatchStmt.run(row);
  }

  batch(batchId: string): BatchRow | undefined {
    return this.batchStmt.get(batchId);
  }
}
