/**
 * The parsed form of a robots.txt file. Plain data on purpose: it is stored in Postgres jsonb,
 * carried in activity results and read by workflows, so it holds no classes, maps or functions,
 * and patterns are kept as written (normalization happens when matching, so a stored copy never
 * goes stale when the matcher improves).
 */
export interface RobotsRules {
  /** Groups in file order; several groups may name the same product token (they are merged when matching). */
  groups: RobotsGroup[];
  /** Absolute http(s) URLs from `Sitemap:` lines, deduplicated, in file order. Recorded for discovery, never obeyed as rules. */
  sitemaps: string[];
  /** Bytes of the body that were parsed (a UTF-8 BOM included). Less than the body size when `truncated`. */
  parsedBytes: number;
  /** True when the body was longer than the parse limit and the rest was ignored. */
  truncated: boolean;
}

/** One group: the user-agent lines that open it and the rules that follow them. */
export interface RobotsGroup {
  /**
   * Product tokens from the group's `User-agent` lines, lowercased (matching is case-insensitive);
   * `'*'` for the wildcard. A line whose value holds no valid token contributes nothing.
   */
  userAgents: string[];
  /** Allow and Disallow rules in file order; empty patterns (`Disallow:`) are not recorded. */
  rules: RobotsRule[];
  /** Largest valid `Crawl-delay` in the group, in seconds as written (non-standard; clamped when read). */
  crawlDelaySeconds?: number;
}

/** One Allow or Disallow line. */
export interface RobotsRule {
  kind: 'allow' | 'disallow';
  /** The path pattern as written, trimmed, comment removed; `/` prepended when it began with neither `/` nor `*`. */
  pattern: string;
  /** 1-based line number in the file, for explaining a verdict. */
  line: number;
}
