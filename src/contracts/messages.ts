/**
 * Everything a client and a workflow must agree on: workflow ids, messages and their payloads.
 * Clients (CLI, tests, activities that signal) and workflows both import this module; it holds
 * definitions only, no behaviour.
 */
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CrawlStatus, HostStatus } from './status.js';

export const DEFAULT_TASK_QUEUE = 'crawler';

/**
 * The task queue of a crawler task queue's renders: served only by workers that hold browser
 * slots (`crawler worker --render-slots N`), so a worker without a browser never takes one.
 */
export const renderTaskQueueOf = (taskQueue: string): string => `${taskQueue}-render`;

/** Readable ids, so the Temporal UI's list reads like the crawl. */
export const crawlWorkflowId = (crawlId: string): string => `crawl/${crawlId}`;
export const hostWorkflowId = (host: string): string => `host/${host}`;
/** A Schedule's recrawl cycles; the server appends each run's scheduled time to it. */
export const recrawlWorkflowId = (scheduleId: string): string => `recrawl/${scheduleId}`;
/** The crawl a recrawl cycle runs as, named after the cycle's workflow id (readable in the UI, unique per run). */
export const recrawlCrawlIdOf = (cycleWorkflowId: string): string => cycleWorkflowId.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');

/** Custom search attributes, registered on the dev server at start (see src/stack). */
export const SEARCH_ATTRIBUTES = { crawlId: 'CrawlId', host: 'CrawlHost', state: 'CrawlState', crawlIds: 'CrawlIds' } as const;
/** The host a host workflow serves, set by whoever starts a run. */
export const HOST_SEARCH_ATTRIBUTE = defineSearchAttributeKey(SEARCH_ATTRIBUTES.host, SearchAttributeType.KEYWORD);
/**
 * The crawls a host run serves (a KeywordList: `CrawlIds = '<id>'` lists a crawl's hosts), set by
 * whoever starts the run and extended by the run when it takes work of another crawl.
 */
export const CRAWL_IDS_SEARCH_ATTRIBUTE = defineSearchAttributeKey(SEARCH_ATTRIBUTES.crawlIds, SearchAttributeType.KEYWORD_LIST);
/** A host run names at most this many crawls, the latest: a search attribute value holds 2 KB at most. */
export const MAX_CRAWL_IDS_PER_HOST_RUN = 20;

/** The host workflow's type: HostWaker starts host runs by it. */
export const HOST_WORKFLOW_TYPE = 'hostWorkflow';

// The frontier (crawl) workflow.
export const pauseCrawlSignal = defineSignal('pauseCrawl');
export const resumeCrawlSignal = defineSignal('resumeCrawl');
export interface StopCrawlInput {
  /** Why, for the record. */
  reason?: string;
}
export const stopCrawlSignal = defineSignal<[StopCrawlInput]>('stopCrawl');
export interface AddSeedsInput {
  urls: string[];
}
export interface AddSeedsResult {
  registered: number;
  rejected: { url: string; reason: string }[];
}
export const addSeedsUpdate = defineUpdate<AddSeedsResult, [AddSeedsInput]>('addSeeds');
export interface SetCrawlLimitsInput {
  /** URLs the crawl may have in flight at once. */
  maxInFlight?: number;
}
export const setCrawlLimitsSignal = defineSignal<[SetCrawlLimitsInput]>('setCrawlLimits');
export const crawlStatusQuery = defineQuery<CrawlStatus>('crawlStatus');

// The per-host (back queue) workflow.
export interface WakeHostInput {
  /** The crawl that has new work for this host (informational). */
  crawlId?: string;
}
export const wakeHostSignal = defineSignal<[WakeHostInput]>('wakeHost');
export const pauseHostSignal = defineSignal('pauseHost');
export const resumeHostSignal = defineSignal('resumeHost');
export interface SetHostDelayInput {
  /** Minimum delay between requests to this host, overriding the crawls' settings; null clears it. */
  minDelayMs: number | null;
}
export const setHostDelaySignal = defineSignal<[SetHostDelayInput]>('setHostDelay');
export const hostStatusQuery = defineQuery<HostStatus>('hostStatus');
