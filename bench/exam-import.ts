// A large exam import (`proctor-lti exam import`, the console's import): how long it takes and the longest time
// it held the event loop at once, that is how long other requests of the process waited at most meanwhile. On
// the embedded database (in memory), or on PostgreSQL with DATABASE_URL (a schema of its own, dropped after).
// Usage: npm run bench:import [-- --exams 3000]
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/index.js';
import { migrate } from '../src/db/migrate.js';
import { importExams } from '../src/exams/transfer.js';
import { longestHold } from '../test/helpers/event-loop.js';

const { values } = parseArgs({ options: { exams: { type: 'string', default: '3000' } } });
const EXAMS = Number(values.exams);
const KEY = { issuer: 'https://moodle.example.edu', client_id: 'client-1', deployment_id: '1' };

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  const schema = url ? `bench_import_${randomBytes(4).toString('hex')}` : undefined;
  const db = await openDatabase({ url, dataDir: 'memory', schema });
  try {
    await migrate(db);
    await db.query("INSERT INTO ltijs_documents (collection, doc) VALUES ('platform', $1)", [JSON.stringify({ platformUrl: KEY.issuer, clientId: KEY.client_id, kid: randomUUID(), name: KEY.issuer })]);
    const exams = Array.from({ length: EXAMS }, (_, i) => ({ ...KEY, context_id: `course-${i % 50}`, resource_link_id: `link-${i}`, title: `Exam ${i}`, status: 'open' as const, settings: null }));
    const { result, longest, took } = await longestHold(() => importExams(db, { format: 'proctor-lti/exams', version: 1, exported_at: new Date().toISOString(), exams }));
    if (!result.ok || result.created !== EXAMS) throw new Error(`the import failed: ${JSON.stringify(result).slice(0, 500)}`);
    const load = (await import('node:os')).loadavg().map((value) => value.toFixed(1)).join(' ');
    console.log(`${EXAMS} exams imported on ${url ? 'PostgreSQL' : 'the embedded database'} in ${(took / 1000).toFixed(1)} s; the event loop was held for at most ${Math.round(longest)} ms at once (load average ${load})`);
  } finally {
    if (schema) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.close();
  }
}

await main();
