-- Version dates (001: validators are a cheap signal where the site keeps them honestly): a
-- truthful Last-Modified dates a page's latest change, so a changed visit tells when the page
-- changed, not only that it did, and the rate estimate is no longer censored by the revisit
-- interval (docs/recrawl.md, "Estimating each page's rate").

-- The age of the fetched version (the response's Date, or the fetch start, minus its
-- Last-Modified), in days: at a changed visit when the date agreed with the verdict, and at a
-- baseline (the time before the history the page did not change). The estimate reads it once the
-- URL's dates are trusted.
ALTER TABLE url_observations ADD COLUMN version_age_days double precision;

-- Each URL's record of its Last-Modified checked against its compared visits: a changed page must
-- carry a date after the previous visit, an unchanged one a date before it.
ALTER TABLE urls
  ADD COLUMN version_dates_confirmed integer NOT NULL DEFAULT 0,
  ADD COLUMN version_dates_refuted   integer NOT NULL DEFAULT 0;
