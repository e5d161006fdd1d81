-- Operators, their keys, sessions, login challenges, settings and the audit log.

CREATE TABLE operators (
  operator_id TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  role        TEXT NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
  created_at  TEXT NOT NULL
);

-- One key belongs to one operator, so a signature names exactly one person.
CREATE TABLE operator_keys (
  fingerprint TEXT PRIMARY KEY,
  operator_id TEXT NOT NULL REFERENCES operators (operator_id) ON DELETE CASCADE,
  public_key  TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX operator_keys_by_operator ON operator_keys (operator_id);

CREATE TABLE auth_challenges (
  nonce       TEXT PRIMARY KEY,
  operator_id TEXT NOT NULL,
  expires_at  INTEGER NOT NULL
);

-- Tokens are stored only as their SHA-256; removing the key or the operator ends the session.
CREATE TABLE sessions (
  token_hash      TEXT PRIMARY KEY,
  operator_id     TEXT NOT NULL REFERENCES operators (operator_id) ON DELETE CASCADE,
  key_fingerprint TEXT NOT NULL REFERENCES operator_keys (fingerprint) ON DELETE CASCADE,
  created_at      TEXT NOT NULL,
  expires_at      INTEGER NOT NULL
);
CREATE INDEX sessions_by_operator ON sessions (operator_id);

CREATE TABLE setup_tokens (
  token_hash TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);

CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE audit_events (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  time       TEXT NOT NULL,
  actor_type TEXT NOT NULL,
  actor      TEXT,
  action     TEXT NOT NULL,
  target     TEXT,
  outcome    TEXT NOT NULL CHECK (outcome IN ('success', 'denied', 'error')),
  source_ip  TEXT,
  request_id TEXT,
  details    TEXT NOT NULL,
  prev_hash  TEXT NOT NULL,
  hash       TEXT NOT NULL
);
CREATE INDEX audit_events_by_time ON audit_events (time);
CREATE INDEX audit_events_by_actor ON audit_events (actor, id);
CREATE INDEX audit_events_by_action ON audit_events (action, id);
