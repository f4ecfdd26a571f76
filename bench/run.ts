/**
 * `npm run bench [-- flags]`: runs the bench (see bench/README.md), prints one table and
 * writes every number as JSON to bench/results/. Ctrl-C stops the load and every
 * process it started.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runBench } from './src/harness.ts';
import { parseBenchArgs, USAGE, UsageError } from './src/options.ts';
import { formatReport } from './src/table.ts';

let options: ReturnType<typeof parseBenchArgs>;
try {
  options = parseBenchArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`${error.message}\n\n${USAGE}`);
  process.exit(2);
}
if (!options) {
  console.log(USAGE);
  process.exit(0);
}

const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted.signal.aborted) return;
    console.error(`\n${signal}: stopping the load and every bench process…`);
    interrupted.abort();
  });
}

try {
  const report = await runBench(options, {
    log: (line) => console.error(`[bench] ${line}`),
    signal: interrupted.signal,
  });
  console.log(`\n${formatReport(report)}`);
  await mkdir(options.resultsDir, { recursive: true });
  const file = path.join(options.resultsDir, `bench-${report.startedAt.replace(/[:.]/g, '-')}-${options.mode}${options.topology === 'cluster' ? '-cluster' : ''}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nResults: ${path.relative(process.cwd(), file)}`);
  const gatewayFailures = report.cells.filter((cell) => cell.failed > 0);
  if (gatewayFailures.length) {
    console.error(`\n${gatewayFailures.length} cell(s) had failed requests — their numbers do not measure success.`);
    process.exitCode = 1;
  }
} catch (error) {
  console.error(interrupted.signal.aborted ? 'bench interrupted; every process it started has been stopped.' : error);
  process.exitCode = interrupted.signal.aborted ? 130 : 1;
}
