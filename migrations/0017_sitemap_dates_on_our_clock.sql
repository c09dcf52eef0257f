-- A sitemap's lastmod window moved onto our clock with the reading's Date header, its
-- uncertainty included (windowOnOurClock), so a claim about it needs no minute's allowance for
-- clock skew: that allowance hid every change within a minute of a visit.
ALTER TABLE urls ADD COLUMN sitemap_lastmod_on_our_clock boolean NOT NULL DEFAULT false;
