-- Core records (000 §8): URL, frontier entry, host, fetch, body, document, link, robots cache.
-- Fingerprints are 16 bytes (128 bits of SHA-256 over the canonical URL, 000 §4.3).

CREATE TABLE crawls (
  id              text PRIMARY KEY,
  kind            text NOT NULL DEFAULT 'discovery',           -- discovery | recrawl
  state           text NOT NULL DEFAULT 'running',             -- running | paused | stopping | finished | stopped
  config          jsonb NOT NULL,
  seed_hosts      text[] NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT now(),
  finished_at     timestamptz,
  -- Admission, published by the frontier workflow and enforced atomically by host claims.
  max_pages       integer NOT NULL,
  max_in_flight   integer NOT NULL,
  admit_factor    real NOT NULL DEFAULT 1,                     -- backpressure: 1 full speed, 0 closed
  admitted        bigint NOT NULL DEFAULT 0,                   -- URLs handed to host queues so far
  in_flight       integer NOT NULL DEFAULT 0,                  -- handed out and not yet settled
  discovered      bigint NOT NULL DEFAULT 0                    -- URLs registered (the discovery budget)
);

CREATE TABLE urls (
  fingerprint              bytea PRIMARY KEY CHECK (length(fingerprint) = 16),
  url                      text NOT NULL,
  canonicalization_version smallint NOT NULL,
  host                     text NOT NULL,
  origin                   text NOT NULL,
  state                    text NOT NULL DEFAULT 'new',        -- new | ok | not-modified | redirect | gone | failed | dead
  value_tier               smallint NOT NULL DEFAULT 2,
  first_seen_at            timestamptz NOT NULL DEFAULT now(),
  fetch_generation         integer NOT NULL DEFAULT 0,         -- last generation handed out
  last_fetch_at            timestamptz,
  last_status              integer,
  last_success_at          timestamptz,
  next_fetch_at            timestamptz,
  etag                     text,
  last_modified            text,
  last_raw_hash            bytea,
  last_normalized_hash     bytea,
  last_bytes               bigint,
  change_observations      integer NOT NULL DEFAULT 0,
  changes_observed         integer NOT NULL DEFAULT 0,
  observed_days            double precision NOT NULL DEFAULT 0,
  change_rate_per_day      double precision,
  change_rate_method       text,
  near_duplicate_of        bytea
);
CREATE INDEX urls_host ON urls (host);
CREATE INDEX urls_next_fetch ON urls (next_fetch_at) WHERE next_fetch_at IS NOT NULL;

-- The front queues: one row per (crawl, URL). The bulk of the frontier lives here, not in
-- workflow state, so a crawl of millions of URLs stays within Temporal's history limits.
CREATE TABLE frontier (
  crawl_id        text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  fingerprint     bytea NOT NULL,
  url             text NOT NULL,
  host            text NOT NULL,
  origin          text NOT NULL,
  depth           integer NOT NULL,
  priority        real NOT NULL,
  tier            smallint NOT NULL,
  purpose         text NOT NULL DEFAULT 'discovery',           -- discovery | recrawl | reestimation | verification
  state           text NOT NULL DEFAULT 'queued',              -- queued | dispatched | done | failed | dead | dropped
  outcome         text,                                        -- ok | not-modified | redirect | robots-disallowed | <failure type>
  generation      integer,                                     -- fetch generation, assigned when dispatched
  claim_token     text,                                        -- the claim that dispatched it (idempotent claims)
  attempts        integer NOT NULL DEFAULT 0,
  redirect_hops   integer NOT NULL DEFAULT 0,
  redirect_chain  bytea[] NOT NULL DEFAULT '{}',
  discovered_from bytea,
  anchor_text     text,
  discovered_at   timestamptz NOT NULL DEFAULT now(),
  not_before      timestamptz,                                 -- requeued after a host-level failure
  demotion        jsonb,                                       -- trap reasons (000 §6.2), for operators
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (crawl_id, fingerprint)
);
CREATE INDEX frontier_queued ON frontier (host, tier, priority DESC) WHERE state = 'queued';
CREATE INDEX frontier_crawl_state ON frontier (crawl_id, state);
CREATE INDEX frontier_claim ON frontier (claim_token) WHERE claim_token IS NOT NULL;

-- The back queues' durable side: one row per host, shared by every crawl.
CREATE TABLE hosts (
  host               text PRIMARY KEY,
  workflow_active    boolean NOT NULL DEFAULT false,
  woken_at           timestamptz,
  politeness         jsonb,                                    -- last HostPolitenessState snapshot
  delay_override_ms  integer,
  paused             boolean NOT NULL DEFAULT false,
  quarantined_reason text,
  updated_at         timestamptz NOT NULL DEFAULT now()
);

