import { redirectOutcomeOf } from '../../domain/fetching/index.js';
import { isRobotsFresh, productTokenOf, robotsVerdictFor } from '../../domain/robots/index.js';
import { decideRedirect } from '../../domain/url/index.js';
import type { FetchResponseHead } from '../../http/index.js';
import { recordFetch, updateUrlAfterFetch } from '../../storage/postgres/fetch-repository.js';
import { getFrontierEntry } from '../../storage/postgres/frontier-registration.js';
import { getRobotsEntry } from '../../storage/postgres/robots-repository.js';
import { inTransaction } from '../../storage/postgres/pool.js';
import { isReadAsSitemap, type FetchUrlResult } from '../../contracts/activities.js';
import type { CrawlContext } from '../frontier/crawl-context.js';
import { registerDiscoveredUrls, type RegistrationGate } from '../frontier/link-registration.js';
import { settleCanonicalHints } from '../documents/canonical-hints.js';
import type { ActivityDeps } from '../deps.js';
import { fetchFailure } from './fetch-failure.js';
import type { BaseFetchRecord, ResponseTiming, UrlFetchStep } from './url-fetch-step.js';

/**
 * A redirect response: the target, when followed, is registered as its own URL (scope, depth and
 * traps apply to it) with a 'redirect' edge; the hop is recorded; a loop or an endless chain
 * fails the URL for good (docs/design.md, "Crawler traps").
 */
export async function handleRedirect(step: UrlFetchStep, head: FetchResponseHead, baseRecord: BaseFetchRecord, timing: ResponseTiming): Promise<FetchUrlResult> {
  const { deps, input, context } = step;
  const location = head.headers['location'] ?? null;
  const entry = await getFrontierEntry(deps.pool, input.crawlId, input.fingerprint);
  const chain = [...(entry?.redirectChain ?? []), input.fingerprint];
  const decision = decideRedirect({ location: location ?? undefined, fromUrl: input.url, chainFingerprints: chain, options: context.canonicalizeOptions });
  // Robots rules apply to the target, not only the source: with the target origin's rules at
  // hand, a target they disallow is not followed (and never enters the frontier).
  const gate = decision.kind === 'follow' ? await robotsGate(deps, context, decision.target.origin, input.url) : undefined;
  let refusal: { code: string; reason: string } | undefined;
  await inTransaction(deps.pool, async (client) => {
    if (decision.kind === 'follow') {
      const registration = await registerDiscoveredUrls(client, context, {
        sourceFingerprint: input.fingerprint,
        depth: input.depth,
        urls: [{ absoluteUrl: decision.target.url }],
        kind: 'redirect',
        redirect: { hops: chain.length, chain },
        nowMs: timing.finishedAtMs,
        ...(gate ? { gate } : {}),
        ...(isReadAsSitemap(input.purpose) ? { purpose: input.purpose } : {}),
      });
      const fate = registration.outcomes[0]?.fate;
      if (fate?.kind === 'rejected') refusal = { code: fate.code, reason: fate.reason };
    }
    const outcome = redirectOutcomeOf(decision.kind, refusal);
    await recordFetch(client, { ...baseRecord, outcome: outcome.recordOutcome, rawHash: null, bodyKey: null, bytes: 0, redirectLocation: location });
    await updateUrlAfterFetch(client, { fingerprint: input.fingerprint, state: 'redirect', status: head.status, fetchedAt: new Date(timing.startedAtMs), success: false });
    // A canonical hint that named this URL is kept as evidence: it redirects, it is no page of its own.
    await settleCanonicalHints(client, context, [{ fingerprint: input.fingerprint, depth: input.depth, canonicalHint: null }]);
  });
  const outcome = redirectOutcomeOf(decision.kind, refusal);
  if (outcome.failureType !== undefined) {
    throw await fetchFailure(deps, input, step.attemptNumber, outcome.failureType, `redirect ${decision.kind} at ${input.url}`, { ...timing, requested: true, status: head.status });
  }
  return {
    kind: 'redirect',
    status: head.status,
    location,
    decision: outcome.decision,
    ...(decision.kind === 'follow' ? { targetUrl: decision.target.url } : {}),
    ...(refusal ? { reason: `${refusal.code}: ${refusal.reason}` } : {}),
    ...timing,
  };
}

/**
 * Refuses redirect targets the target origin's cached, fresh robots rules disallow. Without such
 * rules (another origin not fetched yet, an unreachable robots.txt) the target is registered and
 * the fetch-time check decides, as for any URL.
 */
async function robotsGate(deps: ActivityDeps, context: CrawlContext, origin: string, fromUrl: string): Promise<RegistrationGate | undefined> {
  const robots = await getRobotsEntry(deps.pool, origin);
  if (!robots || !isRobotsFresh(robots, deps.now())) return undefined;
  const token = productTokenOf(context.record.config.userAgent);
  return (url) => {
    const verdict = robotsVerdictFor(robots, token, url.pathAndQuery);
    if (verdict.allowed || verdict.policyKind !== 'rules') return undefined;
    return { code: 'robots-disallowed', reason: `robots.txt of ${origin} disallows ${url.pathAndQuery}; the redirect from ${fromUrl} is not followed` };
  };
}
