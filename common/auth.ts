// Facts about operator authentication that the orchestrator, the CLI, the
// Electron preload and the browser must agree on byte for byte.

export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** What a route requires: nothing, or at least this role. */
export type Access = 'public' | Role;

export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** The exact bytes an operator signs: this prefix followed by the nonce. */
export const CHALLENGE_PREFIX = 'corral-auth-v1:';

export function challengeMessage(nonce: string): string {
  return CHALLENGE_PREFIX + nonce;
}

export const OPERATOR_ID_PATTERN = '^[a-z0-9][a-z0-9._-]{0,62}$';
