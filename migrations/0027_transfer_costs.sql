-- What requests cost on the wire (001: bytes through a gateway, headers included, failed requests
-- too), and what each host's validators are worth. docs/storage-and-recrawl.md, "What a fetch costs".

-- Bytes a request put on the wire and took off it: heads, body, and for the first request on a
-- connection its TLS handshake and its proxy's CONNECT. NULL for records from before they were counted.
ALTER TABLE fetches
  ADD COLUMN sent_bytes bigint,
  ADD COLUMN received_bytes bigint;

-- The same for a failed request (a reset after 30 KB cost 30 KB). NULL when no request reached the
-- wire (robots verdicts, a refused private address, records from before).
ALTER TABLE attempts
  ADD COLUMN sent_bytes bigint,
  ADD COLUMN received_bytes bigint;

-- Per host, what its conditional requests and 304s cost, folded in from every finished crawl with
-- older crawls' figures decayed (each fold multiplies them by 0.9): whether the host honours
-- validators (a 304 when the content did not change) and what its 304s cost, so that the recrawl
-- plan prices a visit with the host's own figures instead of assuming every validator is honoured
-- and every 304 costs 1,000 bytes.
CREATE TABLE host_costs (
  host                          text PRIMARY KEY,
  -- Conditional requests (If-None-Match / If-Modified-Since) whose content had not changed
  -- (a 304, or a 2xx with the bytes of the previous copy), and of those the ones answered 304.
  conditional_unchanged         double precision NOT NULL DEFAULT 0,
  conditional_not_modified      double precision NOT NULL DEFAULT 0,
  -- 304 exchanges and their wire bytes, sent and received.
  not_modified_requests         double precision NOT NULL DEFAULT 0,
  not_modified_transfer_bytes   double precision NOT NULL DEFAULT 0,
  -- 2xx exchanges and their wire bytes.
  full_requests                 double precision NOT NULL DEFAULT 0,
  full_transfer_bytes           double precision NOT NULL DEFAULT 0,
  updated_at                    timestamptz NOT NULL DEFAULT now()
);

-- The crawls already folded into host_costs: a retried crawl finish folds nothing twice.
CREATE TABLE host_cost_folds (
  crawl_id   text PRIMARY KEY,
  folded_at  timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE host_cost_folds ALTER COLUMN crawl_id SET STATISTICS 1;
