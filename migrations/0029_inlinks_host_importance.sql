-- Importance in the frontier's priority (docs/discovery.md, "Priority"): a URL's in-links, weighted
-- by whether they come from another host, and its host's importance, from the in-links its pages
-- got from other hosts in the crawl, or set by the operator (`crawler hosts set-importance`).
ALTER TABLE frontier ADD COLUMN inlinks real NOT NULL DEFAULT 0;
ALTER TABLE crawl_host_stats ADD COLUMN inlinks real NOT NULL DEFAULT 0;
-- 0..1; NULL: the host's importance comes from its in-links (neutral without any).
ALTER TABLE hosts ADD COLUMN importance real;
