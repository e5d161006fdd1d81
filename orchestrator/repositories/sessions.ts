import type { Db } from '../db/database.js';

export interface SessionRow {
  token_hash: string;
  operator_id: string;
  key_fingerprint: string;
  created_at: string;
  expires_at: number;
}

/** Login challenges, session tokens and setup tokens: everything short-lived about signing in. */
export class SessionsRepository {
  private readonly insertChallenge;
  private readonly takeChallenge;
  private readonly insertSession;
  private readonly selectSession;
  private readonly deleteSession;
  private readonly insertSetup;
  private readonly takeSetup;
  private readonly clearSetup;
  private readonly purgeChallenges;
  private readonly purgeSessions;
  private readonly purgeSetup;

  constructor(db: Db) {
    this.insertChallenge = db.prepare('INSERT INTO auth_challenges (nonce, operator_id, expires_at) VALUES (?, ?, ?)');
    // Deleting on read makes a nonce single-use even when two verifies race.
    this.takeChallenge = db.prepare<[string], { operator_id: string; expires_at: number }>(
      'DELETE FROM auth_challenges WHERE nonce = ? RETURNING operator_id, expires_at',
    );
    this.insertSession = db.prepare(
      'INSERT INTO sessions (token_hash, operator_id, key_fingerprint, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.selectSession = db.prepare<[string, number], SessionRow>(
      'SELECT * FROM sessions WHERE token_hash = ? AND expires_at > ?',
    );
    this.deleteSession = db.prepare('DELETE FROM sessions WHERE token_hash = ?');
    this.insertSetup = db.prepare('INSERT INTO setup_tokens (token_hash, expires_at) VALUES (?, ?)');
    this.takeSetup = db.prepare<[string], { expires_at: number }>(
      'DELETE FROM setup_tokens WHERE token_hash = ? RETURNING expires_at',
    );
    this.clearSetup = db.prepare('DELETE FROM setup_tokens');
    this.purgeChallenges = db.prepare('DELETE FROM auth_challenges WHERE expires_at <= ?');
    this.purgeSessions = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
    this.purgeSetup = db.prepare('DELETE FROM setup_tokens WHERE expires_at <= ?');
  }

  addChallenge(nonce: string, operatorId: string, expiresAt: number): void {
    this.insertChallenge.run(nonce, operatorId, expiresAt);
  }

  consumeChallenge(nonce: string): { operator_id: string; expires_at: number } | undefined {
    return this.takeChallenge.get(nonce);
  }

  addSession(tokenHash: string, operatorId: string, fingerprint: string, expiresAt: number): void {
    this.insertSession.run(tokenHash, operatorId, fingerprint, new Date().toISOString(), expiresAt);
  }

  findSession(tokenHash: string, now: number): SessionRow | undefined {
    return this.selectSession.get(tokenHash, now);
  }

  endSession(tokenHash: string): boolean {
    return this.deleteSession.run(tokenHash).changes > 0;
  }

  replaceSetupToken(tokenHash: string, expiresAt: number): void {
    this.clearSetup.run();
    this.insertSetup.run(tokenHash, expiresAt);
  }

  consumeSetupToken(tokenHash: string): { expires_at: number } | undefined {
    return this.takeSetup.get(tokenHash);
  }

  clearSetupTokens(): void {
    this.clearSetup.run();
  }

  purgeExpired(now: number): void {
    this.purgeChallenges.run(now);
    this.purgeSessions.run(now);
    this.purgeSetup.run(now);
  }
}
