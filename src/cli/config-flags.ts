// Which command-line flag sets which CrawlConfig field: config errors name the flag the user typed.

const FLAG_OF_FIELD: Record<string, string> = {
  'scope.mode': '--scope',
  'scope.allowPrefixes': '--allow-prefix',
  'scope.denyPrefixes': '--deny-prefix',
  seenFilterCapacity: '--seen-filter-capacity',
  seenFilterFalsePositiveRate: '--seen-filter-fp-rate',
  maxDiscoveredUrls: '--max-discovered-urls',
  userAgent: '--user-agent',
};

/** The command-line flag that sets a CrawlConfig field, for error messages. */
export function flagOfConfigField(field: string): string {
  if (field.startsWith('politeness')) return '--politeness';
  if (field.startsWith('changeFields')) return '--change-field';
  if (field.startsWith('listingPages')) return '--listing-page';
  if (field === 'maxConcurrentFetchesPerHost') return '--max-concurrent-per-host';
  if (field.startsWith('traps')) return '--trap-options';
  if (field.startsWith('queryPolicies')) return '--query-policies';
  if (field === 'proxy.sessionRequests') return '--proxy-session-requests';
  if (field.startsWith('proxy')) return '--proxy';
  if (field.startsWith('costModel')) return '--cost-model';
  return FLAG_OF_FIELD[field] ?? `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
