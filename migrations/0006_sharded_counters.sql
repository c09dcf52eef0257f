-- The crawl row was a hot spot: every parse and every settlement updated it, so parses of one
-- crawl ran one at a time (the benchmark saw 76% of busy backends waiting on that row). Counters
-- that many transactions bump now live in 16 shards per crawl; readers sum them. The crawl row
-- keeps what claims need exactly: `admitted`, the page budget, under the claim's lock.
--   in flight   = admitted - settled - returned
--   budget used = admitted - returned

CREATE TABLE crawl_counters (
  crawl_id    text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  shard       smallint NOT NULL,
  settled     bigint NOT NULL DEFAULT 0,  -- handed out and finished (done, failed, dead, dropped)
  returned    bigint NOT NULL DEFAULT 0,  -- handed out and given back to the queue (pause, lost host, requeued dead letter)
  discovered  bigint NOT NULL DEFAULT 0,  -- URLs registered (the discovery budget spent)
  PRIMARY KEY (crawl_id, shard)
);

INSERT INTO crawl_counters (crawl_id, shard, settled, discovered)
SELECT id, 0, admitted - in_flight, discovered FROM crawls;

ALTER TABLE crawls DROP COLUMN in_flight, DROP COLUMN discovered;

-- The same for the seen test's and the refusals' figures, bumped by every parse.
ALTER TABLE crawl_seen_stats ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE crawl_seen_stats DROP CONSTRAINT crawl_seen_stats_pkey, ADD PRIMARY KEY (crawl_id, shard);
ALTER TABLE crawl_rejection_counts ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE crawl_rejection_counts DROP CONSTRAINT crawl_rejection_counts_pkey, ADD PRIMARY KEY (crawl_id, reason, shard);
