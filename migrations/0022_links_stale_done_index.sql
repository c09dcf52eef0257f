-- The frontier tick takes and counts a crawl's parsed pages marked links_stale (takeStaleLinkPage,
-- countStaleLinkPages: `crawl_id = $1 AND links_stale AND state = 'done'`, shallowest first). With
-- the state index carrying the host (0021), the plans of a first crawl read every parsed page of
-- the crawl for each take: 452,391 and 527,895 buffers for about 280 takes (pg_stat_statements, two
-- fresh 1,000-host crawls; 51,338 and 55,590 before 0021). An index holding exactly the rows both
-- statements want, in depth order, answers them whatever the statistics say.
CREATE INDEX frontier_links_stale_done ON frontier (crawl_id, depth) WHERE links_stale AND state = 'done';
DROP INDEX frontier_links_stale;
