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
  if (field === 'render.mode') return '--render';
  if (field.startsWith('render.allowOrigins')) return '--render-allow-origin';
  if (field.startsWith('render.allow')) return '--render-allow';
  if (field.startsWith('render.deny')) return '--render-deny';
  if (field === 'render.budget.maxRenders') return '--render-max-renders';
  if (field === 'render.budget.maxCpuSeconds') return '--render-max-cpu-seconds';
  if (field === 'render.budget.maxRendersPerHost') return '--render-max-per-host';
  if (field === 'render.settleMs') return '--render-settle-ms';
  return FLAG_OF_FIELD[field] ?? `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
