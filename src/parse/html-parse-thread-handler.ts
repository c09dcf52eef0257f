/**
 * The body of a parse thread: extracts one document per message, off the worker's event loop.
 * A ParseBudgetError crosses back as its code, so the pool can throw it again as itself.
 */
import { parentPort } from 'node:worker_threads';
import { extractHtmlDocument } from './html-document.js';
import { ParseBudgetError } from './parse-budget.js';
import { THREAD_READY, type ParseThreadReply, type ParseThreadRequest } from './html-parse-messages.js';

const port = parentPort;
if (port === null) throw new Error('html-parse-thread-handler runs in a worker thread, started by HtmlParsePool');

port.on('message', (request: ParseThreadRequest) => {
  let reply: ParseThreadReply;
  try {
    reply = { id: request.id, ok: true, document: extractHtmlDocument(request.html, request.pageUrl, request.options) };
  } catch (error) {
    reply =
      error instanceof ParseBudgetError
        ? { id: request.id, ok: false, budgetCode: error.code, message: error.detail }
        : { id: request.id, ok: false, message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  port.postMessage(reply);
});
// One small page first: its lazy loading and first compilation are not charged to a real page's budget.
extractHtmlDocument('<html><head><title>warm</title></head><body><a href="/">up</a></body></html>', 'http://localhost/', { productToken: 'warmup' });
port.postMessage(THREAD_READY);