-- Idempotency key: URL fingerprint + fetch generation (000 §9.1).
CREATE TABLE fetches (
  fingerprint       bytea NOT NULL,
  generation        integer NOT NULL,
  crawl_id          text NOT NULL,
  url               text NOT NULL,
  final_url         text NOT NULL,
  fetched_at        timestamptz NOT NULL,
  status            integer,
  outcome           text NOT NULL,
  content_type      text,
  headers           jsonb NOT NULL DEFAULT '{}',
  raw_hash          bytea,
  body_key          text,
  bytes             bigint,
  wire_bytes        bigint,
  timings           jsonb NOT NULL DEFAULT '{}',
  redirect_location text,
  PRIMARY KEY (fingerprint, generation)
);
CREATE INDEX fetches_crawl ON fetches (crawl_id, fetched_at);
CREATE INDEX fetches_raw_hash ON fetches (raw_hash);

-- One object per distinct body (content-addressed by SHA-256 of the decoded bytes).
CREATE TABLE bodies (
  sha256        bytea PRIMARY KEY,
  object_key    text NOT NULL,
  bytes         bigint NOT NULL,
  stored_bytes  bigint NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
  fingerprint       bytea NOT NULL,
  generation        integer NOT NULL,
  parser_version    integer NOT NULL,
  crawl_id          text NOT NULL,
  title             text,
  language          text,
  canonical_hint    text,
  meta_robots       text,
  x_robots_tag      text,
  noindex           boolean NOT NULL DEFAULT false,
  nofollow          boolean NOT NULL DEFAULT false,
  charset           text,
  text_length       integer NOT NULL DEFAULT 0,
  normalized_hash   bytea,
  simhash           bigint,
  minhash           integer[],
  links_found       integer NOT NULL DEFAULT 0,
  links_registered  integer NOT NULL DEFAULT 0,
  extracted         jsonb NOT NULL DEFAULT '{}',
  parsed_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (fingerprint, generation, parser_version)
);

CREATE TABLE links (
  source        bytea NOT NULL,
  target        bytea NOT NULL,
  crawl_id      text NOT NULL,
  anchor_text   text,
  rel           text,
  kind          text NOT NULL DEFAULT 'link',                  -- link | redirect | canonical
  discovered_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source, target, kind)
);
CREATE INDEX links_target ON links (target);

-- robots.txt per origin (scheme + host + effective port), shared by all workers; refreshed under a lease.
CREATE TABLE robots_cache (
  origin        text PRIMARY KEY,
  entry         jsonb,
  fetched_at    timestamptz,
  expires_at    timestamptz,
  sitemaps      text[] NOT NULL DEFAULT '{}',
  lease_owner   text,
  lease_until   timestamptz
);

-- Poison URLs (000 §6.1, §9.1): attempts per fingerprint and stage, then a dead letter.
CREATE TABLE attempts (
  fingerprint   bytea NOT NULL,
  stage         text NOT NULL,                                 -- fetch | parse
  attempt_key   text NOT NULL,                                 -- generation/activity attempt: idempotent under redelivery
  crawl_id      text NOT NULL,
  failure_type  text NOT NULL,
  message       text,
  at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (fingerprint, stage, attempt_key)
);

CREATE TABLE dead_letters (
  fingerprint   bytea NOT NULL,
  stage         text NOT NULL,
  crawl_id      text NOT NULL,
  url           text NOT NULL,
  failure_type  text NOT NULL,
  attempts      integer NOT NULL,
  history       jsonb NOT NULL,
  dead_at       timestamptz NOT NULL DEFAULT now(),
  requeued_at   timestamptz,
  PRIMARY KEY (fingerprint, stage, crawl_id)
);

-- Growth statistics per crawl for crawler-trap detection (000 §6.2): URLs per host and distinct
-- query variants per path, maintained as URLs are registered.
CREATE TABLE crawl_host_stats (
  crawl_id  text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  host      text NOT NULL,
  urls      integer NOT NULL DEFAULT 0,
  demoted   integer NOT NULL DEFAULT 0,
  dropped   integer NOT NULL DEFAULT 0,
  PRIMARY KEY (crawl_id, host)
);

CREATE TABLE crawl_path_stats (
  crawl_id  text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  host      text NOT NULL,
  path      text NOT NULL,
  variants  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (crawl_id, host, path)
);

-- URLs the crawl saw and chose not to register, with the reason, for operators (trap drops,
-- scope, depth). Bounded per crawl by the activities that write it.
CREATE TABLE crawl_rejections (
  crawl_id     text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  fingerprint  bytea NOT NULL,
  url          text NOT NULL,
  reason       text NOT NULL,
  detail       jsonb,
  seen_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (crawl_id, fingerprint)
);
