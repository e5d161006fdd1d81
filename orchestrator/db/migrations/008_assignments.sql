-- Assignments bind an ordered module list to a selector over agent tags. A batch is one
-- apply or plan of an assignment: the operations it created carry its batch_id.

CREATE TABLE assignments (
  name                TEXT PRIMARY KEY,
  description         TEXT NOT NULL DEFAULT '',
  selector            TEXT NOT NULL,
  modules             TEXT NOT NULL, -- JSON array of module names, in order
  vars                TEXT NOT NULL DEFAULT '{}',
  only_in_maintenance INTEGER NOT NULL DEFAULT 0,
  created_at          TEXT NOT NULL,
  created_by          TEXT NOT NULL,
  updated_at          TEXT NOT NULL,
  updated_by          TEXT NOT NULL
);

CREATE TABLE state_batches (
  batch_id        TEXT PRIMARY KEY,
  assignment      TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('apply', 'plan')),
  batch_size      INTEGER,
  stop_on_failure INTEGER NOT NULL DEFAULT 0,
  created_at      TEXT NOT NULL,
  created_by      TEXT NOT NULL
);
