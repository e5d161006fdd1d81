-- Modules: desired-state descriptions, versioned. Every upload that changes a module's
-- text adds a revision; old revisions stay, so an operation can name the exact content
-- (by hash) it used. modules.current_revision points at the one new work uses.

CREATE TABLE modules (
  name             TEXT PRIMARY KEY,
  current_revision INTEGER NOT NULL CHECK (current_revision >= 1),
  created_at       TEXT NOT NULL,
  created_by       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  updated_by       TEXT NOT NULL
);

CREATE TABLE module_revisions (
  name           TEXT NOT NULL REFERENCES modules (name) ON DELETE CASCADE,
  revision       INTEGER NOT NULL CHECK (revision >= 1),
  content        TEXT NOT NULL,
  content_hash   TEXT NOT NULL,
  description    TEXT NOT NULL DEFAULT '',
  resource_count INTEGER NOT NULL,
  secrets        TEXT NOT NULL DEFAULT '[]', -- JSON array of the secret names the revision references
  created_at     TEXT NOT NULL,
  created_by     TEXT NOT NULL,
  PRIMARY KEY (name, revision)
);
CREATE INDEX module_revisions_by_hash ON module_revisions (content_hash);
