// The server process's JavaScript heap. V8 lets the old generation grow to a multiple it
// picks from how fast its collections run (up to 4× what survived the last one): under
// load the gateway, with ~45 MiB alive, carried 100–150 MiB of garbage between major
// collections (190–280 MiB RSS). Bounding the growth to 1.5× keeps it near 180 MiB,
// with no throughput lost that the bench could measure (json, 10 connections: 1,860–2,036
// req/s with the bound, 1,743–1,864 without, interleaved runs on a 2-core machine).
import v8 from 'node:v8';

/** Process-wide: call once, before the server starts (`npm start`, and the bench's gateway). */
export function boundHeapGrowth(): void {
  v8.setFlagsFromString('--heap-growing-percent=50');
}
