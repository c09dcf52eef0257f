-- Rendering pages built by JavaScript (docs/rendering.md).

-- One render task per page generation and route ('' the page itself, '#/...' a hash route of an
-- allowlisted application). The page's frontier row stays in flight ('fetched', outcome
-- 'render-pending') until its renders end, so the crawl does not finish before them.
CREATE TABLE renders (
  crawl_id          text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  fingerprint       bytea NOT NULL,
  generation        integer NOT NULL,
  route_key         text NOT NULL DEFAULT '',
  host              text NOT NULL,
  url               text NOT NULL,
  path_template     text NOT NULL,
  reason            text NOT NULL,
  sample_both_ways  boolean NOT NULL DEFAULT false,
  -- pending | rendered | partial | failed | dead | deferred
  state             text NOT NULL,
  ended             text,                 -- quiet | settle-cap | navigation-timeout
  failure_type      text,
  message           text,
  attempts          integer NOT NULL DEFAULT 0,
  dom_body_key      text,
  dom_sha256        bytea,
  dom_bytes         integer,
  cpu_ms            integer,
  peak_pss_bytes    bigint,
  duration_ms       integer,
  text_length       integer,
  links_found       integer,
  links_registered  integer,
  subresources      integer,
  comparison        text,                 -- needs-render | static-suffices | inconclusive (sampled both ways)
  scheduled_at      timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz,
  finished_at       timestamptz,
  PRIMARY KEY (crawl_id, fingerprint, generation, route_key)
);
ALTER TABLE renders ALTER COLUMN crawl_id SET STATISTICS 1;
CREATE INDEX renders_crawl_host ON renders (crawl_id, host);

-- What each render's browser asked for, and what the gate did with it.
CREATE TABLE render_subresources (
  crawl_id       text NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
  fingerprint    bytea NOT NULL,
  generation     integer NOT NULL,
  route_key      text NOT NULL,
  seq            integer NOT NULL,
  method         text NOT NULL,
  url            text NOT NULL,
  resource_type  text NOT NULL,
  -- fetched | cached | revalidated | blocked-type | blocked-origin | blocked-scheme |
  -- robots-disallowed | robots-unreachable | politeness-refused | redirect | failed
  outcome        text NOT NULL,
  status         integer,
  bytes          integer,
  body_key       text,
  content_type   text,
  requested_at   timestamptz NOT NULL,
  duration_ms    integer,
  PRIMARY KEY (crawl_id, fingerprint, generation, route_key, seq)
);
ALTER TABLE render_subresources ALTER COLUMN crawl_id SET STATISTICS 1;

-- What a crawl spent on rendering: its budget is checked against this row (soft under concurrency).
CREATE TABLE crawl_render_usage (
  crawl_id   text PRIMARY KEY REFERENCES crawls (id) ON DELETE CASCADE,
  renders    integer NOT NULL DEFAULT 0,
  cpu_ms     bigint NOT NULL DEFAULT 0,
  deferred   integer NOT NULL DEFAULT 0
);
ALTER TABLE crawl_render_usage ALTER COLUMN crawl_id SET STATISTICS 1;

-- Subresources shared by every render, keyed by URL (RFC 9111 freshness; bodies in the object store).
CREATE TABLE subresource_cache (
  url            text PRIMARY KEY,
  status         integer NOT NULL,
  content_type   text,
  headers        jsonb NOT NULL,
  body_key       text NOT NULL,
  bytes          integer NOT NULL,
  etag           text,
  last_modified  text,
  fresh_until    timestamptz NOT NULL,
  stored_at      timestamptz NOT NULL DEFAULT now(),
  hits           bigint NOT NULL DEFAULT 0
);

-- Per host and path template: do its pages need a browser? Trained by pages rendered both ways.
CREATE TABLE render_verdicts (
  host             text NOT NULL,
  path_template    text NOT NULL,
  verdict          text,
  needs_render     integer NOT NULL DEFAULT 0,
  static_suffices  integer NOT NULL DEFAULT 0,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (host, path_template)
);

-- The pacing ledger of hosts that renders reach as other origins (--render-allow-origin): every
-- request to such a host, a page fetch or a subresource, takes the host's turn here. A host has a
-- row from when a crawl allowing it starts. One request at a time (busy_until_ms, held by
-- `holder` until it gives the turn back), and none before next_at_ms.
CREATE TABLE host_pacing (
  host           text PRIMARY KEY,
  next_at_ms     bigint NOT NULL DEFAULT 0,
  busy_until_ms  bigint NOT NULL DEFAULT 0,
  holder         text,
  shared_since   timestamptz NOT NULL DEFAULT now()
);
