-- How each URL entered a crawl's frontier: 'seed', 'link', 'redirect', 'sitemap' (listed by a
-- sitemap), 'feed' (listed by an RSS or Atom feed), 'canonical' (a page's rel=canonical target),
-- 'robots' (a sitemap robots.txt declared, or /sitemap.xml of a seed origin). NULL for entries a
-- crawl did not discover (a recrawl cycle's planned visits) and for rows from before this column.
-- The summary and `crawler status` count URLs discovered and pages fetched by it.
ALTER TABLE frontier ADD COLUMN source text;
