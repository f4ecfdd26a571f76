/**
 * Makes the /demo page's video from the product itself (`npm run demo:video`): starts the
 * built server with its demo team (`--demo`: 90 days of a real Azure trace, recorded in
 * the background, which it waits for, and the team's first forecast), narrates each
 * chapter with espeak-ng, walks the console through the chapter's screens in Debian's
 * Chromium with Playwright, recording the page's screencast frames (Chromium's own, over
 * CDP: Playwright's video recorder needs an ffmpeg build of its own, which cannot be
 * downloaded here), then has Debian's ffmpeg lay the narration on the picture,
 * mark the chapters and encode a small H.264 MP4, beside a WebVTT caption track and a
 * poster frame, into console/public/media/.
 *
 * Needs `npm run build` done, and the Debian packages chromium, espeak-ng and ffmpeg.
 * `DEMO_VIDEO_MAX_BYTES` (default 10 MB) is the size the encode must stay under.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { CHAPTERS, type Chapter, VIDEO_TITLE } from './chapters.ts';
import { captionsVtt, chapterMetadata, type RecordedChapter } from './timeline.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MEDIA_DIR = path.join(ROOT, 'console', 'public', 'media');
const OUTPUT = { video: 'spendgate-demo.mp4', captions: 'spendgate-demo.vtt', poster: 'spendgate-demo-poster.jpg' };
const MAX_BYTES = Number(process.env.DEMO_VIDEO_MAX_BYTES ?? 10_000_000);
const SIZE = { width: 1280, height: 720 };
/** Quiet time after each chapter's narration before the next begins. */
const CHAPTER_GAP_MS = 900;
const VOICE = ['-v', 'en-gb', '-s', '160'];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

async function durationMs(file: string): Promise<number> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
  return Math.round(Number(stdout.trim()) * 1_000);
}

/** One WAV per chapter, and how long each lasts. */
async function narrate(workDir: string): Promise<{ file: string; ms: number }[]> {
  return Promise.all(
    CHAPTERS.map(async (chapter, index) => {
      const file = path.join(workDir, `narration-${index}.wav`);
      await run('espeak-ng', [...VOICE, '-w', file, chapter.sentences.join(' ')]);
      return { file, ms: await durationMs(file) };
    }),
  );
}

