// One body packer per worker process: the more fetches share it, the fewer objects a page costs.
// A body already stored (by sha256) is found in Postgres and not packed again.
import { BodyPacker } from '../../storage/object-store/body-packer.js';
import { storedBodyKeys } from '../../storage/postgres/body-repository.js';
import type { ActivityDeps } from '../deps.js';

export function workerBodyPacker(deps: Pick<ActivityDeps, 'bodies' | 'pool'>): BodyPacker {
  return new BodyPacker(deps.bodies, (sha256s) => storedBodyKeys(deps.pool, sha256s));
}
