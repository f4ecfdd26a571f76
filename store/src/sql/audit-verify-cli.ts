// `npm run audit:verify -- [--team ID]`: walks the audit hash chain of one team (or of every
// team) in the configured database (DATABASE_URL, else the embedded ./data) and prints each
// team's result; exits 1 when a chain is broken, naming its first broken link.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openSqlStore, sqlLocationFor } from './connect.ts';
import { listAuditTeams, verifyAuditChain } from './repos/audit.ts';

const { values } = parseArgs({ options: { team: { type: 'string' } } });
if (values.team !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(values.team)) {
  console.error(`--team must be a team id (a UUID), got ${JSON.stringify(values.team)}`);
  process.exit(2);
}
const config = await loadConfig();
const store = await openSqlStore(sqlLocationFor(config));
let broken = 0;
try {
  for (const teamId of values.team ? [values.team] : await listAuditTeams(store.db)) {
    const result = await verifyAuditChain(store.db, teamId);
    if (result.broken) {
      broken++;
      console.log(`team ${teamId}: BROKEN at seq ${result.broken.seq}${result.broken.id ? ` (row ${result.broken.id})` : ''}: ${result.broken.reason}`);
    } else console.log(`team ${teamId}: ok, ${result.checked} rows from seq ${BigInt(result.anchorSeq) + 1n} to ${result.headSeq}`);
  }
} finally {
  await store.close();
}
process.exitCode = broken > 0 ? 1 : 0;
