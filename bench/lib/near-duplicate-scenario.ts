// The `near-duplicates` scenario: what the near-duplicate lookup costs Postgres when pages are
// alike. The pages of a cli web (the same web with distinct text, or sharing one template
// passage) are clustered as the parse records them, in batches, one transaction each, on the
// bench stack's Postgres with pg_stat_statements: buffers touched and rows returned per page, and
// time per page, for each text shape in one invocation. Buffers do not depend on how busy the
// machine is; their ratio between the shapes says whether a page's cost grows with the pages like it.
import { extractHtmlDocument } from '../../src/parse/html-document.js';
import { normalizeTextForHash, simhash64, tokenize } from '../../src/domain/content/index.js';
import { urlFingerprint } from '../../src/domain/url/index.js';
import { clusterNearDuplicatesOf, type NearDuplicateOutcome, type ParsedIdentity } from '../../src/services/documents/near-duplicates.js';
import { recordDocument } from '../../src/storage/postgres/document-repository.js';
import { recordUrlIdentities } from '../../src/storage/postgres/frontier-registration.js';
import { migrate } from '../../src/storage/postgres/migrate.js';
import { createPool, inTransaction } from '../../src/storage/postgres/pool.js';
import { identityDocument } from '../../test/support/identity-document.js';
import { generateWeb, type GenerateWebOptions, type PageTextShape } from '../../test/support/test-web/index.js';
import { adminQuery, freshDatabase, prepareBenchStack } from './bench-stack.js';
import { round } from './stats.js';

export interface NearDuplicateScenarioOptions {
  /** The web whose pages are clustered (hosts, pages per host, page size); its text shape is varied. */
  web: GenerateWebOptions;
  shapes: readonly PageTextShape[];
  /** Pages a transaction clusters, as the parse batches them. */
  batchPages: number;
  dataDir: string;
  log: (line: string) => void;
}

export interface NearDuplicateShapeReport {
  shape: PageTextShape;
  pages: number;
  /** Shared buffers hit or read by the clustering statements, per page (pg_stat_statements). */
  buffersPerPage: number;
  /** Of them, in the last tenth of the pages: the cost of a page once the site is large. */
  buffersPerPageLastTenth: number;
  /** Rows the statements returned, per page. */
  rowsPerPage: number;
  msPerPage: number;
  outcomes: Record<string, number>;
  /** Lookups that read only the first leaders of some key. */
  cappedLookups: number;
}

export interface NearDuplicateScenarioReport {
  scenario: 'near-duplicates';
  batchPages: number;
  shapes: NearDuplicateShapeReport[];
}

/** The identities the parse would index for every page of the web, in crawl order (host by host). */
function identitiesOf(web: GenerateWebOptions): { url: string; identity: ParsedIdentity }[] {
  const generated = generateWeb(web);
  const out: { url: string; identity: ParsedIdentity }[] = [];
  for (const host of generated.spec.hosts) {
    for (const page of host.pages) {
      const url = `http://${host.host}${page.path}`;
      const document = extractHtmlDocument(page.body as string, url, { productToken: 'bench', changeFields: {}, listingEntries: false });
      const text = normalizeTextForHash(document.mainText);
      out.push({ url, identity: { fingerprint: urlFingerprint(url), generation: 1, parserVersion: 1, simhash: simhash64(tokenize(text)), minhash: null } });
    }
  }
  return out;
}

async function statementFigures(url: string): Promise<{ buffers: number; rows: number }> {
  const rows = await adminQuery<{ buffers: string | null; rows: string | null }>(
    url,
    `SELECT sum(shared_blks_hit + shared_blks_read)::text AS buffers, sum(rows)::text AS rows FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query LIKE '%near_duplicate%' AND query NOT LIKE '%pg_stat_statements%'`,
  );
  return { buffers: Number(rows[0]?.buffers ?? 0), rows: Number(rows[0]?.rows ?? 0) };
}

