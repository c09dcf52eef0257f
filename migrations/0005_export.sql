-- WARC export and body retention (issue 6, items 2 and 7).

-- The request headers the HTTP layer actually sent for a fetch (User-Agent, Accept,
-- Accept-Encoding, If-None-Match, If-Modified-Since), so a WARC request record states what was
-- sent rather than a reconstruction. NULL for fetches recorded before this column existed.
ALTER TABLE fetches ADD COLUMN IF NOT EXISTS request_headers jsonb;

-- `crawler bodies prune` re-checks, body by body, that no fetch points at an object before it
-- deletes it; fetches_raw_hash covers the hash, this covers the key.
CREATE INDEX IF NOT EXISTS fetches_body_key ON fetches (body_key) WHERE body_key IS NOT NULL;
