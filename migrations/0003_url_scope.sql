-- URL identity and scope (issue 3) and the seen test in tiers (issue 5 item 3): the figures an
-- operator needs to see what the crawl refused, demoted and deduplicated, and why.

-- The seen test per crawl. A Bloom negative goes straight to the atomic insert (frontier primary
-- key); a positive is looked up in the frontier first; a false positive is a positive the
-- frontier did not hold (treated as new). Summed over every worker process of the crawl.
CREATE TABLE crawl_seen_stats (
  crawl_id               text PRIMARY KEY REFERENCES crawls (id) ON DELETE CASCADE,
  checked                bigint NOT NULL DEFAULT 0,     -- in-scope fingerprints that reached the seen test
  unfiltered             bigint NOT NULL DEFAULT 0,     -- checked with the filter off (straight to the insert)
  bloom_negatives        bigint NOT NULL DEFAULT 0,
  bloom_positives        bigint NOT NULL DEFAULT 0,     -- each cost one exact lookup
  bloom_false_positives  bigint NOT NULL DEFAULT 0,
  filter_fill_ratio      real,                          -- share of bits set, as a worker last reported it
  filter_bytes           bigint,
  updated_at             timestamptz NOT NULL DEFAULT now()
);

-- Every refusal by reason code (out-of-scope:host, depth, trap:calendar, robots-disallowed, ...).
-- Complete, while crawl_rejections keeps a bounded sample of the URLs themselves.
CREATE TABLE crawl_rejection_counts (
  crawl_id  text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  reason    text NOT NULL,
  urls      bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (crawl_id, reason)
);

-- Unique content as depth grows, per host (000 §6.2: "content hash growth < 1% after depth
-- 5-10"): pages parsed at a depth and how many brought a normalized content hash the crawl had
-- not seen. Fed once per page (frontier.content_counted makes a replayed parse count nothing).
CREATE TABLE crawl_content_hashes (
  crawl_id         text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  normalized_hash  bytea NOT NULL,
  PRIMARY KEY (crawl_id, normalized_hash)
);

CREATE TABLE crawl_depth_stats (
  crawl_id     text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  host         text NOT NULL,
  depth        integer NOT NULL,
  pages        integer NOT NULL DEFAULT 0,
  new_content  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (crawl_id, host, depth)
);

ALTER TABLE frontier ADD COLUMN content_counted boolean NOT NULL DEFAULT false;