export async function runNearDuplicateScenario(options: NearDuplicateScenarioOptions): Promise<NearDuplicateScenarioReport> {
  const stack = await prepareBenchStack({ dataDir: options.dataDir, fresh: false, log: options.log });
  if (!stack.statementStats) throw new Error('the near-duplicates scenario needs pg_stat_statements in the bench Postgres');
  const shapes: NearDuplicateShapeReport[] = [];
  for (const shape of options.shapes) {
    const pages = identitiesOf({ ...options.web, text: shape });
    const url = await freshDatabase(stack, `neardup_${shape.replace(/-/g, '_')}_${Date.now()}`);
    const pool = createPool({ connectionString: url, maxConnections: 2 });
    try {
      await migrate(pool);
      await recordUrlIdentities(
        pool,
        pages.map(({ url: pageUrl, identity }) => {
          const parsed = new URL(pageUrl);
          return { fingerprint: identity.fingerprint, url: pageUrl, canonicalizationVersion: 1, host: parsed.hostname, origin: parsed.origin };
        }),
      );
      const outcomes: NearDuplicateOutcome[] = [];
      let lastTenth: { fromPage: number; buffersBefore: number } | undefined;
      await adminQuery(url, 'SELECT pg_stat_statements_reset()');
      const startedMs = performance.now();
      for (let at = 0; at < pages.length; at += options.batchPages) {
        if (lastTenth === undefined && at >= pages.length * 0.9) lastTenth = { fromPage: at, buffersBefore: (await statementFigures(url)).buffers };
        const batch = pages.slice(at, at + options.batchPages);
        outcomes.push(
          ...(await inTransaction(pool, async (client) => {
            for (const { identity } of batch) await recordDocument(client, identityDocument(identity, 'near-duplicate-bench'));
            return clusterNearDuplicatesOf(client, batch.map((page) => page.identity));
          })),
        );
      }
      const elapsedMs = performance.now() - startedMs;
      const figures = await statementFigures(url);
      const lastTenthBuffers = figures.buffers - (lastTenth?.buffersBefore ?? 0);
      const lastTenthPages = pages.length - (lastTenth?.fromPage ?? 0);
      const counts: Record<string, number> = {};
      for (const outcome of outcomes) counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
      const report: NearDuplicateShapeReport = {
        shape,
        pages: pages.length,
        buffersPerPage: round(figures.buffers / pages.length, 1),
        buffersPerPageLastTenth: round(lastTenthBuffers / lastTenthPages, 1),
        rowsPerPage: round(figures.rows / pages.length, 2),
        msPerPage: round(elapsedMs / pages.length, 2),
        outcomes: counts,
        cappedLookups: outcomes.filter((outcome) => 'cappedKeys' in outcome && (outcome.cappedKeys ?? 0) > 0).length,
      };
      options.log(`near-duplicates ${shape}: ${JSON.stringify(report)}`);
      shapes.push(report);
    } finally {
      await pool.end();
    }
  }
  return { scenario: 'near-duplicates', batchPages: options.batchPages, shapes };
}

export function printNearDuplicateReport(report: NearDuplicateScenarioReport): void {
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  out(`\n## near-duplicates: the lookup's cost by text shape (batches of ${report.batchPages} pages)\n`);
  out('| text | pages | buffers/page | buffers/page, last tenth | rows/page | ms/page | outcomes | capped lookups |');
  out('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const shape of report.shapes) {
    const outcomes = Object.entries(shape.outcomes)
      .map(([status, n]) => `${status} ${n}`)
      .join(', ');
    out(`| ${shape.shape} | ${shape.pages} | ${shape.buffersPerPage} | ${shape.buffersPerPageLastTenth} | ${shape.rowsPerPage} | ${shape.msPerPage} | ${outcomes} | ${shape.cappedLookups} |`);
  }
  const distinct = report.shapes.find((shape) => shape.shape === 'distinct');
  const templated = report.shapes.find((shape) => shape.shape === 'templated');
  if (distinct && templated) {
    out(`\ntemplated / distinct: buffers ${round(templated.buffersPerPage / distinct.buffersPerPage, 2)}, last tenth ${round(templated.buffersPerPageLastTenth / distinct.buffersPerPageLastTenth, 2)}, ms ${round(templated.msPerPage / distinct.msPerPage, 2)}`);
  }
}
