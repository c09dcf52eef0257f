-- Near-duplicate lookups read cluster leaders only, and a bounded number of them a key.
--
-- A page that joined a cluster is found through its cluster's representative, so members are no
-- longer lookup candidates: the index rows a lookup reads are those of representatives and of
-- pages in no cluster (`leader`). Where many pages are alike (a site's template, product
-- variants), most of them join a cluster and the candidates sharing a key stay few. Where they
-- are alike but not near (the same vocabulary, other counts), every page leads its own and a key
-- can still be shared by thousands: a lookup then reads the first `max_rows_per_key` leaders of
-- each key in fingerprint order and says how many keys it cut short. A page's cost no longer
-- grows with the number of pages like it.
ALTER TABLE simhash_blocks ADD COLUMN leader boolean NOT NULL DEFAULT true;
ALTER TABLE minhash_bands ADD COLUMN leader boolean NOT NULL DEFAULT true;
UPDATE simhash_blocks s SET leader = false FROM near_duplicates n WHERE n.fingerprint = s.fingerprint AND n.method <> 'representative';
UPDATE minhash_bands m SET leader = false FROM near_duplicates n WHERE n.fingerprint = m.fingerprint AND n.method <> 'representative';

-- Ordered by fingerprint within a key, so that a capped read stops after its rows (index only).
CREATE INDEX simhash_blocks_leader_lookup ON simhash_blocks (block, key, fingerprint) INCLUDE (generation, parser_version, simhash) WHERE leader;
DROP INDEX simhash_blocks_near_lookup;
CREATE INDEX minhash_bands_leader_lookup ON minhash_bands (band, key, fingerprint) INCLUDE (generation, parser_version) WHERE leader;
DROP INDEX minhash_bands_covering_lookup;

DROP FUNCTION near_duplicate_candidates(boolean, text, smallint[], integer[], bytea, bigint, integer, integer);

-- As in 0011 and 0023: a VOLATILE function's queries each take a fresh snapshot, so called after
-- the index key locks are granted it sees what the transactions that held them committed. Returns
-- rows of three kinds: 'candidate', the leaders sharing the given index keys (other than `self`),
-- at most `max_rows_per_key` read a key and `max_candidates` returned, each with its cluster;
-- 'own', `self`'s own cluster row if any; and one 'summary' row whose `capped_keys` counts the
-- keys that held more leaders than were read. SimHash candidates are those within
-- `max_simhash_distance` bits of `self_simhash`, nearest first; MinHash candidates those sharing
-- the most bands (their similarity is the caller's to estimate). Returns nothing unless
-- `after_locks` (see 0011).
CREATE FUNCTION near_duplicate_candidates(after_locks boolean, index_name text, parts smallint[], keys integer[], self bytea,
                                          self_simhash bigint, max_simhash_distance integer, max_candidates integer, max_rows_per_key integer)
RETURNS TABLE (kind text, fingerprint bytea, generation integer, parser_version integer, simhash text, minhash integer[], cluster_id bytea, method text, capped_keys integer)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF after_locks IS NOT TRUE THEN
    RETURN;
  END IF;
  IF index_name = 'simhash' THEN
    RETURN QUERY
      -- Each key's leaders, one more than may be read: the extra row says the key was cut short.
      WITH reads AS (
        SELECT r.*
        FROM unnest(parts, keys) AS q(part, key)
        CROSS JOIN LATERAL (
          SELECT i.fingerprint AS f, i.generation AS g, i.parser_version AS p, i.simhash AS h, row_number() OVER (ORDER BY i.fingerprint) AS n
          FROM (SELECT i.fingerprint, i.generation, i.parser_version, i.simhash FROM simhash_blocks i
                WHERE i.block = q.part AND i.key = q.key AND i.leader AND i.fingerprint <> self
                ORDER BY i.fingerprint LIMIT max_rows_per_key + 1) AS i) AS r),
      -- A near page shares at least one block, usually several: one row per page.
      hits AS (
        SELECT DISTINCT r.f, r.g, r.p, r.h, bit_count((r.h # self_simhash)::bit(64)) AS distance
        FROM reads r
        WHERE r.n <= max_rows_per_key AND bit_count((r.h # self_simhash)::bit(64)) <= max_simhash_distance
        ORDER BY distance, r.f
        LIMIT max_candidates)
      SELECT 'candidate', h.f, h.g, h.p, h.h::text, NULL::integer[], n.cluster_id, n.method, NULL::integer
      FROM hits h LEFT JOIN near_duplicates n ON n.fingerprint = h.f
      UNION ALL
      SELECT 'summary', NULL, NULL, NULL, NULL, NULL, NULL, NULL, count(*)::integer FROM reads r WHERE r.n > max_rows_per_key;
  ELSIF index_name = 'minhash' THEN
    RETURN QUERY
      WITH reads AS (
        SELECT r.*
        FROM unnest(parts, keys) AS q(part, key)
        CROSS JOIN LATERAL (
          SELECT i.fingerprint AS f, i.generation AS g, i.parser_version AS p, row_number() OVER (ORDER BY i.fingerprint) AS n
          FROM (SELECT i.fingerprint, i.generation, i.parser_version FROM minhash_bands i
                WHERE i.band = q.part AND i.key = q.key AND i.leader AND i.fingerprint <> self
                ORDER BY i.fingerprint LIMIT max_rows_per_key + 1) AS i) AS r),
      hits AS (
        SELECT r.f, r.g, r.p, count(*) AS shared
        FROM reads r
        WHERE r.n <= max_rows_per_key
        GROUP BY r.f, r.g, r.p
        ORDER BY shared DESC, r.f
        LIMIT max_candidates)
      SELECT 'candidate', d.fingerprint, d.generation, d.parser_version, d.simhash::text, d.minhash, n.cluster_id, n.method, NULL::integer
      FROM hits h
      JOIN documents d ON d.fingerprint = h.f AND d.generation = h.g AND d.parser_version = h.p
      LEFT JOIN near_duplicates n ON n.fingerprint = d.fingerprint
      UNION ALL
      SELECT 'summary', NULL, NULL, NULL, NULL, NULL, NULL, NULL, count(*)::integer FROM reads r WHERE r.n > max_rows_per_key;
  ELSE
    RAISE EXCEPTION 'near_duplicate_candidates: index_name must be simhash or minhash, got %', index_name;
  END IF;
  RETURN QUERY SELECT 'own', n.fingerprint, NULL::integer, NULL::integer, NULL::text, NULL::integer[], n.cluster_id, n.method, NULL::integer
    FROM near_duplicates n WHERE n.fingerprint = self;
END
$$;
