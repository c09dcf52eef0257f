-- Sitemaps as cheap change signals (001: "sitemaps and feeds, when their dates are reliable, say
-- what changed without visiting anything else").
--
-- A recrawl cycle first sweeps the sitemaps that robots.txt declared for the origins it may
-- revisit (a crawl of kind 'sitemaps', through the ordinary host workflows, so politeness and
-- robots hold), records each listed URL's lastmod on its URL record, then plans with it.

-- Every sitemap the crawler knows: declared by robots.txt, or listed by a sitemap index.
CREATE TABLE sitemaps (
  fingerprint      bytea PRIMARY KEY CHECK (length(fingerprint) = 16),
  url              text NOT NULL,
  -- Origins whose robots.txt declared this sitemap (or the index that led to it): the only
  -- origins besides its own directory it may make claims about (sitemaps.org cross-submission).
  declared_by      text[] NOT NULL DEFAULT '{}',
  parent           bytea,                          -- the sitemap index that listed it, if any
  first_seen_at    timestamptz NOT NULL DEFAULT now(),
  last_read_at     timestamptz,                    -- fetch start of the last reading
  last_format      text,                           -- urlset | sitemapindex | rss | atom | text | unrecognized
  last_urls        integer,                        -- entries accepted at the last reading
  last_known_urls  integer,                        -- of those, URLs the crawler already had a record of
  last_refused     jsonb                           -- refused entries by reason
);

-- What the sitemaps last said about a URL. The lastmod is a window because a date-only lastmod
-- ("2026-11-30") says the change happened somewhere in that day; both ends are kept.
ALTER TABLE urls
  ADD COLUMN sitemap_lastmod_from timestamptz,
  ADD COLUMN sitemap_lastmod_to   timestamptz,
  ADD COLUMN sitemap_read_at      timestamptz;     -- when a sitemap last listed the URL (fetch start)

-- The recrawl planner's extra pool: URLs a sitemap says changed since the last visit.
CREATE INDEX urls_sitemap_signalled ON urls (sitemap_lastmod_from DESC)
  WHERE sitemap_lastmod_from IS NOT NULL AND last_success_at IS NOT NULL;

-- How far an origin's sitemap dates can be trusted, learned from our own visits: a claim is
-- confirmed when a visit's verdict agrees with what the lastmod said, refuted otherwise.
CREATE TABLE sitemap_trust (
  origin      text PRIMARY KEY,
  confirmed   integer NOT NULL DEFAULT 0,
  refuted     integer NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
