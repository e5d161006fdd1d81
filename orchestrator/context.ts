import type { Db } from './db/database.js';
import type { ResolvedConfig } from './config.js';
import type { AuditService } from './services/audit.js';
import type { AuthService } from './services/auth.js';
import type { OperatorsService } from './services/operators.js';

/** Everything route plugins need, built once per orchestrator. */
export interface Services {
  config: ResolvedConfig;
  db: Db;
  audit: AuditService;
  auth: AuthService;
  operators: OperatorsService;
  startedAt: number;
  tlsFingerprint: string | null;
}
