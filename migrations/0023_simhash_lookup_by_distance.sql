-- The SimHash lookup reads each candidate's SimHash from the index and returns only those within
-- the near-duplicate distance, nearest first. Before, it took the 100 pages sharing the most
-- blocks, near or not, and fetched each one's document row (for its SimHash) and cluster row: on a
-- fresh 1,000-host crawl 544 buffers a page, 300 of them documents rows, and the statement 43% of
-- all Postgres buffer reads (pg_stat_statements); a page that matches nothing now reads the index
-- alone. A near match no longer loses its place among the 100 to pages that only share boilerplate.
-- MinHash bands (short texts) still join documents for their signatures.
ALTER TABLE simhash_blocks ADD COLUMN simhash bigint;
UPDATE simhash_blocks s SET simhash = d.simhash
  FROM documents d
  WHERE d.fingerprint = s.fingerprint AND d.generation = s.generation AND d.parser_version = s.parser_version;
CREATE INDEX simhash_blocks_near_lookup ON simhash_blocks (block, key) INCLUDE (fingerprint, generation, parser_version, simhash);
DROP INDEX simhash_blocks_covering_lookup;

DROP FUNCTION near_duplicate_candidates(boolean, text, smallint[], integer[], bytea, integer);

-- As in 0011: a VOLATILE function's queries each take a fresh snapshot, so called after the index
-- key locks are granted it sees what the transactions that held them committed. Returns the
-- candidates sharing the given index keys (other than `self`), at most `max_candidates`, each with
-- its cluster, then `self`'s own cluster row (own = true) if any. SimHash candidates are those
-- within `max_simhash_distance` bits of `self_simhash`, nearest first; MinHash candidates those
-- sharing the most bands (their similarity is the caller's to estimate). Returns nothing unless
-- `after_locks` (see 0011).
CREATE FUNCTION near_duplicate_candidates(after_locks boolean, index_name text, parts smallint[], keys integer[], self bytea,
                                          self_simhash bigint, max_simhash_distance integer, max_candidates integer)
RETURNS TABLE (fingerprint bytea, generation integer, parser_version integer, simhash text, minhash integer[], cluster_id bytea, method text, own boolean)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF after_locks IS NOT TRUE THEN
    RETURN;
  END IF;
  IF index_name = 'simhash' THEN
    -- A near page shares at least one block, usually several: one row per page.
    RETURN QUERY
      WITH hits AS (
        SELECT DISTINCT i.fingerprint AS f, i.generation AS g, i.parser_version AS p, i.simhash AS h,
               bit_count((i.simhash # self_simhash)::bit(64)) AS distance
        FROM unnest(parts, keys) AS q(part, key)
        JOIN simhash_blocks i ON i.block = q.part AND i.key = q.key
        WHERE i.fingerprint <> self AND bit_count((i.simhash # self_simhash)::bit(64)) <= max_simhash_distance
        ORDER BY distance, f
        LIMIT max_candidates)
      SELECT h.f, h.g, h.p, h.h::text, NULL::integer[], n.cluster_id, n.method, false
      FROM hits h LEFT JOIN near_duplicates n ON n.fingerprint = h.f
      ORDER BY h.distance, h.f;
  ELSIF index_name = 'minhash' THEN
    RETURN QUERY
      WITH hits AS (
        SELECT i.fingerprint AS f, i.generation AS g, i.parser_version AS p, count(*) AS shared
        FROM unnest(parts, keys) AS q(part, key)
        JOIN minhash_bands i ON i.band = q.part AND i.key = q.key
        WHERE i.fingerprint <> self
        GROUP BY i.fingerprint, i.generation, i.parser_version
        ORDER BY shared DESC, i.fingerprint
        LIMIT max_candidates)
      SELECT d.fingerprint, d.generation, d.parser_version, d.simhash::text, d.minhash, n.cluster_id, n.method, false
      FROM hits h
      JOIN documents d ON d.fingerprint = h.f AND d.generation = h.g AND d.parser_version = h.p
      LEFT JOIN near_duplicates n ON n.fingerprint = d.fingerprint;
  ELSE
    RAISE EXCEPTION 'near_duplicate_candidates: index_name must be simhash or minhash, got %', index_name;
  END IF;
  RETURN QUERY SELECT n.fingerprint, NULL::integer, NULL::integer, NULL::text, NULL::integer[], n.cluster_id, n.method, true
    FROM near_duplicates n WHERE n.fingerprint = self;
END
$$;
