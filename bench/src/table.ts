/**
 * The bench's one printed table: a row per cell (format × connections or fixed rate ×
 * scenario) with req/s, latency and time-to-first-byte percentiles, failures, the
 * server's RSS, each process's CPU, and on gateway rows the comparison with the bare
 * proxy of the same cell and round (ratios in a closed loop, added ms at a fixed rate);
 * with several rounds, each cell's rounds together and the medians of their comparisons; then the
 * soak, when run, and short notes on reading it — among them, in the embedded mode, the
 * RSS of the gateway's PGlite process, which is not in the gateway's; in the cluster
 * topology, what its gateway rows sum up and what they are compared with.
 */
import type { BenchReport, CellResult, RoundsSummary, SoakResult } from './harness.ts';
import type { SelfTimeSummary } from './profile.ts';

const thousands = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatMs(ms: number): string {
  if (ms < 10) return ms.toFixed(2);
  if (ms < 100) return ms.toFixed(1);
  return thousands.format(ms);
}

const formatAddedMs = (ms: number) => `${ms < 0 ? '−' : '+'}${formatMs(Math.abs(ms))} ms`;
const formatRatio = (ratio: number) => (Number.isFinite(ratio) ? `×${ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(1)}` : '–');
const percent = (value: number | undefined) => (value === undefined ? '–' : String(Math.round(value)));

/** e.g. `json/10` (closed loop, 10 connections) or `json/200/s` (fixed rate). */
const cellLabel = (cell: CellResult) => `${cell.format}/${cell.ratePerSec === undefined ? cell.connections : `${cell.ratePerSec}/s`}`;

const serverOf = (cell: CellResult) => (cell.scenario === 'gateway' ? 'gateway' : cell.scenario === 'bare-proxy' ? 'bare-proxy' : undefined);

/** Per-process percentages as srv(+PGlite)(+worker)(+HAProxy)(+services) / up / load. */
function processesColumn(cell: CellResult, byProcess: CellResult['cpuPercent'], services?: number): string {
  const name = serverOf(cell);
  const server = name && byProcess[name];
  const plus = (value: number | undefined) => (value === undefined ? '' : `+${percent(value)}`);
  return `${percent(server)}${plus(byProcess.pglite)}${plus(byProcess.worker)}${plus(byProcess.haproxy)}${plus(services)} / ${percent(byProcess['mock-upstream'])} / ${percent(byProcess.load)}`;
}

function renderRows(header: string[], rows: string[][], rightAligned: boolean[]): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (rightAligned[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)];
}

const loadAverage = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');

