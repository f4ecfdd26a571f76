/**
 * The Grafana dashboard shipped in deploy/grafana reads only metrics the gateway exposes:
 * every metric name in every panel's PromQL is a metric family of a real GET /metrics
 * (a histogram's _bucket, _sum and _count read its family), in both modes; and it has a
 * panel for each thing an operator watches.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricFamilies } from '../support/prometheus-text.ts';
import { type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const METRICS_TOKEN = 'metrics-token-for-the-dashboard-test';
const DASHBOARD = new URL('../../deploy/grafana/spendgate.json', import.meta.url);

/** PromQL words that are not metric names: keywords, aggregation modifiers, functions' names (followed by "("). */
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'and', 'or', 'unless', 'le', 'inf', 'nan']);

interface Panel {
  title: string;
  panels?: Panel[];
  targets?: { expr: string }[];
}

/** The metric names a PromQL expression reads. */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '') // label lists
    .replace(/\[[^\]]*\]/g, ''); // ranges
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)]
    .filter(([, name, call]) => call === undefined && !KEYWORDS.has(name!.toLowerCase()) && !/^\d/.test(name!))
    .map(([, name]) => name!)
    .filter((name) => !/^[eE]\d*$/.test(name));
}

function panelsOf(panels: Panel[]): Panel[] {
  return panels.flatMap((panel) => [panel, ...panelsOf(panel.panels ?? [])]);
}

describe('metricNamesIn', () => {
  it('finds the metrics of an expression, not its functions, labels or numbers', () => {
    expect(
      metricNamesIn('histogram_quantile(0.95, sum by (le, provider) (rate(spendgate_request_duration_seconds_bucket{instance=~"$instance"}[5m]))) * 3600 / 1e6'),
    ).toEqual(['spendgate_request_duration_seconds_bucket']);
    expect(metricNamesIn('sum(rate(a_total{status=~"5.*"}[1m])) / sum(rate(b_total[1m]))')).toEqual(['a_total', 'b_total']);
  });
});

for (const mode of testModes) {
  describe(`deploy/grafana/spendgate.json (${mode})`, () => {
    let spendgate: RunningSpendgate;
    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'grafana-dashboard', { env: { METRICS_TOKEN } });
    });
    afterAll(async () => {
      await spendgate?.close();
    });

    it('reads only metric families GET /metrics exposes', async () => {
      const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: Panel[] };
      const response = await fetch(`${spendgate.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(response.status).toBe(200);
      const families = metricFamilies(await response.text());

      const panels = panelsOf(dashboard.panels).filter((panel) => panel.targets);
      const used = new Set(panels.flatMap((panel) => panel.targets!.flatMap((target) => metricNamesIn(target.expr))));
      expect(used.size).toBeGreaterThan(10);
      for (const name of used) {
        const family = families.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
        expect(families.has(family) && (family === name || families.get(family) === 'histogram'), `${name} is not on /metrics`).toBe(true);
      }
      // What an operator looks for, each in a panel.
      const titles = panels.map((panel) => panel.title.toLowerCase()).join('\n');
      for (const topic of ['request rate', 'error rate', 'p50 / p95 / p99', 'time to first byte', 'tokens', 'cost', 'budget refusals', 'circuit breakers', 'meter backlog', 'queue depth']) {
        expect(titles).toContain(topic);
      }
    });
  });
}
