// Test helper: uniform 128-bit fingerprints (32 hex chars) from a seeded PRNG.
export function randomFingerprint(random: () => number): string {
  let hex = '';
  for (let i = 0; i < 4; i += 1) hex += Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
  return hex;
}
