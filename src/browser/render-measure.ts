import type { BrowserProcess } from './browser-process.js';

/** What a render cost its browser. */
export interface RenderCost {
  /** CPU of the browser's processes over the render, ms (one browser per slot, so the render's own). */
  cpuMs: number;
  /** The most memory the browser's processes held at a sample, bytes (PSS, sampled every sampleEveryMs). */
  peakPssBytes: number;
}

/** Runs `work` on `browser` and measures its CPU and peak PSS; the cost is reported whether the work succeeds or throws. */
export async function measuredRender<T>(browser: BrowserProcess, work: () => Promise<T>, sampleEveryMs = 250): Promise<{ outcome: PromiseSettledResult<T>; cost: RenderCost }> {
  const before = await browser.figures(true);
  let peakPssBytes = before.pssBytes;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await new Promise((resolve) => setTimeout(resolve, sampleEveryMs));
      if (!sampling) break;
      const now = await browser.figures(true);
      peakPssBytes = Math.max(peakPssBytes, now.pssBytes);
    }
  })();
  const [outcome] = await Promise.allSettled([work()]);
  sampling = false;
  await sampler;
  const after = await browser.figures(true);
  peakPssBytes = Math.max(peakPssBytes, after.pssBytes);
  // A browser that died meanwhile reports nothing after: its CPU is unknown, not negative.
  const cpuMs = after.processes === 0 ? 0 : Math.max(0, Math.round(after.cpuMs - before.cpuMs));
  return { outcome: outcome!, cost: { cpuMs, peakPssBytes } };
}
