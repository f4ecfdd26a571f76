/**
 * Browser-test support: Debian's Chromium driven by playwright-core, the console built
 * once into a temporary folder, and where screenshots go (git-ignored).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM_PATH);

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCREENSHOT_DIR = path.join(import.meta.dirname, '..', 'screenshots');

const CONSOLE_ROOT = path.join(import.meta.dirname, '..', '..', '..', 'console');
const VITE_BIN = path.join(CONSOLE_ROOT, '..', 'node_modules', 'vite', 'bin', 'vite.js');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** Builds the site and the dashboard bundle (as `npm run build` does) into a new folder. */
export async function buildConsole(): Promise<string> {
  const outDir = await mkdtemp(path.join(tmpdir(), 'spendgate-console-'));
  // Outside the test runner's environment: the federation plugin stands aside under a test runner.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|NODE_ENV$|JEST_WORKER_ID$)/.test(name)));
  const run = (args: string[]) => promisify(execFile)(process.execPath, [VITE_BIN, 'build', ...args, '--emptyOutDir', '--logLevel', 'error'], { cwd: CONSOLE_ROOT, env });
  await run(['--outDir', outDir]);
  await run(['-c', 'vite.dashboard.config.ts', '--outDir', path.join(outDir, 'dashboard-app')]);
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  return outDir;
}
