// The worker's shutdown signal, which the activities watch to stop sending requests.
import { setMaxListeners } from 'node:events';

/**
 * An AbortController for the worker's shutdown. Every burst waiting out its host's delay listens
 * to its one signal: hundreds at once on a wide crawl is the design, not a leak, so Node's
 * MaxListenersExceededWarning past 10 listeners would only mislead whoever reads the log.
 */
export function createWorkerStopping(): AbortController {
  const stopping = new AbortController();
  setMaxListeners(0, stopping.signal);
  return stopping;
}
