import type { Db } from '../db/database.js';

export type TerminalStateValue = 'opening' | 'open' | 'closed';

export interface TerminalRow {
  session_id: string;
  node_id: string;
  operator_id: string;
  shell: string | null;
  user: string | null;
  pid: number | null;
  cols: number;
  rows: number;
  state: TerminalStateValue;
  started_at: string;
  ended_at: string | null;
  exit_code: number | null;
  close_reason: string | null;
  bytes_in: number;
  bytes_out: number;
  transcript_bytes: number;
  transcript_truncated: number;
}

export interface TerminalFilter {
  node_id?: string;
  state?: TerminalStateValue;
  operator_id?: string;
  /** Keyset position: rows strictly older than (started_at, session_id). */
  before?: { at: string; id: string };
  limit: number;
}

export interface ClosedFields {
  ended_at: string;
  exit_code: number | null;
  close_reason: string;
  bytes_in: number;
  bytes_out: number;
  transcript_bytes: number;
  transcript_truncated: boolean;
}

/** terminal_sessions: one row per session, written at open, at the pty's start and at close. */
export class TerminalsRepository {
  private readonly insertStmt;
  private readonly selectOne;
  private readonly openedStmt;
  private readonly resizeStmt;
  private readonly closeStmt;
  private readonly closeStaleStmt;
  /** List statements by their filter combination (at most 16), each prepared once. */
  private readonly listStmts = new Map<string, ReturnType<Db['prepare']>>();

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO terminal_sessions (session_id, node_id, operator_id, shell, user, cols, rows, state, started_at)
       VALUES (@session_id, @node_id, @operator_id, @shell, @user, @cols, @rows, 'opening', @started_at)`,
    );
    this.selectOne = db.prepare<[string], TerminalRow>('SELECT * FROM terminal_sessions WHERE session_id = ?');
    this.openedStmt = db.prepare("UPDATE terminal_sessions SET state = 'open', pid = ?, shell = ?, user = ? WHERE session_id = ?");
    this.resizeStmt = db.prepare('UPDATE terminal_sessions SET cols = ?, rows = ? WHERE session_id = ?');
    this.closeStmt = db.prepare(
      `UPDATE terminal_sessions SET state = 'closed', ended_at = @ended_at, exit_code = @exit_code, close_reason = @close_reason,
         bytes_in = @bytes_in, bytes_out = @bytes_out, transcript_bytes = @transcript_bytes, transcript_truncated = @transcript_truncated
       WHERE session_id = @session_id AND state != 'closed'`,
    );
    this.closeStaleStmt = db.prepare<[string, string]>(
      "UPDATE terminal_sessions SET state = 'closed', ended_at = ?, close_reason = ? WHERE state != 'closed'",
    );
  }

  insert(row: { session_id: string; node_id: string; operator_id: string; shell: string | null; user: string | null; cols: number; rows: number; started_at: string }): void {
    this.insertStmt.run(row);
  }

  get(sessionId: string): TerminalRow | undefined {
    return this.selectOne.get(sessionId);
  }

  markOpen(sessionId: string, pid: number, shell: string, user: string): void {
    this.openedStmt.run(pid, shell, user, sessionId);
  }

  resize(sessionId: string, cols: number, rows: number): void {
    this.resizeStmt.run(cols, rows, sessionId);
  }

  markClosed(sessionId: string, fields: ClosedFields): boolean {
    return this.closeStmt.run({ session_id: sessionId, ...fields, transcript_truncated: fields.transcript_truncated ? 1 : 0 }).changes > 0;
  }

  /** Sessions a previous run left open cannot have survived it. */
  closeStale(reason: string, at: string): number {
    return this.closeStaleStmt.run(at, reason).changes;
  }

  /** Most recent first; the filters are few, so the statement is built from a fixed set of clauses. */
  list(f: TerminalFilter): TerminalRow[] {
    const where: string[] = [];
    const params: Record<string, unknown> = { limit: f.limit };
    if (f.node_id !== undefined) {
      where.push('node_id = @node_id');
      params.node_id = f.node_id;
    }
    if (f.state !== undefined) {
      where.push('state = @state');
      params.state = f.state;
    }
    if (f.operator_id !== undefined) {
      where.push('operator_id = @operator_id');
      params.operator_id = f.operator_id;
    }
    if (f.before) {
      where.push('(started_at < @at OR (started_at = @at AND session_id < @id))');
      params.at = f.before.at;
      params.id = f.before.id;
    }
    const sql = `SELECT * FROM terminal_sessions ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
      ORDER BY started_at DESC, session_id DESC LIMIT @limit`;
    let stmt = this.listStmts.get(sql);
    if (!stmt) this.listStmts.set(sql, (stmt = this.db.prepare(sql)));
    return stmt.all(params) as TerminalRow[];
  }
}
