-- Agent metrics: raw samples (48 h), 1-minute rollups (14 days), 1-hour rollups (1 year)
-- and each agent's latest sample. Times are milliseconds since the epoch (agent clock).
-- Every table is clustered on (node_id, ts) (WITHOUT ROWID), so one agent's history is
-- one contiguous range: history reads, per-agent pruning and the agent's ON DELETE
-- CASCADE all walk the primary key.

CREATE TABLE metrics_raw (
  node_id     TEXT    NOT NULL REFERENCES agents (node_id) ON DELETE CASCADE,
  ts          INTEGER NOT NULL,
  cpu_percent REAL    NOT NULL,
  load1       REAL    NOT NULL,
  load5       REAL    NOT NULL,
  load15      REAL    NOT NULL,
  mem_used    REAL    NOT NULL,
  mem_total   REAL    NOT NULL,
  swap_used   REAL    NOT NULL,
  swap_total  REAL    NOT NULL,
  net_rx_bps  REAL    NOT NULL,
  net_tx_bps  REAL    NOT NULL,
  processes   REAL    NOT NULL,
  uptime_s    REAL    NOT NULL,
  disks       TEXT    NOT NULL, -- JSON [{mount, used, total}]
  PRIMARY KEY (node_id, ts)
) WITHOUT ROWID;

-- A rollup row is one bucket (ts = bucket start): the averages of the samples in it,
-- `samples` of them (the weight when buckets are merged or downsampled), the highest
-- CPU reading, and for the levels that are better shown as a reading than averaged
-- (uptime, disks) the values of the bucket's newest sample, whose ts is last_ts.
CREATE TABLE metrics_1m (
  node_id     TEXT    NOT NULL REFERENCES agents (node_id) ON DELETE CASCADE,
  ts          INTEGER NOT NULL,
  samples     INTEGER NOT NULL,
  last_ts     INTEGER NOT NULL,
  cpu_max     REAL    NOT NULL,
  cpu_percent REAL    NOT NULL,
  load1       REAL    NOT NULL,
  load5       REAL    NOT NULL,
  load15      REAL    NOT NULL,
  mem_used    REAL    NOT NULL,
  mem_total   REAL    NOT NULL,
  swap_used   REAL    NOT NULL,
  swap_total  REAL    NOT NULL,
  net_rx_bps  REAL    NOT NULL,
  net_tx_bps  REAL    NOT NULL,
  processes   REAL    NOT NULL,
  uptime_s    REAL    NOT NULL,
  disks       TEXT    NOT NULL,
  PRIMARY KEY (node_id, ts)
) WITHOUT ROWID;

CREATE TABLE metrics_1h (
  node_id     TEXT    NOT NULL REFERENCES agents (node_id) ON DELETE CASCADE,
  ts          INTEGER NOT NULL,
  samples     INTEGER NOT NULL,
  last_ts     INTEGER NOT NULL,
  cpu_max     REAL    NOT NULL,
  cpu_percent REAL    NOT NULL,
  load1       REAL    NOT NULL,
  load5       REAL    NOT NULL,
  load15      REAL    NOT NULL,
  mem_used    REAL    NOT NULL,
  mem_total   REAL    NOT NULL,
  swap_used   REAL    NOT NULL,
  swap_total  REAL    NOT NULL,
  net_rx_bps  REAL    NOT NULL,
  net_tx_bps  REAL    NOT NULL,
  processes   REAL    NOT NULL,
  uptime_s    REAL    NOT NULL,
  disks       TEXT    NOT NULL,
  PRIMARY KEY (node_id, ts)
) WITHOUT ROWID;

-- The newest sample of each agent (by ts), kept beyond the raw retention so the last
-- known state survives a restart and a long silence. Also the list of agents with
-- metrics that the retention job walks.
CREATE TABLE metrics_latest (
  node_id     TEXT    PRIMARY KEY REFERENCES agents (node_id) ON DELETE CASCADE,
  ts          INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  sample      TEXT    NOT NULL -- JSON MetricsSample as validated
);
