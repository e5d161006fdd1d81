import { createHash, randomBytes } from 'node:crypto';
import { challengeMessage } from '../../common/auth.js';
import { isArmoredSshsig, parsePublicKey, parseSshsig, SshFormatError, SSHSIG_NAMESPACE, sshsigSignedData, base64Decode } from '../../common/openssh.js';
import type { ChallengeResponse, SessionResponse, VerifyRequest } from '../../common/schemas/auth.js';
import type { Operator } from '../../common/schemas/operators.js';
import { Conflict, Forbidden, TooManyRequests, Unauthorized } from '../http/errors.js';
import type { SessionsRepository } from '../repositories/sessions.js';
import { keyFingerprint, parseOperatorKey, verifyEd25519 } from './keys.js';
import type { OperatorsService } from './operators.js';
import { FIRST_ADMIN_ID } from './operators.js';

export const CHALLENGE_TTL_MS = 60_000;
const SETUP_TTL_MS = 60 * 60_000;
const FAILURE_WINDOW_MS = 5 * 60_000;

export interface AuthOptions {
  tokenTtlMs: number;
  /** Failed verifications allowed per operator within five minutes. */
  maxFailuresPerOperator: number;
}

export interface Authenticated {
  operator: Operator;
  tokenHash: string;
  keyFingerprint: string;
  expiresAt: number;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export class AuthService {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly operators: OperatorsService,
    private readonly options: AuthOptions,
  ) {}

  /** Issues a nonce even for unknown operators, so the answer does not reveal who exists. */
  challenge(operatorId: string, now = Date.now()): ChallengeResponse {
    const nonce = randomBytes(24).toString('base64url');
    const expiresAt = now + CHALLENGE_TTL_MS;
    this.sessions.addChallenge(nonce, operatorId, expiresAt);
    return { nonce, message: challengeMessage(nonce), namespace: SSHSIG_NAMESPACE, expires_at: new Date(expiresAt).toISOString() };
  }

  verify(req: VerifyRequest, now = Date.now()): SessionResponse & { keyFingerprint: string } {
    this.checkFailureBudget(req.operator_id, now);
    // Consumed before anything else: a nonce is gone after one try, right or wrong.
    const challenge = this.sessions.consumeChallenge(req.nonce);
    if (!challenge) return this.fail(req.operator_id, now, 'nonce-invalid', 'the nonce is unknown or was already used; ask for a new challenge');
    if (challenge.expires_at <= now) return this.fail(req.operator_id, now, 'nonce-expired', 'the nonce expired (60 s); ask for a new challenge');
    if (challenge.operator_id !== req.operator_id) {
      return this.fail(req.operator_id, now, 'nonce-mismatch', 'the nonce was issued for another operator');
    }
    const operator = this.operators.find(req.operator_id);
    const fingerprint = operator && this.checkSignature(operator, req.nonce, req.signature);
    if (!operator || !fingerprint) return this.fail(req.operator_id, now, 'signature-invalid', 'the signature does not verify with any key of this operator');
    this.failures.delete(req.operator_id);
    const token = newToken();
    const expiresAt = now + this.options.tokenTtlMs;
    this.sessions.addSession(hashToken(token), operator.operator_id, fingerprint, expiresAt);
    return { token, expires_at: new Date(expiresAt).toISOString(), operator, keyFingerprint: fingerprint };
  }

  /** Returns the fingerprint of the key that signed, or undefined. */
  private checkSignature(operator: Operator, nonce: string, signature: string): string | undefined {
    const message = new TextEncoder().encode(challengeMessage(nonce));
    const keys = this.operators.operatorKeys(operator.operator_id);
    try {
      if (isArmoredSshsig(signature)) {
        const sig = parseSshsig(signature);
        if (sig.namespace !== SSHSIG_NAMESPACE) return undefined;
        if (sig.hashAlgorithm !== 'sha512' && sig.hashAlgorithm !== 'sha256') return undefined;
        const fingerprint = keyFingerprint(sig.publicKey);
        if (!keys.some((k) => k.fingerprint === fingerprint)) return undefined;
        const digest = createHash(sig.hashAlgorithm).update(message).digest();
        const signed = sshsigSignedData(sig.namespace, sig.hashAlgorithm, digest);
        return verifyEd25519(sig.publicKey, signed, sig.signature) ? fingerprint : undefined;
      }
      const raw = base64Decode(signature);
      for (const k of keys) {
        if (verifyEd25519(parsePublicKey(k.public_key).key, message, raw)) return k.fingerprint;
      }
    } catch (err) {
      if (err instanceof SshFormatError) return undefined;
      throw err;
    }
    return undefined;
  }

  private checkFailureBudget(operatorId: string, now: number): void {
    const recent = (this.failures.get(operatorId) ?? []).filter((t) => t > now - FAILURE_WINDOW_MS);
    this.failures.set(operatorId, recent);
    if (recent.length >= this.options.maxFailuresPerOperator) {
      const retry = Math.ceil((recent[0]! + FAILURE_WINDOW_MS - now) / 1000);
      throw new TooManyRequests(`too many failed sign-ins for ${operatorId}; try again in ${retry} s`, retry);
    }
  }

  private fail(operatorId: string, now: number, code: string, detail: string): never {
    const list = this.failures.get(operatorId) ?? [];
    list.push(now);
    this.failures.set(operatorId, list);
    throw new Unauthorized(detail, code);
  }

  authenticate(token: string, now = Date.now()): Authenticated | undefined {
    const tokenHash = hashToken(token);
    const session = this.sessions.findSession(tokenHash, now);
    if (!session) return undefined;
    const operator = this.operators.find(session.operator_id);
    if (!operator) return undefined;
    return { operator, tokenHash, keyFingerprint: session.key_fingerprint, expiresAt: session.expires_at };
  }

  /** Whether a session authenticated earlier still holds: not signed out or expired, its operator not removed. */
  isCurrent(session: Authenticated, now = Date.now()): boolean {
    return this.sessions.findSession(session.tokenHash, now) !== undefined && this.operators.find(session.operator.operator_id) !== undefined;
  }

  logout(tokenHash: string): void {
    this.sessions.endSession(tokenHash);
  }

  /** A fresh one-time setup token while no operator exists; replaces any earlier one. */
  issueSetupToken(now = Date.now()): { token: string; expiresAt: number } | undefined {
    if (this.operators.count() > 0) return undefined;
    const token = newToken();
    const expiresAt = now + SETUP_TTL_MS;
    this.sessions.replaceSetupToken(hashToken(token), expiresAt);
    return { token, expiresAt };
  }

  completeSetup(token: string, publicKey: string, name: string | undefined, now = Date.now()): Operator {
    if (this.operators.count() > 0) throw new Conflict('setup is done: the first admin exists; sign in instead', 'setup-done');
    parseOperatorKey(publicKey, 'body.public_key'); // a bad key must not use up the link
    const stored = this.sessions.consumeSetupToken(hashToken(token));
    if (!stored || stored.expires_at <= now) {
      throw new Forbidden('the setup link is invalid or expired; restart corral serve for a new one', 'setup-token-invalid');
    }
    const result = this.operators.bootstrapAdmin(publicKey, name);
    return result.operator ?? this.operators.get(FIRST_ADMIN_ID);
  }

  purgeExpired(now = Date.now()): void {
    this.sessions.purgeExpired(now);
    for (const [id, times] of this.failures) if (!times.some((t) => t > now - FAILURE_WINDOW_MS)) this.failures.delete(id);
  }
}
