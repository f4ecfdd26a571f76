// Reads the M4 Hourly benchmark (train and test CSVs, one series a row, padded with empty cells).

import { readFileSync } from 'node:fs';

export interface M4Series {
  id: string;
  train: number[];
  test: number[];
}

function readRows(path: string): Map<string, number[]> {
  const rows = new Map<string, number[]>();
  const lines = readFileSync(path, 'utf8').split('\n').slice(1);
  for (const line of lines) {
    if (line.trim() === '') continue;
    const cells = line.split(',').map((c) => c.replaceAll('"', ''));
    const values = cells
      .slice(1)
      .filter((c) => c !== '' && c !== 'NA')
      .map(Number);
    rows.set(cells[0] as string, values);
  }
  return rows;
}

export function readM4Hourly(folder: string): M4Series[] {
  const train = readRows(`${folder}/m4-hourly-train.csv`);
  const test = readRows(`${folder}/m4-hourly-test.csv`);
  return [...train].map(([id, values]) => ({ id, train: values, test: test.get(id) ?? [] }));
}
