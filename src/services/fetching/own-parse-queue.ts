/**
 * The queue a fetch burst parses its own pages through: a few at once, in fetch order, and the
 * bodies that record signal readings (sitemaps, listing pages) alone, as parseBatch parses them.
 */

/**
 * Parses started in the order they are added, at most `atOnce` running; one added as `alone`
 * starts after every earlier one has ended and holds back the later ones until it ends.
 * `settled()` waits for all added so far and rejects with the first failure, as a chain would.
 */
export function ownParseQueue(atOnce: number): { add: (alone: Promise<boolean>, work: () => Promise<void>) => void; settled: () => Promise<void> } {
  const running = new Set<Promise<void>>();
  const finished: Promise<void>[] = [];
  // Resolves once the last one added has started (or, alone, ended): the next may then start.
  let nextMayStart: Promise<void> = Promise.resolve();
  return {
    add(alone, work) {
      // Read when its turn comes; marked handled meanwhile.
      alone.catch(() => undefined);
      const started = nextMayStart.then(async () => {
        const isAlone = await alone;
        if (isAlone) await Promise.allSettled([...running]);
        while (running.size >= atOnce) await Promise.race([...running].map((run) => run.catch(() => undefined)));
        const run = work();
        running.add(run);
        const leave = (): void => void running.delete(run);
        run.then(leave, leave);
        if (isAlone) await run.catch(() => undefined);
        return { run };
      });
      nextMayStart = started.then(
        () => undefined,
        () => undefined,
      );
      const done = started.then(({ run }) => run);
      // Awaited by settled(); marked handled here so a failure before that is not an unhandled rejection.
      done.catch(() => undefined);
      finished.push(done);
    },
    async settled() {
      await Promise.all(finished);
    },
  };
}
