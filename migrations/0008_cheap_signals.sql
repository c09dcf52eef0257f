-- Cheap change signals (001): sitemaps ("when their dates are reliable, they say what changed
-- without visiting anything else") and listing pages ("fetch the list, compare, fetch only the
-- items whose summary changed").
--
-- A recrawl cycle first sweeps the sitemaps robots.txt declared for the origins it may revisit
-- and the crawl's listing pages (a crawl of kind 'signals', through the ordinary host workflows,
-- so politeness and robots hold), records what they say on the URL records, then plans with it.

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
CREATE INDEX sitemaps_url ON sitemaps (url);

-- What the sitemaps last said about a URL. The lastmod is a window because a date-only lastmod
-- ("2026-11-30") says the change happened somewhere in that day; both ends are kept.
ALTER TABLE urls
  ADD COLUMN sitemap_lastmod_from timestamptz,
  ADD COLUMN sitemap_lastmod_to   timestamptz,
  ADD COLUMN sitemap_read_at      timestamptz;     -- when a sitemap last listed the URL (fetch start)

-- The recrawl planner's extra pool: URLs a sitemap says changed since the last visit.
CREATE INDEX urls_sitemap_signalled ON urls (sitemap_lastmod_from DESC)
  WHERE sitemap_lastmod_from IS NOT NULL AND last_success_at IS NOT NULL;

-- What the listing pages say about a URL (001: compare the list's entries, fetch only the items
-- whose entry changed): the digest of its entry at the latest listing reading, when that was, and
-- the digest that was current when the page itself was last visited. They differ: the item changed.
ALTER TABLE urls
  ADD COLUMN listing_digest          bytea,
  ADD COLUMN listing_read_at         timestamptz,
  ADD COLUMN listing_digest_at_visit bytea;
CREATE INDEX urls_listing_signalled ON urls (listing_read_at DESC)
  WHERE listing_digest IS NOT NULL AND listing_digest_at_visit IS NOT NULL AND listing_digest <> listing_digest_at_visit
    AND last_success_at IS NOT NULL;

-- How far an origin's signals of one source ('sitemap', 'listing') can be trusted, learned from
-- our own visits: a claim is confirmed when a visit's verdict agrees with it, refuted otherwise.
CREATE TABLE cheap_signal_trust (
  origin      text NOT NULL,
  source      text NOT NULL,
  confirmed   integer NOT NULL DEFAULT 0,
  refuted     integer NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (origin, source)
);
