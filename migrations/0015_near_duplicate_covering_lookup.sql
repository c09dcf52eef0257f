-- The near-duplicate lookup reads the pages sharing a document's SimHash blocks or MinHash bands
-- from the index alone. Keys that a site's template or the test webs' shared vocabulary put on
-- hundreds of pages (140-539 a key on the cli bench's warm stack) made each lookup fetch a heap
-- row per page sharing a key: 4,700 blocks and 16 ms a page, a third of Postgres's time in the
-- crawl, inside the parse batch's transaction. With the columns the lookup returns in the index,
-- 1,400 blocks and 4 ms (the documents and clusters it joins are the rest).
CREATE INDEX simhash_blocks_covering_lookup ON simhash_blocks (block, key) INCLUDE (fingerprint, generation, parser_version);
DROP INDEX simhash_blocks_lookup;
CREATE INDEX minhash_bands_covering_lookup ON minhash_bands (band, key) INCLUDE (fingerprint, generation, parser_version);
DROP INDEX minhash_bands_lookup;
