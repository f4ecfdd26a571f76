// `npm start`: one process serving the gateway, the API and the console. Embedded by
// default (PGlite in DATA_DIR, in-process queue running the worker's processors);
// PostgreSQL + Redis/BullMQ when DATABASE_URL and REDIS_URL are set. SIGTERM and SIGINT
// stop it from the first moment (shutdown.ts). `--demo` (npm run demo) also prints a
// demo account's sign-in; its team fills with 90 days of sample usage in the background.
import { loadConfigOrExit } from '@spendgate/store';
import { buildApp } from './app.ts';
import { boundHeapGrowth } from './heap.ts';
import { stopOnSignals } from './shutdown.ts';

const startedAt = performance.now();
const stopping = stopOnSignals();
boundHeapGrowth();
const config = await loadConfigOrExit();
const app = await buildApp(config);
stopping.started(app);
const address = await app.listen({ port: config.port, host: config.host });
const base = address.replace('0.0.0.0', 'localhost').replace('127.0.0.1', 'localhost');

const mode = app.runtime.stores.mode === 'embedded'
  ? `embedded (PGlite + in-process queue), data in ${config.dataDir}`
  : 'scaled (PostgreSQL + Redis; run `npm run worker` for the BullMQ workers)';
console.log(`Spendgate is running — ${mode}
  Console      ${base}/
  API          ${base}/api
  Gateway      ${base}/v1   (OpenAI SDK: baseURL "${base}/v1")
  Health       ${base}/healthz  ${base}/readyz
Started in ${Math.round(performance.now() - startedAt)} ms`);

if (process.argv.includes('--demo')) {
  const demo = await app.runtime.services.demo.demoAccount();
  console.log(`Demo account (npm run demo) — sign in at ${base}/login
  Email        ${demo.email}
  Password     ${demo.password}   (new each start)
  Demo team    ${demo.team.state === 'filled' ? 'ready' : `${demo.team.days} days of sample usage, being recorded in the background (${demo.team.daysFilled} so far)`}`);
}
