// What the object store holds for a test's bucket, read against the `bodies` rows: every object
// (standalone bodies and packs) with its size, and the bytes no body row points at. With bodies
// stored once, every byte of every object belongs to exactly one row.
import { bodyLocationOf } from '../../src/storage/object-store/body-key.js';
import type { BodyStore } from '../../src/storage/object-store/body-store.js';
import type { Pool } from '../../src/storage/postgres/pool.js';

export interface StoredBodies {
  /** sha256 (hex) -> body key, one per row. */
  rows: Map<string, string>;
  /** Every object in the bucket, with its size in bytes. */
  objects: Map<string, number>;
  /** Bytes of objects that no row's key covers (a second copy of a body, a pack nothing points into). */
  unreferencedBytes: number;
}

export async function readStoredBodies(pool: Pool, bodies: BodyStore): Promise<StoredBodies> {
  const result = await pool.query<{ sha256: Buffer; object_key: string }>('SELECT sha256, object_key FROM bodies');
  const rows = new Map(result.rows.map((row) => [row.sha256.toString('hex'), row.object_key]));
  const objects = new Map<string, number>();
  for await (const item of bodies.client.listObjectsV2(bodies.bucket, '', true) as AsyncIterable<{ name?: string; size?: number }>) {
    if (item.name) objects.set(item.name, item.size ?? 0);
  }
  let referencedBytes = 0;
  for (const key of new Set(rows.values())) {
    const { objectKey, range } = bodyLocationOf(key);
    if (objects.has(objectKey)) referencedBytes += range?.length ?? objects.get(objectKey)!;
  }
  const storedBytes = [...objects.values()].reduce((sum, size) => sum + size, 0);
  return { rows, objects, unreferencedBytes: storedBytes - referencedBytes };
}