/** `npm run demo`'s server on a fresh data folder; resolves with its address and the demo sign-in. */
async function startDemoServer(dataDir: string): Promise<{ url: string; email: string; password: string; server: ChildProcess }> {
  const port = await freePort();
  // Always the embedded stores: a fresh PGlite in a folder of its own.
  const { DATABASE_URL: _database, REDIS_URL: _redis, ...env } = process.env;
  const server = spawn(process.execPath, [path.join(ROOT, 'dist', 'gateway.mjs'), '--demo'], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const found: Record<string, string> = {};
  for await (const line of createInterface({ input: server.stdout! })) {
    const match = /^\s*(Email|Password)\s+(\S+)/.exec(line);
    if (match) found[match[1]!] = match[2]!;
    if (line.includes('Demo team')) break;
  }
  if (!found.Email || !found.Password) throw new Error('the demo server did not print its demo sign-in');
  server.stdout!.resume();
  return { url: `http://127.0.0.1:${port}`, email: found.Email, password: found.Password, server };
}

async function signIn(url: string, email: string, password: string): Promise<{ token: string; user: unknown }> {
  const response = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  const body = (await response.json()) as { data?: { token: string; user: unknown } };
  if (!response.ok || !body.data) throw new Error(`demo sign-in failed: ${response.status}`);
  return body.data;
}

/** Waits until the demo team's 90 days are recorded (it fills in the background, a day at a time) and its first forecast is made. */
async function demoTeamFilled(url: string, token: string): Promise<void> {
  const get = async <T>(route: string): Promise<T> => {
    const response = await fetch(`${url}/api${route}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`GET ${route} failed: ${response.status}`);
    return ((await response.json()) as { data: T }).data;
  };
  const [team] = await get<{ id: string }[]>('/team/');
  if (!team) throw new Error('the demo account has no team');
  for (;;) {
    const [{ demo }, { forecast }] = await Promise.all([
      get<{ demo: { state: string } | null }>(`/usage/team?teamId=${team.id}`),
      get<{ forecast: unknown }>(`/usage/cost/forecast?teamId=${team.id}`),
    ]);
    if (demo?.state === 'filled' && forecast !== null) return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

interface Frame {
  file: string;
  /** Wall-clock time it was painted, ms. */
  at: number;
}

/** Starts Chromium's screencast of the page into JPEG files; `stop` answers the frames painted. */
async function recordScreen(page: Page, dir: string): Promise<{ stop(): Promise<Frame[]> }> {
  await mkdir(dir);
  const cdp = await page.context().newCDPSession(page);
  const frames: Frame[] = [];
  let written = Promise.resolve();
  cdp.on('Page.screencastFrame', ({ data, metadata, sessionId }) => {
    const file = path.join(dir, `frame-${String(frames.length).padStart(6, '0')}.jpg`);
    frames.push({ file, at: (metadata.timestamp ?? Date.now() / 1_000) * 1_000 });
    written = written.then(() => writeFile(file, Buffer.from(data, 'base64')));
    void cdp.send('Page.screencastFrameAck', { sessionId }).catch(() => undefined);
  });
  await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 85, maxWidth: SIZE.width, maxHeight: SIZE.height });
  return {
    async stop() {
      await cdp.send('Page.stopScreencast');
      await written;
      return frames;
    },
  };
}

/** An ffconcat list showing each frame until the next, over [from, to] in wall-clock ms. */
function frameList(frames: Frame[], from: number, to: number): string {
  const firstShown = Math.max(0, frames.findLastIndex((frame) => frame.at <= from));
  const shown = frames.slice(firstShown).filter((frame) => frame.at < to);
  const lines = shown.map((frame, index) => {
    const start = Math.max(frame.at, from);
    const end = shown[index + 1]?.at ?? to;
    return `file '${frame.file}'\nduration ${((end - start) / 1_000).toFixed(3)}`;
  });
  // The concat demuxer needs the last file named again for its duration to count.
  return `ffconcat version 1.0\n${lines.join('\n')}\nfile '${shown.at(-1)!.file}'\n`;
}

/** Scrolls the page from top to bottom, evenly, over `ms`. */
async function scrollThrough(page: Page, ms: number): Promise<void> {
  const steps = Math.max(1, Math.floor(ms / 100));
  const height = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  for (let step = 1; step <= steps; step++) {
    await page.evaluate((top) => window.scrollTo({ top }), Math.round((height * step) / steps));
    await page.waitForTimeout(100);
  }
}

async function show(page: Page, screen: string, url: string): Promise<void> {
  if (screen === 'group:') {
    await page.locator('main a[href^="/dashboard/synthetic-groups?"]').first().click();
  } else if (screen.startsWith('click:')) {
    await page.evaluate(() => window.scrollTo({ top: 0 }));
    await page.getByRole('button', { name: screen.slice('click:'.length) }).click();
  } else {
    await page.goto(`${url}${screen}`);
  }
  await page.locator('main').first().waitFor();
  await page.waitForLoadState('networkidle');
  const anchor = screen.split('#')[1];
  if (anchor) await page.locator(`#${anchor}`).evaluate((element) => element.closest('section')?.scrollIntoView({ block: 'start' }));
}

/** Walks one chapter's screens for as long as its narration lasts; answers its recorded times. */
async function playChapter(page: Page, chapter: Chapter, narrationMs: number, url: string, clock: () => number): Promise<Omit<RecordedChapter, 'endMs'>> {
  const startMs = clock();
  const share = narrationMs / chapter.screens.length;
  for (const [index, screen] of chapter.screens.entries()) {
    await show(page, screen, url);
    const left = startMs + share * (index + 1) - clock();
    if (!screen.includes('#')) await scrollThrough(page, Math.max(600, left * 0.8));
    const rest = startMs + share * (index + 1) - clock();
    if (rest > 0) await page.waitForTimeout(rest);
  }
  await page.waitForTimeout(CHAPTER_GAP_MS);
  return { title: chapter.title, sentences: chapter.sentences, startMs, narrationMs };
}

async function encode(workDir: string, picture: string, chapters: RecordedChapter[], narration: { file: string }[]) {
  const metadata = path.join(workDir, 'chapters.txt');
  await writeFile(metadata, chapterMetadata(chapters, VIDEO_TITLE));
  const delays = chapters.map((chapter, index) => `[${index + 1}:a]adelay=${Math.round(chapter.startMs)}:all=1[n${index}]`);
  const mix = `${chapters.map((_, index) => `[n${index}]`).join('')}amix=inputs=${chapters.length}:normalize=0[voice]`;
  const out = path.join(MEDIA_DIR, OUTPUT.video);
  await run('ffmpeg', [
    '-y', '-loglevel', 'error',
    '-f', 'concat', '-safe', '0', '-i', picture,
    ...narration.flatMap(({ file }) => ['-i', file]),
    '-i', metadata,
    '-filter_complex', [...delays, mix].join(';'),
    '-map', '0:v', '-map', '[voice]', '-map_metadata', String(chapters.length + 1), '-map_chapters', String(chapters.length + 1),
    '-vf', 'fps=12', '-c:v', 'libx264', '-preset', 'veryslow', '-crf', '30', '-tune', 'stillimage', '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-b:a', '40k', '-ac', '1',
    '-t', String(chapters.at(-1)!.endMs / 1_000), '-movflags', '+faststart', out,
  ]);
  await run('ffmpeg', ['-y', '-loglevel', 'error', '-ss', String((chapters[0]!.endMs - 2_000) / 1_000), '-i', out, '-frames:v', '1', '-q:v', '4', path.join(MEDIA_DIR, OUTPUT.poster)]);
  await writeFile(path.join(MEDIA_DIR, OUTPUT.captions), captionsVtt(chapters));
  const { size } = await stat(out);
  if (size > MAX_BYTES) throw new Error(`the video is ${size} bytes, over DEMO_VIDEO_MAX_BYTES (${MAX_BYTES})`);
  return { out, size };
}

async function main(): Promise<void> {
  const workDir = await mkdtemp(path.join(tmpdir(), 'spendgate-demo-video-'));
  const narration = await narrate(workDir);
  const { url, email, password, server } = await startDemoServer(path.join(workDir, 'data'));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars'] });
  try {
    const session = await signIn(url, email, password);
    await demoTeamFilled(url, session.token);
    const context = await browser.newContext({ viewport: SIZE, reducedMotion: 'reduce' });
    await context.addInitScript((seed) => {
      localStorage.setItem('token', seed.token);
      localStorage.setItem('user', JSON.stringify(seed.user));
      localStorage.setItem('spendgate.theme', 'light');
    }, session);
    const page = await context.newPage();
    const screen = await recordScreen(page, path.join(workDir, 'frames'));
    await page.goto(`${url}/dashboard`);
    await page.waitForLoadState('networkidle');
    const origin = Date.now();
    const clock = () => Date.now() - origin;

    const played: Omit<RecordedChapter, 'endMs'>[] = [];
    for (const [index, chapter] of CHAPTERS.entries()) played.push(await playChapter(page, chapter, narration[index]!.ms, url, clock));
    const endMs = clock();
    const frames = await screen.stop();
    await context.close();
    const chapters = played.map((chapter, index) => ({ ...chapter, endMs: played[index + 1]?.startMs ?? endMs }));
    const picture = path.join(workDir, 'frames.txt');
    await writeFile(picture, frameList(frames, origin, origin + endMs));
    const { out, size } = await encode(workDir, picture, chapters, narration);
    console.log(`${path.relative(ROOT, out)}: ${(endMs / 1_000).toFixed(1)} s, ${(size / 1_000_000).toFixed(2)} MB, ${chapters.length} chapters`);
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();
