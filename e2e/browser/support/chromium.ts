/**
 * Browser-test support: Debian's Chromium driven by playwright-core, the console built
 * once into a temporary folder, and where screenshots go (git-ignored). `browserSuite()`
 * gives a test file both for its whole run.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

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

/** What a browser test file's tests share: the built console and one Chromium. */
export interface BrowserSuite {
  readonly consoleDir: string;
  readonly browser: Browser;
}

/**
 * Builds the console and launches Chromium before the file's tests (in the describe it is
 * called in) and removes both after them.
 *
 * @example
 *   const suite = browserSuite();
 *   // in a nested beforeAll: startSpendgate(mode, name, { consoleDir: suite.consoleDir });
 *   //                        browserProfiles(suite.browser, spendgate.url)
 */
export function browserSuite(): BrowserSuite {
  let consoleDir: string | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [consoleDir, browser] = await Promise.all([buildConsole(), launchChromium()]);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    if (consoleDir) await rm(consoleDir, { recursive: true, force: true });
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`browserSuite: ${what} is used before the suite's beforeAll ran`);
    return value;
  };
  return {
    get consoleDir() {
      return ready(consoleDir, 'consoleDir');
    },
    get browser() {
      return ready(browser, 'browser');
    },
  };
}
