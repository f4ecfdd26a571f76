// Fails when a package in the lockfile needs a newer Node than the lowest version the
// root package.json's `engines` allows: `npm ci --engine-strict` only checks the Node
// that runs CI, which may be newer than what users run.
import { readFileSync } from 'node:fs';
import semver from 'semver';

const root = JSON.parse(readFileSync('package.json', 'utf8'));
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const lowest = semver.minVersion(root.engines.node);
const tooNew = Object.entries(lock.packages)
  .filter(([location, entry]) => location && entry.engines?.node && !semver.satisfies(lowest, entry.engines.node))
  .map(([location, entry]) => `${location.replace(/^.*node_modules\//, '')}@${entry.version} needs Node ${entry.engines.node}`);
if (tooNew.length > 0) {
  console.error(`EBADENGINE: package.json says Node ${root.engines.node}, but\n  ${tooNew.join('\n  ')}`);
  process.exit(1);
}
console.log(`every locked package runs on Node ${lowest}`);
