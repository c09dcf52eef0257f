// How long the event loop stayed away while some work ran: what a heartbeat or a fetch timer on
// that loop would have waited.

/** The longest gap between 5 ms ticks while `work` ran, in ms (a tick before and after included). */
export async function worstLoopLagMs(work: () => Promise<unknown>): Promise<number> {
  let worstMs = 0;
  let lastMs = performance.now();
  const ticker = setInterval(() => {
    const nowMs = performance.now();
    worstMs = Math.max(worstMs, nowMs - lastMs);
    lastMs = nowMs;
  }, 5);
  try {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await work().catch(() => undefined);
    // One more tick, so a loop blocked by `work` itself is measured.
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    clearInterval(ticker);
  }
  return worstMs;
}
