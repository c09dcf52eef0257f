-- What robots.txt requests cost on the wire, charged to the crawl whose refresh sent them
-- (docs/storage-and-recrawl.md, "What a fetch costs"): one row per request, a redirect hop each,
-- its heads and body as they crossed, a failed or cut request's bytes before it ended too, a 304's
-- too.
CREATE TABLE robots_requests (
  crawl_id        text NOT NULL,
  -- The refresh call (the same across its retries), the activity attempt that sent the request and
  -- the hop in its redirect chain (0 first): a retried attempt sent requests again and adds rows, a
  -- repeated write of one attempt's rows adds none.
  call_id         text NOT NULL,
  attempt         integer NOT NULL,
  hop             integer NOT NULL,
  origin          text NOT NULL,
  -- The response's status; NULL when the request failed below HTTP (DNS, connect, reset).
  status          integer,
  sent_bytes      bigint NOT NULL,
  received_bytes  bigint NOT NULL,
  at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (crawl_id, call_id, attempt, hop)
);
ALTER TABLE robots_requests ALTER COLUMN crawl_id SET STATISTICS 1;
