-- A host's share of the crawl's in-flight limit, published by the frontier workflow's tick
-- (hostClaimCap in src/domain/frontier/admission.ts). Claims take at most this many URLs, so the
-- limit spreads over many host back queues instead of filling the first hosts that ask. The
-- default is no cap until the first tick publishes one.
ALTER TABLE crawls ADD COLUMN host_claim_cap integer NOT NULL DEFAULT 2147483647;
