-- Agents (first contact pins their key), their attributes and tags.

CREATE TABLE agents (
  node_id           TEXT PRIMARY KEY,
  public_key        TEXT NOT NULL,
  key_fingerprint   TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected')),
  hostname          TEXT,
  agent_version     TEXT,
  address           TEXT,
  first_seen        TEXT NOT NULL,
  last_seen         TEXT,
  status_changed_at TEXT,
  status_changed_by TEXT,
  attributes        TEXT NOT NULL DEFAULT '{}',
  attributes_at     TEXT
);
CREATE INDEX agents_by_status ON agents (status, node_id);

CREATE TABLE agent_tags (
  node_id TEXT NOT NULL REFERENCES agents (node_id) ON DELETE CASCADE,
  key     TEXT NOT NULL,
  value   TEXT NOT NULL,
  PRIMARY KEY (node_id, key)
);
CREATE INDEX agent_tags_by_key ON agent_tags (key, value);
