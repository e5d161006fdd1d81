import { roleAllows, type Role } from '../../../../common/auth.js';
import type { SessionResponse, WhoAmIResponse } from '../../../../common/schemas/auth.js';
import type { Operator } from '../../../../common/schemas/operators.js';

// sessionStorage, not localStorage: the token dies with the tab.
const TOKEN_KEY = 'corral.token';

/** Who is signed in, with which token. */
export class Session {
  token = $state<string | null>(null);
  operator = $state<Operator | null>(null);
  expiresAt = $state<string | null>(null);
  /** Fingerprint of the key that signed this session's challenge. */
  keyFingerprint = $state<string | null>(null);

  readonly signedIn = $derived(this.token !== null && this.operator !== null);
  readonly role = $derived<Role | null>(this.operator?.role ?? null);
  readonly isAdmin = $derived(this.operator?.role === 'admin');

  constructor() {
    this.token = readToken();
  }

  /** A fresh token from POST /auth/verify. */
  begin(response: SessionResponse): void {
    this.token = response.token;
    this.operator = response.operator;
    this.expiresAt = response.expires_at;
    this.keyFingerprint = null;
    try {
      sessionStorage.setItem(TOKEN_KEY, response.token);
    } catch {
      // Storage may be disabled; the session then lasts until reload.
    }
  }

  /** What GET /auth/session says about the current token. */
  describe(who: WhoAmIResponse): void {
    this.operator = who.operator;
    this.expiresAt = who.expires_at;
    this.keyFingerprint = who.key_fingerprint;
  }

  /** The signed-in operator changed (a key was added or removed). */
  setOperator(operator: Operator): void {
    if (this.operator?.operator_id === operator.operator_id) this.operator = operator;
  }

  allows(needed: Role): boolean {
    return this.role !== null && roleAllows(this.role, needed);
  }

  end(): void {
    this.token = null;
    this.operator = null;
    this.expiresAt = null;
    this.keyFingerprint = null;
    try {
      sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // nothing stored
    }
  }
}

function readToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export const session = new Session();
