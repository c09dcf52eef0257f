/**
 * The crawls a host run serves, as its CrawlIds search attribute lists them: a crawl's page in the
 * Temporal UI finds its hosts with `CrawlIds = '<id>'`. The run's starter names the crawl that woke
 * it; the run adds each other crawl whose work it takes, so an upsert (one history event) happens
 * only when a run serves a crawl it was not started for. Plain and deterministic.
 */
export class ServedCrawls {
  private readonly ids: string[];

  /** `initial`: the list the run started with (its starter's, or carried by continue-as-new). */
  constructor(
    initial: readonly string[],
    private readonly maxIds: number,
  ) {
    this.ids = initial.slice(-maxIds);
  }

  /** Notes the crawls of work taken; the whole list to publish when one was new, else undefined. */
  took(items: readonly { crawlId: string }[]): string[] | undefined {
    let added = false;
    for (const { crawlId } of items) {
      if (this.ids.includes(crawlId)) continue;
      this.ids.push(crawlId);
      added = true;
    }
    if (!added) return undefined;
    // The latest crawls: a search attribute value holds 2 KB at most.
    if (this.ids.length > this.maxIds) this.ids.splice(0, this.ids.length - this.maxIds);
    return [...this.ids];
  }
}
