// A workflow that holds its activation in a synchronous loop: what the sandbox call timeout is for.
// Bundled only by test/integration/workflows/sandbox-call-timeout.test.ts, never with the crawler's workflows.

/** Spins `iterations` rounds of integer arithmetic (about 1 ns each) in one activation, then returns. */
export async function spinWorkflow(iterations: number): Promise<number> {
  let value = 1;
  for (let i = 0; i < iterations; i++) value = (value * 31 + i) | 0;
  return value;
}
