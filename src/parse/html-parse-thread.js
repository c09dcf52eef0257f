// Entry of a parse thread (html-parse-pool.ts). Plain JS, so Node starts it as is under the CLI and
// under vitest alike; it registers tsx the way bin/crawler.js does, then loads the TypeScript handler.
import { register } from 'tsx/esm/api';

register();
await import('./html-parse-thread-handler.ts');
