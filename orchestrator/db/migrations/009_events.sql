-- Fleet events, per-operator notifications (read markers), notification channels,
-- their durable delivery queue, maintenance windows, and which agents were announced
-- offline (so "back online" is said once, also across a restart).

CREATE TABLE events (
  id           TEXT PRIMARY KEY,
  kind         TEXT NOT NULL,
  severity     TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  title        TEXT NOT NULL,
  body         TEXT NOT NULL,
  node_id      TEXT,
  operation_id TEXT,
  window_id    TEXT,
  -- 1: recorded while the agent was in maintenance window window_id; not sent to channels.
  held         INTEGER NOT NULL DEFAULT 0,
  actor        TEXT,
  created_at   TEXT NOT NULL
);
CREATE INDEX events_created ON events (created_at);
CREATE INDEX events_held ON events (window_id, held);

CREATE TABLE notifications (
  operator_id TEXT NOT NULL REFERENCES operators (operator_id) ON DELETE CASCADE,
  event_id    TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  created_at  TEXT NOT NULL,
  read_at     TEXT,
  PRIMARY KEY (operator_id, event_id)
);
CREATE INDEX notifications_inbox ON notifications (operator_id, created_at DESC, event_id DESC);
CREATE INDEX notifications_unread ON notifications (operator_id) WHERE read_at IS NULL;

CREATE TABLE channels (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  type          TEXT NOT NULL,
  config        TEXT NOT NULL,  -- JSON of the non-credential fields
  sealed_config BLOB,           -- the credential fields as JSON, sealed with the master key
  events        TEXT NOT NULL DEFAULT '[]',
  min_severity  TEXT NOT NULL DEFAULT 'info',
  enabled       INTEGER NOT NULL DEFAULT 1,
  template      TEXT,
  batch_seconds INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  created_by    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  updated_by    TEXT NOT NULL
);

CREATE TABLE deliveries (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  channel_id      TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  kind            TEXT NOT NULL CHECK (kind IN ('event', 'digest', 'test')),
  event_ids       TEXT NOT NULL DEFAULT '[]',
  title           TEXT NOT NULL,
  message         TEXT NOT NULL,  -- JSON ChannelMessage, rendered when queued
  status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  last_error      TEXT,
  response        TEXT,
  created_at      TEXT NOT NULL,
  delivered_at    TEXT
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_channel ON deliveries (channel_id, id DESC);

CREATE TABLE maintenance_windows (
  id              TEXT PRIMARY KEY,
  name            TEXT NOT NULL,
  selector        TEXT NOT NULL,
  starts_at       TEXT NOT NULL,
  ends_at         TEXT NOT NULL,
  reason          TEXT NOT NULL DEFAULT '',
  -- When maintenance.started / maintenance.ended were emitted: each exactly once.
  started_sent_at TEXT,
  ended_sent_at   TEXT,
  created_at      TEXT NOT NULL,
  created_by      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  updated_by      TEXT NOT NULL
);
CREATE INDEX maintenance_windows_span ON maintenance_windows (ends_at, starts_at);

CREATE TABLE offline_alerts (
  node_id     TEXT PRIMARY KEY REFERENCES agents (node_id) ON DELETE CASCADE,
  offline_at  TEXT NOT NULL,
  notified_at TEXT NOT NULL
);
