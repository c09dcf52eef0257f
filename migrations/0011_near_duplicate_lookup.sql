-- The near-duplicate lookup as a function, so that the statement taking a document's index key
-- locks also reads its candidates. A VOLATILE function's queries each take a fresh snapshot (READ
-- COMMITTED): called after the locks are granted, it sees what the transactions that held them
-- before committed, as a separate statement would. The locks are then held for one round trip
-- (the COMMIT) instead of two.
--
-- Returns the documents sharing the most of the given index keys (other than `self`), at most
-- `max_candidates`, each with its cluster, then `self`'s own cluster row (own = true) if any.
-- Returns nothing unless `after_locks`: the caller passes a value of the lock step, which makes
-- the call depend on it (evaluated after it) and skips the lookup for a superseded document.
CREATE FUNCTION near_duplicate_candidates(after_locks boolean, index_name text, parts smallint[], keys integer[], self bytea, max_candidates integer)
RETURNS TABLE (fingerprint bytea, generation integer, parser_version integer, simhash text, minhash integer[], cluster_id bytea, method text, own boolean)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF after_locks IS NOT TRUE THEN
    RETURN;
  END IF;
  IF index_name NOT IN ('simhash', 'minhash') THEN
    RAISE EXCEPTION 'near_duplicate_candidates: index_name must be simhash or minhash, got %', index_name;
  END IF;
  -- One query for both indexes: simhash_blocks keys by block, minhash_bands by band.
  RETURN QUERY EXECUTE format(
    'WITH hits AS (
       SELECT i.fingerprint AS f, i.generation AS g, i.parser_version AS p, count(*) AS shared
       FROM unnest($1, $2) AS q(part, key)
       JOIN %I i ON i.%I = q.part AND i.key = q.key
       WHERE i.fingerprint <> $3
       GROUP BY i.fingerprint, i.generation, i.parser_version
       ORDER BY shared DESC, i.fingerprint
       LIMIT $4)
     SELECT d.fingerprint, d.generation, d.parser_version, d.simhash::text, d.minhash, n.cluster_id, n.method, false
     FROM hits h
     JOIN documents d ON d.fingerprint = h.f AND d.generation = h.g AND d.parser_version = h.p
     LEFT JOIN near_duplicates n ON n.fingerprint = d.fingerprint',
    CASE index_name WHEN 'simhash' THEN 'simhash_blocks' ELSE 'minhash_bands' END,
    CASE index_name WHEN 'simhash' THEN 'block' ELSE 'band' END)
    USING parts, keys, self, max_candidates;
  RETURN QUERY SELECT n.fingerprint, NULL::integer, NULL::integer, NULL::text, NULL::integer[], n.cluster_id, n.method, true
    FROM near_duplicates n WHERE n.fingerprint = self;
END
$$;
