-- A host's claim picks its crawl's queued URLs: `crawl_id = $1 AND host = $2 AND state = 'queued'`.
-- Connections plan once from the statistics of the crawl before (planner-statistics.ts), when
-- nothing was queued, and that plan took frontier_crawl_state and read every queued URL of the
-- crawl to find the host's few (auto_explain on a 1,000-host crawl: 608 buffers for 3 rows; 383
-- and 639 a claim on a second crawl, 78 on a first). With the host in that index, whichever of
-- it and frontier_queued the plan takes reads only the host's URLs.
CREATE INDEX frontier_crawl_state_host ON frontier (crawl_id, state, host);
DROP INDEX frontier_crawl_state;
