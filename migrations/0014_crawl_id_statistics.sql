-- How the planner estimates one crawl's rows. Every table keyed by crawl holds few distinct
-- crawls, so ANALYZE's most-common-values list named every crawl it saw and gave them all of the
-- table: a crawl started after the last ANALYZE was estimated at 1 row of its own. The planner
-- then scanned the whole crawl by its crawl_id prefix inside nested loops (lowering link depths:
-- the crawl's frontier once per row of it, 2.4-5.3 s a statement on the bench's fifth crawl of
-- 5,000 pages). With one most-common value at most, a crawl ANALYZE has not seen is estimated at
-- the average crawl's rows, and the (crawl_id, fingerprint) keys are looked up one by one.
DO $$
DECLARE
  keyed record;
BEGIN
  FOR keyed IN
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
    WHERE c.table_schema = current_schema() AND c.column_name = 'crawl_id'
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN crawl_id SET STATISTICS 1', keyed.table_name);
    EXECUTE format('ANALYZE %I', keyed.table_name);
  END LOOP;
END
$$;
