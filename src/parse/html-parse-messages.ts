/** What the pool and its parse threads say to each other: plain data, structured-cloned. */
import type { ExtractOptions, ExtractedDocument } from './html-document.js';
import type { ParseBudgetCode } from './parse-budget.js';

export interface ParseThreadRequest {
  id: number;
  html: string;
  pageUrl: string;
  options: ExtractOptions;
}

export type ParseThreadReply =
  | { id: number; ok: true; document: ExtractedDocument }
  /** With budgetCode the document was over its budget and message is the ParseBudgetError's detail; else the extraction threw. */
  | { id: number; ok: false; message: string; budgetCode?: ParseBudgetCode };

/** The first message of a thread: loaded, ready for requests. */
export const THREAD_READY = 'ready';
