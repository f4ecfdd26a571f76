// The benchmark's scorer against a small example computed by hand from the README's formulas.

import { describe, expect, it } from 'vitest';
import { scoreBenchmark } from './score.ts';

// 24 values of 10, then two of 12: the in-sample scale (m = 24) is mean(|12−10|, |12−10|) = 2.
const train = [...Array.from({ length: 24 }, () => 10), 12, 12];

describe('scoreBenchmark', () => {
  it('averages sMAPE, MASE and MSIS over series and pools coverage over points', () => {
    const score = scoreBenchmark([
      // sMAPE = 100·(2/22 + 0) = 9.0909…; MASE = ((2 + 0)/2)/2 = 0.5;
      // MSIS = (((13−11) + 40·(11−10)) + ((18−15) + 40·(20−18)))/2/2 = (42 + 83)/4 = 31.25; 0 of 2 inside.
      { train, test: [10, 20], point: [12, 20], lower95: [11, 15], upper95: [13, 18] },
      // exact, with a band of 2 each side: sMAPE 0, MASE 0, MSIS (2 + 2)/2/2 = 1; 2 of 2 inside.
      { train, test: [10, 10], point: [10, 10], lower95: [9, 9], upper95: [11, 11] },
    ]);
    expect(score.smape).toBeCloseTo(100 / 22, 10);
    expect(score.mase).toBeCloseTo(0.25, 12);
    expect(score.msis).toBeCloseTo(16.125, 12);
    expect(score.coverage).toBe(0.5);
    expect(score.acd).toBeCloseTo(0.45, 12);
  });

  it('counts a step where actual and forecast are both 0 as a perfect sMAPE', () => {
    const score = scoreBenchmark([{ train, test: [0, 4], point: [0, 4], lower95: [0, 4], upper95: [0, 4] }]);
    expect(score.smape).toBe(0);
    expect(score.coverage).toBe(1);
  });
});
