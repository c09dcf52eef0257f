-- What a running crawl waits for, so that its progress line and `crawler status` can say it.
--
-- A crawl's object store failures as its workers met them (store-through-outage.ts): tries that
-- failed to store a body, and since when the store has been failing for the crawl (null once a
-- body it waited with was stored). Written only on a failure or a recovery: nothing on the
-- healthy path.
CREATE TABLE crawl_storage_health (
  crawl_id         text PRIMARY KEY,
  failures         bigint NOT NULL DEFAULT 0,
  failing_since    timestamptz,
  last_error       text,
  last_failure_at  timestamptz
);

-- A host workflow's long wait (a throttle after Retry-After, an open circuit breaker, an
-- unreachable robots.txt, a retry's backoff, a long Crawl-delay): why and until when. Written
-- when such a wait begins; a row whose `until` has passed means nothing.
CREATE TABLE host_waits (
  host    text PRIMARY KEY,
  reason  text NOT NULL,
  since   timestamptz NOT NULL,
  until   timestamptz NOT NULL
);
