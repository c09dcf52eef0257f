-- A page's rel=canonical hint (its <link> or its response's Link header) and what the crawler made
-- of it (000 §4.2: evidence about URL identity, never a blind redirect). The edge itself is a
-- `links` row of kind 'canonical'. 'pending' waits for the hinted URL to be parsed; 'obeyed' made
-- it the representative of a near-duplicate cluster holding the hinting page (reason 'exact' or
-- 'near'); 'evidence' keeps the hint and obeys nothing (reason 'cross-host', 'redirect',
-- 'non-canonical', 'different-content').
CREATE TABLE canonical_hints (
  source      bytea NOT NULL,
  target      bytea NOT NULL,
  crawl_id    text NOT NULL,
  verdict     text NOT NULL,
  reason      text,
  decided_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source, target)
);
-- A page being parsed settles the hints that wait for it.
CREATE INDEX canonical_hints_pending_target ON canonical_hints (target) WHERE verdict = 'pending';
-- As migration 0014 says for every table with a crawl_id.
ALTER TABLE canonical_hints ALTER COLUMN crawl_id SET STATISTICS 1;
