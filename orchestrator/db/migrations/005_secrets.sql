-- Secrets: values encrypted with AES-256-GCM under the master key (services/secret-box.ts).
-- ciphertext is the whole sealed blob: format byte, key id, IV, tag and ciphertext, with
-- the secret's name bound as associated data. No plaintext column exists, on purpose.

CREATE TABLE secrets (
  name        TEXT PRIMARY KEY,
  description TEXT NOT NULL DEFAULT '',
  version     INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  ciphertext  BLOB NOT NULL,
  created_at  TEXT NOT NULL,
  created_by  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  updated_by  TEXT NOT NULL
);
