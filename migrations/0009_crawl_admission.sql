-- The admission reservation moves to a row nothing references. Claims lock it (FOR UPDATE) to
-- grant exactly; on the crawl row that lock waited for every parse transaction in flight, since
-- each insert that references the crawl (frontier rows, counters) holds KEY SHARE on that row
-- until COMMIT (bench/README.md: 283 ms per claim on average), and a claim queued behind those
-- could close a deadlock with two parses inserting the same content hash.
CREATE TABLE crawl_admission (
  crawl_id  text PRIMARY KEY,
  admitted  bigint NOT NULL DEFAULT 0          -- URLs handed to host queues, all time
);
INSERT INTO crawl_admission (crawl_id, admitted) SELECT id, admitted FROM crawls;
ALTER TABLE crawls DROP COLUMN admitted;
