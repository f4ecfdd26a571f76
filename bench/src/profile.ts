/**
 * Reads V8 .cpuprofile files (as written by the gateway process's `profile-stop`) and
 * ranks where the CPU went, summed over several profiles (e.g. one per cell):
 * - functions by self time: samples in which the function itself was running;
 * - modules by self time: each sample charged to the innermost JavaScript module on
 *   its stack (a package, a repo file, or Node's core), so native and WebAssembly
 *   frames count for the code that called them (socket writes → node core, token
 *   counts in WebAssembly → tiktoken). The embedded PGlite runs in a process of its
 *   own and is not in these profiles.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

export interface SelfTimeEntry {
  /** Function name (or V8's `(program)`, `(garbage collector)`), or module name. */
  name: string;
  /** Where a function is defined (empty for native functions and for modules). */
  location: string;
  selfMs: number;
  /** % of all busy (non-idle) samples. */
  selfPercent: number;
}

export interface SelfTimeSummary {
  /** Wall time profiled, ms. */
  profiledMs: number;
  /** % of samples in which the process was idle (waiting in the event loop). */
  idlePercent: number;
  top: SelfTimeEntry[];
  topModules: SelfTimeEntry[];
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function filePath(url: string): string {
  return url.startsWith('file://') ? fileURLToPath(url) : url;
}

/**
 * A short, readable place: repo-relative, node_modules shortened to the package path.
 * Code run through tsx is one line per file, so a line number is shown only when it
 * means something (> 1).
 */
function shortLocation(url: string, lineNumber: number): string {
  if (!url) return '';
  let file = filePath(url);
  const modules = file.lastIndexOf('/node_modules/');
  if (modules !== -1) file = file.slice(modules + 1);
  else if (file.startsWith(`${REPO_ROOT}/`)) file = file.slice(REPO_ROOT.length + 1);
  return lineNumber > 0 ? `${file}:${lineNumber + 1}` : file;
}

/** The module a script URL belongs to: a package, a repo file or Node's core. */
function moduleOf(url: string): string {
  if (url.startsWith('node:')) return 'node core (http, net, streams, …)';
  const file = filePath(url);
  const modules = file.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const [scope = '', name = ''] = file.slice(modules + '/node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  return file.startsWith(`${REPO_ROOT}/`) ? file.slice(REPO_ROOT.length + 1) : file;
}

class Tally {
  readonly #entries = new Map<string, { name: string; location: string; samples: number }>();

  add(name: string, location: string): void {
    const key = `${name}\u0000${location}`;
    const entry = this.#entries.get(key) ?? { name, location, samples: 0 };
    entry.samples++;
    this.#entries.set(key, entry);
  }

  top(limit: number, msPerSample: number, busySamples: number): SelfTimeEntry[] {
    return [...this.#entries.values()]
      .sort((a, b) => b.samples - a.samples)
      .slice(0, limit)
      .map((entry) => ({
        name: entry.name,
        location: entry.location,
        selfMs: entry.samples * msPerSample,
        selfPercent: busySamples ? (100 * entry.samples) / busySamples : 0,
      }));
  }
}

/** Sums self time by function and by module over the given profiles; the `limit` busiest of each. */
export async function topSelfTime(files: string[], limit = 10): Promise<SelfTimeSummary> {
  const functions = new Tally();
  const modules = new Tally();
  let totalSamples = 0;
  let idleSamples = 0;
  let profiledMs = 0;
  for (const file of files) {
    const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parentOf = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
    const moduleByNode = new Map<number, string>();
    const moduleOfNode = (id: number): string => {
      const known = moduleByNode.get(id);
      if (known !== undefined) return known;
      const { url, functionName } = byId.get(id)!.callFrame;
      const parent = parentOf.get(id);
      const found =
        url && !url.startsWith('wasm://') ? moduleOf(url) : parent === undefined ? functionName : moduleOfNode(parent);
      moduleByNode.set(id, found);
      return found;
    };

    profiledMs += (profile.endTime - profile.startTime) / 1000;
    totalSamples += profile.samples.length;
    for (const id of profile.samples) {
      const frame = byId.get(id)?.callFrame;
      if (!frame) continue;
      if (frame.functionName === '(idle)') {
        idleSamples++;
        continue;
      }
      functions.add(frame.functionName || '(anonymous)', shortLocation(frame.url, frame.lineNumber));
      // V8's pseudo-frames ((program), (garbage collector)) are their own module.
      modules.add(frame.functionName.startsWith('(') && !frame.url ? frame.functionName : moduleOfNode(id), '');
    }
  }
  const msPerSample = totalSamples ? profiledMs / totalSamples : 0;
  const busySamples = totalSamples - idleSamples;
  return {
    profiledMs,
    idlePercent: totalSamples ? (100 * idleSamples) / totalSamples : 0,
    top: functions.top(limit, msPerSample, busySamples),
    topModules: modules.top(limit, msPerSample, busySamples),
  };
}
