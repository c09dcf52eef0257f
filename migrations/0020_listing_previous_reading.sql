-- The listing reading before the latest, on each listed item's URL record. A visit checks the
-- claim of the latest reading taken before it; when a listing is read again while an item is
-- being fetched (one burst fetching both), the newer reading may commit first, and the visit then
-- needs the one before it (saveListingReading keeps both, in read order).
ALTER TABLE urls ADD COLUMN listing_previous_digest bytea, ADD COLUMN listing_previous_read_at timestamptz;
