-- Content identity indexes, near-duplicate clusters, change evidence and recrawl cycles
-- (000 §7, §8; 001). See docs/storage-and-recrawl.md for what each table answers.

-- What the URL record lacks for change detection. The estimate itself lives in
-- change_rate_per_day / change_rate_method with its evidence in change_observations,
-- changes_observed and observed_days (0001).
ALTER TABLE urls
  ADD COLUMN last_observed_at  timestamptz,   -- fetch start of the last visit that told us about the content
  ADD COLUMN last_change_key   text,          -- '<scheme>:<hex>': 'n<parser version>' normalized text, 'r' raw bytes
  ADD COLUMN last_changed_at   timestamptz,   -- the last visit that saw a change
  ADD COLUMN change_streak     integer NOT NULL DEFAULT 0;  -- compared visits in a row that all saw a change
-- The recrawl cycle's candidate pools: most overdue first, pages believed static, tombstones due.
CREATE INDEX urls_recrawl_due ON urls (next_fetch_at NULLS FIRST) WHERE last_success_at IS NOT NULL AND state NOT IN ('gone', 'dead', 'redirect');
CREATE INDEX urls_recrawl_static ON urls (last_observed_at) WHERE change_observations > 0 AND last_success_at IS NOT NULL;
CREATE INDEX urls_tombstones_due ON urls (next_fetch_at) WHERE state = 'gone';

-- One row per visit that told us about a page's content: the idempotency guard of the change
-- evidence (a replayed parse or 304 finds its row and changes nothing) and the history the rate
-- estimate is computed from (the most recent observations per URL).
CREATE TABLE url_observations (
  fingerprint    bytea NOT NULL,
  generation     integer NOT NULL,
  crawl_id       text NOT NULL,
  observed_at    timestamptz NOT NULL,
  verdict        text NOT NULL,               -- changed | unchanged | baseline | stale
  source         text NOT NULL,               -- content | not-modified
  interval_days  double precision,            -- since the previous observation (changed | unchanged only)
  change_key     text,
  rate_per_day   double precision,            -- the estimate after this observation
  PRIMARY KEY (fingerprint, generation)
);
CREATE INDEX url_observations_crawl ON url_observations (crawl_id);

-- The permuted-blocks SimHash index (Manku et al. 2007, k = 3): four 16-bit blocks per URL's
-- latest document. Two SimHashes within 3 bits agree on at least one block, so a lookup reads
-- the rows of its four (block, key) pairs and confirms by Hamming distance: never a scan. The
-- whole SimHash is read from the document the row points at (fingerprint, generation, parser_version).
CREATE TABLE simhash_blocks (
  fingerprint     bytea NOT NULL,
  block           smallint NOT NULL,
  key             integer NOT NULL,           -- the block's 16 bits, 0..65535
  generation      integer NOT NULL,
  parser_version  integer NOT NULL,
  PRIMARY KEY (fingerprint, block)
);
CREATE INDEX simhash_blocks_lookup ON simhash_blocks (block, key);

-- MinHash + LSH for short documents (under 300 characters, 000 §7.2): 16 band keys per URL's
-- latest short document; candidates share a band key and are confirmed by estimated Jaccard.
CREATE TABLE minhash_bands (
  fingerprint     bytea NOT NULL,
  band            smallint NOT NULL,
  key             integer NOT NULL,
  generation      integer NOT NULL,
  parser_version  integer NOT NULL,
  PRIMARY KEY (fingerprint, band)
);
CREATE INDEX minhash_bands_lookup ON minhash_bands (band, key);

-- Near-duplicate clusters: membership, never deletion. The representative is the first URL of
-- the cluster (its own row: method 'representative', distance 0); members are demoted in
-- recrawl priority. urls.near_duplicate_of mirrors cluster_id for members.
CREATE TABLE near_duplicates (
  fingerprint     bytea PRIMARY KEY,
  cluster_id      bytea NOT NULL,             -- the representative's fingerprint
  method          text NOT NULL,              -- representative | simhash | minhash
  distance        smallint,                   -- SimHash Hamming distance to the matched document
  similarity      real,                       -- estimated Jaccard (minhash)
  matched         bytea,                      -- the URL this one was matched with
  generation      integer NOT NULL,           -- of this URL's document when it joined
  parser_version  integer NOT NULL,
  threshold       jsonb NOT NULL,             -- the thresholds in force, so clusters can be rebuilt when they change
  joined_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX near_duplicates_cluster ON near_duplicates (cluster_id);

-- One row per recrawl cycle: what it planned (by purpose), why (budget split, horizon) and what
-- it got (fetches, 304s, changes detected, bytes): 001's cost per detected change.
CREATE TABLE recrawl_cycles (
  crawl_id       text PRIMARY KEY REFERENCES crawls (id) ON DELETE CASCADE,
  workflow_id    text NOT NULL,
  schedule_id    text,
  planned_at     timestamptz NOT NULL DEFAULT now(),
  budget         jsonb NOT NULL,              -- { total, discovery, recrawl, reestimation, verification }
  plan           jsonb NOT NULL,              -- counts by purpose, candidates, interval_days
  summary        jsonb,
  finished_at    timestamptz
);
