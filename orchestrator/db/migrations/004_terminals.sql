-- Terminal sessions. No foreign key to agents or operators: the history of who opened
-- a shell where outlives a deleted agent record or a removed operator.

CREATE TABLE terminal_sessions (
  session_id           TEXT PRIMARY KEY,
  node_id              TEXT NOT NULL,
  operator_id          TEXT NOT NULL,
  shell                TEXT,
  user                 TEXT,
  pid                  INTEGER,
  cols                 INTEGER NOT NULL,
  rows                 INTEGER NOT NULL,
  state                TEXT NOT NULL CHECK (state IN ('opening', 'open', 'closed')),
  started_at           TEXT NOT NULL,
  ended_at             TEXT,
  exit_code            INTEGER,
  close_reason         TEXT,
  bytes_in             INTEGER NOT NULL DEFAULT 0,
  bytes_out            INTEGER NOT NULL DEFAULT 0,
  transcript_bytes     INTEGER NOT NULL DEFAULT 0,
  transcript_truncated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX terminal_sessions_recent ON terminal_sessions (started_at DESC, session_id DESC);
CREATE INDEX terminal_sessions_by_node ON terminal_sessions (node_id, started_at DESC);
CREATE INDEX terminal_sessions_live ON terminal_sessions (state) WHERE state != 'closed';
