-- Desired-state work: operations (apply, plan) with per-resource results and captured
-- output, believed machine state (a pointer to each agent's last successful apply), and
-- drift records. node_id is not a foreign key on purpose: history outlives a deleted agent.

CREATE TABLE state_operations (
  seq               INTEGER PRIMARY KEY AUTOINCREMENT, -- creation order: lists are newest first
  operation_id      TEXT NOT NULL UNIQUE,
  kind              TEXT NOT NULL CHECK (kind IN ('apply', 'plan')),
  node_id           TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'partial', 'cancelled', 'skipped')),
  trigger           TEXT NOT NULL CHECK (trigger IN ('operator', 'assignment', 'schedule')),
  actor             TEXT NOT NULL,
  assignment        TEXT,
  batch_id          TEXT,
  modules           TEXT NOT NULL,            -- JSON [{name, revision, content_hash}]
  vars              TEXT NOT NULL DEFAULT '{}',
  inputs            TEXT NOT NULL DEFAULT '{}', -- JSON {tags, attributes}: what templates were expanded with
  resources         TEXT NOT NULL DEFAULT '[]', -- JSON: the expanded resources, secret values as ********
  desired_hash      TEXT NOT NULL,            -- expanded desired state + secret versions
  plan_operation_id TEXT,
  plan_hash         TEXT,
  counts            TEXT NOT NULL DEFAULT '{}',
  message           TEXT,
  code              TEXT,
  created_at        TEXT NOT NULL,
  started_at        TEXT,
  finished_at       TEXT
);
CREATE INDEX state_operations_by_node ON state_operations (node_id, seq);
CREATE INDEX state_operations_by_batch ON state_operations (batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX state_operations_by_assignment ON state_operations (assignment, seq) WHERE assignment IS NOT NULL;
CREATE INDEX state_operations_unfinished ON state_operations (status) WHERE status IN ('queued', 'running');

CREATE TABLE state_results (
  operation_id TEXT NOT NULL REFERENCES state_operations (operation_id) ON DELETE CASCADE,
  position     INTEGER NOT NULL,
  module       TEXT NOT NULL,
  resource_id  TEXT NOT NULL,
  type         TEXT NOT NULL,
  status       TEXT NOT NULL,
  diff         TEXT,           -- JSON, masked
  message      TEXT,
  duration_ms  INTEGER NOT NULL,
  change_kind  TEXT CHECK (change_kind IN ('intentional', 'corrective')),
  notified_by  TEXT NOT NULL DEFAULT '[]',
  observed     TEXT,           -- JSON, masked
  stdout       TEXT,
  stderr       TEXT,
  exit_code    INTEGER,
  truncated    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (operation_id, position)
);

CREATE TABLE believed_state (
  node_id      TEXT PRIMARY KEY,
  operation_id TEXT NOT NULL REFERENCES state_operations (operation_id),
  applied_at   TEXT NOT NULL
);

CREATE TABLE drift_records (
  seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
  drift_id              TEXT NOT NULL UNIQUE,
  node_id               TEXT NOT NULL,
  baseline_operation_id TEXT NOT NULL,
  trigger               TEXT NOT NULL,
  actor                 TEXT NOT NULL,
  status                TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  drifted               INTEGER NOT NULL DEFAULT 0,
  drifted_count         INTEGER NOT NULL DEFAULT 0,
  checked_count         INTEGER NOT NULL DEFAULT 0,
  message               TEXT,
  requested_at          TEXT NOT NULL,
  checked_at            TEXT,
  items                 TEXT NOT NULL DEFAULT '[]' -- JSON DriftItem[], masked
);
CREATE INDEX drift_records_by_node ON drift_records (node_id, seq);
