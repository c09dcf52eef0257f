import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/domain/**/*.test.ts', 'test/unit/**/*.test.ts', 'test/http/**/*.test.ts', 'test/browser/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          // test/cluster: Temporal as a real server beside the stack (test/support/temporal-cluster.ts); `npm run test:cluster` runs it alone.
          include: ['test/activities/**/*.test.ts', 'test/workflows/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/replay/**/*.test.ts', 'test/cluster/**/*.test.ts'],
          globalSetup: ['test/support/global-stack.ts'],
          // One real stack, shared; the files run one after another on a 2-core machine.
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
