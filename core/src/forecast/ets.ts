// Exponential smoothing of a seasonally adjusted series: simple (level only) and additive
// damped trend, parameters by least squares over a small grid, the one with the lower AIC
// kept. The seasonal part is handled by the decomposition around it (decompose.ts).

export interface SmoothingFit {
  kind: 'simple' | 'damped';
  level: number;
  trend: number;
  phi: number;
  sse: number;
}

const ALPHAS = [0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.9, 0.99];
const BETAS = [0.01, 0.05, 0.15];
const PHIS = [0.85, 0.95, 0.98];

function runDamped(x: readonly number[], alpha: number, beta: number, phi: number, trendOn: boolean): SmoothingFit {
  let level = x[0] as number;
  let trend = trendOn && x.length > 1 ? ((x[1] as number) - (x[0] as number)) : 0;
  let sse = 0;
  for (let t = 1; t < x.length; t++) {
    const predicted = level + phi * trend;
    const error = (x[t] as number) - predicted;
    sse += error * error;
    const newLevel = predicted + alpha * error;
    if (trendOn) trend = phi * trend + alpha * beta * error;
    level = newLevel;
  }
  return { kind: trendOn ? 'damped' : 'simple', level, trend, phi: trendOn ? phi : 0, sse };
}

function aic(fit: SmoothingFit, n: number, parameters: number): number {
  return n * Math.log(Math.max(fit.sse, 1e-300) / n) + 2 * parameters;
}

export function fitSmoothing(x: readonly number[]): SmoothingFit {
  const n = x.length - 1;
  let best = runDamped(x, ALPHAS[0] as number, 0, 0, false);
  for (const alpha of ALPHAS) {
    const fit = runDamped(x, alpha, 0, 0, false);
    if (fit.sse < best.sse) best = fit;
  }
  let bestAic = aic(best, n, 2);
  if (x.length < 10) return best;
  for (const alpha of ALPHAS) {
    for (const beta of BETAS) {
      for (const phi of PHIS) {
        const fit = runDamped(x, alpha, beta, phi, true);
        const score = aic(fit, n, 5);
        if (score < bestAic) {
          best = fit;
          bestAic = score;
        }
      }
    }
  }
  return best;
}

export function smoothingForecast(fit: SmoothingFit, horizon: number): number[] {
  const out: number[] = [];
  let damping = 0;
  let phiPower = 1;
  for (let h = 1; h <= horizon; h++) {
    phiPower *= fit.phi;
    damping += phiPower;
    out.push(fit.level + damping * fit.trend);
  }
  return out;
}