/** The table and its notes, as printed by `npm run bench`. */
export function formatReport(report: BenchReport): string {
  const { options, machine, cluster } = report;
  const topology = cluster
    ? `, cluster topology (${cluster.gateways} gateways behind HAProxy, ${cluster.workers} workers, a Redis Cluster, PostgreSQL${cluster.replica ? ' + a streaming replica' : ''})`
    : '';
  const lines = [
    `Spendgate bench — ${options.mode} mode${topology}, ${options.durationS} s per cell after ${options.warmupS} s warm-up${options.rounds > 1 ? `, ${options.rounds} rounds` : ''}, closed loop (autocannon, 1 request in flight per connection)${options.profile ? ', gateway CPU-profiled (its numbers include the profiler)' : ''}, gateway metrics ${options.metrics ? 'on' : 'off'}`,
    `Node ${machine.node}, ${machine.cpus} CPUs (${machine.cpuModel}); load average (1/5/15 min) before ${loadAverage(machine.loadAverageBefore)}, after ${loadAverage(machine.loadAverageAfter)}`,
    '',
  ];
  const byRound = options.rounds > 1;
  /** e.g. `json/10`, or `json/10 #2` for its second round. */
  const label = (cell: CellResult) => (byRound ? `${cellLabel(cell)} #${cell.round}` : cellLabel(cell));
  const header = [
    'format',
    'load',
    'scenario',
    ...(byRound ? ['round'] : []),
    'req/s',
    'p50 ms',
    'p99 ms',
    'TTFB p50/p99',
    'failed',
    'RSS MiB',
    'CPU% srv/up/load',
    'wait% srv/up/load',
    'other/steal',
    'gateway vs bare proxy: ÷ (req/s, p50, p99) or + (p99, TTFB p99)',
  ];
  // A cell's rounds are printed together, in the order the cells were first measured.
  const cellKey = (cell: CellResult) => `${cellLabel(cell)}/${cell.scenario}`;
  const firstSeen = new Map<string, number>();
  for (const cell of report.cells) if (!firstSeen.has(cellKey(cell))) firstSeen.set(cellKey(cell), firstSeen.size);
  const ordered = [...report.cells].sort((a, b) => firstSeen.get(cellKey(a))! - firstSeen.get(cellKey(b))! || a.round - b.round);
  const rows = ordered.map((cell) => {
    const isGateway = cell.scenario === 'gateway';
    const sameRound = (comparison: { round: number; format: string }) => isGateway && comparison.round === cell.round && comparison.format === cell.format;
    const ratio = report.ratios.find((r) => sameRound(r) && cell.ratePerSec === undefined && r.connections === cell.connections);
    const added = report.addedLatency.find((a) => sameRound(a) && a.ratePerSec === cell.ratePerSec);
    const server = serverOf(cell);
    const rss = server && cell.rssMiB[server];
    return [
      cell.format,
      cell.ratePerSec === undefined ? `${cell.connections} conns` : `${cell.ratePerSec}/s`,
      cell.scenario,
      ...(byRound ? [String(cell.round)] : []),
      thousands.format(cell.reqPerSec),
      formatMs(cell.latencyMs.p50),
      formatMs(cell.latencyMs.p99),
      `${formatMs(cell.ttfbMs.p50)} / ${formatMs(cell.ttfbMs.p99)}`,
      String(cell.failed),
      rss === undefined ? '–' : thousands.format(rss),
      processesColumn(cell, cell.cpuPercent, cell.servicesCpuPercent),
      processesColumn(cell, cell.runQueueWaitPercent),
      cell.machine ? `${percent(cell.machine.otherPercent)} / ${percent(cell.machine.stealPercent)}` : '–',
      ratio
        ? `${formatRatio(ratio.reqPerSec)}  ${formatRatio(ratio.p50)}  ${formatRatio(ratio.p99)}`
        : added
          ? `${formatAddedMs(added.p99)}  ${formatAddedMs(added.ttfbP99)}`
          : '',
    ];
  });
  const rightAligned = [false, true, false, ...(byRound ? [true] : []), true, true, true, true, true, true, true, true, true, false];
  lines.push(...renderRows(header, rows, rightAligned));
  if (report.rounds) lines.push('', ...formatRounds(report.rounds, options.rounds));
  if (report.soak) lines.push('', formatSoak(report.soak));
  const pgliteCells = report.cells.filter((cell) => cell.rssMiB.pglite !== undefined);
  lines.push(
    '',
    'load = closed loop with that many connections (each sends its next request when its answer is complete),',
    '  or a fixed rate of evenly spaced requests (open loop), where latency is not inflated by queueing.',
    'TTFB = request written → first bytes of the answer (its head); for streams, when the first event can arrive.',
    `RSS = resident memory of the bare proxy or gateway process after the cell${pgliteCells.length ? " (not the gateway's PGlite process: see below)" : ''}${cluster ? `; on gateway rows the ${cluster.gateways} gateways' summed` : ''}.`,
    'failed = non-2xx + connection errors/timeouts + answers whose body was not the upstream answer byte for byte.',
    cluster
      ? `CPU% = each process's CPU time over the measured run, 100 = one core (srv = bare proxy, or the ${cluster.gateways} gateways + ${cluster.workers} workers + HAProxy + PostgreSQL (primary and replica backends) and every Redis server, each group summed; up = mock upstream, load = autocannon).`
      : `CPU% = each process's CPU time over the measured run, 100 = one core (srv = bare proxy or gateway${pgliteCells.length ? ' + its PGlite process' : ''}${options.mode === 'scaled' ? ' + its BullMQ worker + PostgreSQL and Redis' : ''}, up = mock upstream, load = autocannon).`,
    `  All of them share ${machine.cpus} cores: when srv + up + load nears ${machine.cpus * 100}, the machine, not the server alone, is the limit.`,
    '  other = CPU of processes outside this bench (e.g. other engineers\' tests), steal = CPU the hypervisor gave to other machines; both add noise.',
    `wait% = how long each process's main thread waited for a core while it had work (Linux schedstat): high for srv means the cores, not the server, held it back${cluster ? ' (gateway rows: each group summed, no services)' : ''}.`,
  );
  if (cluster) {
    lines.push(
      `Cluster: gateway rows go client → HAProxy → ${cluster.gateways} gateways (round-robin) → mock upstream; bare-proxy rows go through one bare proxy, no load balancer.`,
      '  So gateway vs bare proxy is what the whole cluster path adds (the load balancer hop, the gateway, its ledger on the Redis Cluster) over one plain proxy hop, on the same cores.',
    );
  }
  const drains = report.cells.filter((cell) => cell.meterDrainMs !== undefined);
  if (drains.length) {
    lines.push(
      `Usage events still queued after each gateway cell were written within ${drains
        .map((cell) => `${label(cell)}: ${formatMs(cell.meterDrainMs!)} ms`)
        .join(', ')}${options.mode === 'embedded' ? ' (the embedded meter runs in the gateway process).' : cluster ? " (counted on the primary until it held one per 2xx answer the client saw: the workers' lag)." : '.'}`,
    );
  }
  const runtimes = report.cells.filter((cell) => cell.gatewayRuntime !== undefined);
  if (runtimes.length) {
    const mib = (bytes: number) => thousands.format(bytes / 2 ** 20);
    lines.push(
      `Gateway JavaScript heap after each cell (used / total, external MiB) and its event loop's delay over it (p99 / max ms): ${runtimes
        .map((cell) => {
          const { heapUsedBytes, heapTotalBytes, externalBytes, loopDelay } = cell.gatewayRuntime!;
          return `${label(cell)}: ${mib(heapUsedBytes)} / ${mib(heapTotalBytes)}, ${mib(externalBytes)}; ${formatMs(loopDelay.p99Ms)} / ${formatMs(loopDelay.maxMs)}`;
        })
        .join(' · ')}.`,
    );
  }
  if (pgliteCells.length) {
    lines.push(
      `PGlite process RSS after each gateway cell: ${pgliteCells
        .map((cell) => `${label(cell)}: ${thousands.format(cell.rssMiB.pglite!)} MiB`)
        .join(', ')} (the embedded database runs in a child process of the gateway; gateway + PGlite = the whole server).`,
    );
  }
  if (report.metering) {
    lines.push(
      `Metering: ${thousands.format(report.metering.meteredRequests)} usage events recorded for ${thousands.format(report.metering.clientOkResponses)} gateway 2xx responses seen by the client (warm-ups included; a request in flight when a run stops is metered but not seen).`,
    );
  }
  for (const profile of report.profiles ?? []) lines.push('', ...formatProfile(profile.format, profile.summary, profile.files.length));
  return lines.join('\n');
}

