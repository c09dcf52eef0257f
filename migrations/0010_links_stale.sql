-- A URL claimed before a shorter path from the seeds found it registers its links one level too
-- deep, and refuses some beyond maxDepth. Lowering its depth marks it; once it is parsed, the
-- frontier tick registers its links again at the new depth, a few pages at a time, and the crawl
-- does not finish before.
ALTER TABLE frontier ADD COLUMN links_stale boolean NOT NULL DEFAULT false;
CREATE INDEX frontier_links_stale ON frontier (crawl_id, depth) WHERE links_stale;
