-- Freshness promises and value tiers by URL prefix, set with `crawler sla` and
-- `crawler tier` instead of SQL, and applied to the URLs known under the prefix and to every URL
-- recorded later. docs/storage-and-recrawl.md, "Freshness SLAs and value tiers".

-- "These URLs within this long": a recrawl cycle plans an SLA's URLs before anything else, those
-- closest to breaching first, and says so when its budget cannot keep every promise.
CREATE TABLE freshness_slas (
  id                smallserial PRIMARY KEY,          -- what metrics and dashboards name it by (never the prefix: it is a URL)
  prefix            text NOT NULL UNIQUE,             -- canonical URL prefix
  max_staleness_ms  bigint NOT NULL CHECK (max_staleness_ms > 0),
  tier              smallint,                         -- value tier of its URLs, when it sets one
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Value tiers by prefix (0 = most valuable, as urls.value_tier).
CREATE TABLE value_tier_rules (
  prefix      text PRIMARY KEY,
  tier        smallint NOT NULL CHECK (tier >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- The SLA a URL is under (the longest matching prefix), kept with the URL so that a cycle reads an
-- SLA's URLs, most overdue first, through an index instead of matching every URL to every prefix.
ALTER TABLE urls ADD COLUMN sla_prefix text;
CREATE INDEX urls_sla_due ON urls (sla_prefix, last_success_at) WHERE sla_prefix IS NOT NULL;

-- The longest SLA prefix a URL is under, or NULL.
CREATE FUNCTION url_sla_prefix(url text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT s.prefix FROM freshness_slas s WHERE starts_with(url, s.prefix) ORDER BY length(s.prefix) DESC LIMIT 1
$$;

-- The value tier the longest matching prefix gives a URL, or NULL: a tier rule, or an SLA that sets
-- a tier; on equal prefixes the tier rule wins.
CREATE FUNCTION url_rule_tier(url text) RETURNS smallint LANGUAGE sql STABLE AS $$
  SELECT r.tier FROM (
      SELECT prefix, tier, 0 AS precedence FROM value_tier_rules
      UNION ALL
      SELECT prefix, tier, 1 FROM freshness_slas WHERE tier IS NOT NULL) r
  WHERE starts_with(url, r.prefix) ORDER BY length(r.prefix) DESC, r.precedence LIMIT 1
$$;

-- Every URL recorded from now on takes its SLA and tier from the rules, whichever code path records
-- it. Without rules the trigger only looks at two empty tables.
CREATE FUNCTION urls_apply_prefix_rules() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM freshness_slas) OR EXISTS (SELECT 1 FROM value_tier_rules) THEN
    NEW.sla_prefix := url_sla_prefix(NEW.url);
    NEW.value_tier := COALESCE(url_rule_tier(NEW.url), NEW.value_tier);
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER urls_prefix_rules BEFORE INSERT ON urls FOR EACH ROW EXECUTE FUNCTION urls_apply_prefix_rules();
