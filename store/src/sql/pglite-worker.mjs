// Entry of the PGlite worker thread: registers tsx (a worker's entry module is not
// hooked by the parent's loader on Node 20), then runs pglite-worker.ts.
import { register } from 'tsx/esm/api';

register();
await import('./pglite-worker.ts');