function formatRounds(summary: RoundsSummary, rounds: number): string[] {
  const ratioRows = summary.ratios.map((ratio) => [
    ratio.format,
    `${ratio.connections} conns`,
    `${formatRatio(ratio.reqPerSec)}  ${formatRatio(ratio.p50)}  ${formatRatio(ratio.p99)}`,
    ratio.reqPerSecByRound.map(formatRatio).join(' '),
  ]);
  const addedRows = summary.addedLatency.map((added) => [
    added.format,
    `${added.ratePerSec}/s`,
    `${formatAddedMs(added.p99)}  ${formatAddedMs(added.ttfbP99)}`,
    added.p99ByRound.map(formatAddedMs).join(' '),
  ]);
  return [
    `Gateway vs bare proxy over ${rounds} rounds, each round compared within itself: the medians, and each round's req/s ratio or added p99`,
    ...renderRows(['format', 'load', 'median ÷ (req/s, p50, p99) or + (p99, TTFB p99)', 'by round'], [...ratioRows, ...addedRows], [false, true, false, false]),
  ];
}

function formatSoak(soak: SoakResult): string {
  const failed = soak.load.non2xx + soak.load.errors + soak.load.mismatches;
  return [
    `Soak: gateway, ${soak.format} at ${soak.ratePerSec}/s for ${soak.durationS} s — ${thousands.format(soak.load.ok)} answers, ${failed} failed, p99 ${formatMs(soak.load.latencyMs.p99)} ms;`,
    `  RSS ${soak.startMiB.toFixed(0)} MiB at start, ${soak.endMiB.toFixed(0)} MiB at end (max ${soak.maxMiB.toFixed(0)}), slope ${soak.slopeMiBPerMin >= 0 ? '+' : '−'}${Math.abs(soak.slopeMiBPerMin).toFixed(2)} MiB/min after the first fifth${soak.pglite ? ';' : '.'}`,
    ...(soak.pglite
      ? [`  its PGlite process's RSS ${soak.pglite.startMiB.toFixed(0)} MiB at start, ${soak.pglite.endMiB.toFixed(0)} MiB at end (max ${soak.pglite.maxMiB.toFixed(0)}).`]
      : []),
  ].join('\n');
}

function formatProfile(format: string, summary: SelfTimeSummary, files: number): string[] {
  const functionRows = summary.top.map((entry) => [entry.selfPercent.toFixed(1), thousands.format(entry.selfMs), entry.name, entry.location]);
  const moduleRows = summary.topModules.map((entry) => [entry.selfPercent.toFixed(1), thousands.format(entry.selfMs), entry.name]);
  return [
    `Gateway CPU profile, ${format} (${files} cell(s), ${thousands.format(summary.profiledMs)} ms, idle ${summary.idlePercent.toFixed(0)}% of samples); % of busy samples`,
    `Top ${summary.top.length} functions by self time:`,
    ...renderRows(['self %', 'self ms', 'function', 'where'], functionRows, [true, true, false, false]),
    `Top ${summary.topModules.length} modules by self time (native and WebAssembly frames charged to their JavaScript caller):`,
    ...renderRows(['self %', 'self ms', 'module'], moduleRows, [true, true, false]),
  ];
}
