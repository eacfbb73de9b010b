// Roster endpoint benchmark: a course of 10,000 members served by the demo LMS's Names and Roles
// service, read through the real app over HTTP. Cold = a course whose roster is not cached (every NRPS
// page fetched, pseudonyms derived, JSON built); warm = the same course again within the cache time.
// Usage: npm run bench [-- --members 10000 --cold 7 --warm 50]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createAppSecrets } from '../src/db/app-secrets.js';
import { createSecretBox } from '../src/secrets/secret-box.js';
import { openDatabase } from '../src/db/index.js';
import { migrate } from '../src/db/migrate.js';
import { createContextStore } from '../src/hosted/contexts.js';
import { createHostedLinks } from '../src/hosted/links.js';
import { createLogger } from '../src/logger.js';

const BENCH_ENCRYPTION_KEY = 'bench-encryption-key-0123456789-abcdefghijklmnop';

const { values } = parseArgs({
  options: {
    members: { type: 'string', default: '10000' },
    cold: { type: 'string', default: '7' },
    warm: { type: 'string', default: '50' },
  },
});
const MEMBERS = Number(values.members);
const COLD_RUNS = Number(values.cold);
const WARM_RUNS = Number(values.warm);

const median = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const p95 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.ceil(samples.length * 0.95) - 1)]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function timed(url: string): Promise<{ ms: number; bytes: number; count: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { Origin: 'https://portal.example.com' } });
  const text = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`roster answered ${response.status}: ${text.slice(0, 200)}`);
  return { ms: elapsed, bytes: Buffer.byteLength(text), count: (JSON.parse(text) as unknown[]).length };
}

async function main(): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({ NODE_ENV: 'development', PORT: String(port), PUBLIC_URL: baseUrl, LOG_LEVEL: 'silent', ROSTER_CACHE_SECONDS: '600' });
  const db = await openDatabase({ dataDir: 'memory' });
  await migrate(db);
  const tool = await createApp({ config, db, logger: createLogger('silent'), encryptionKey: BENCH_ENCRYPTION_KEY });
  const installationSecret = async (database: typeof db, name: 'pseudonyms' | 'hosted-links') => (await createAppSecrets(database, createSecretBox([BENCH_ENCRYPTION_KEY])).versions(name))[0]!.value;
  server.on('request', tool.app);
  try {
    const demo = tool.sandbox?.demoLms;
    if (!demo) throw new Error('the bench needs sandbox mode (no proctoring credentials)');
    const contexts = createContextStore(db, { pseudonymSecret: await installationSecret(db, 'pseudonyms') });
    const links = createHostedLinks({ baseUrl, secret: await installationSecret(db, 'hosted-links') });
    const { issuer, clientId, deploymentIds } = demo.registration;
    const nrpsUrl = demo.registration.nrpsUrl(demo.course.id);
    let course = 0;
    /** A course the tool has not served yet, backed by the demo class: its first roster request is cold. */
    const coldRosterUrl = async () => {
      const sectionId = await contexts.remember({ issuer, clientId, deploymentId: deploymentIds[0] ?? '1', context: { id: `bench-course-${++course}` }, namesRolesUrl: nrpsUrl });
      return links.rosterUrl(sectionId ?? '', 3600);
    };

    console.log(`Roster benchmark: ${MEMBERS.toLocaleString('en')} members, ${COLD_RUNS} cold and ${WARM_RUNS} warm requests per case, Node ${process.version}, database ${db.kind}`);
    // The first access token (client-credentials grant) is cached afterwards, as in production.
    demo.setClass({ classSize: 10, nrpsPageSize: undefined });
    await timed(await coldRosterUrl());

    const cases: Array<{ label: string; pageSize: number | undefined }> = [
      { label: 'one NRPS page (Moodle default)', pageSize: undefined },
      { label: 'NRPS pages of 1,000', pageSize: 1000 },
      { label: 'NRPS pages of 100', pageSize: 100 },
    ];
    demo.setClass({ classSize: MEMBERS - 4 });
    for (const { label, pageSize } of cases) {
      demo.setClass({ nrpsPageSize: pageSize });
      const cold: number[] = [];
      let last = { ms: 0, bytes: 0, count: 0 };
      const pagesBefore = demo.nrpsPageRequests();
      for (let i = 0; i < COLD_RUNS; i++) {
        last = await timed(await coldRosterUrl());
        cold.push(last.ms);
      }
      const pages = (demo.nrpsPageRequests() - pagesBefore) / COLD_RUNS;
      const warmUrl = await coldRosterUrl();
      await timed(warmUrl);
      const warm: number[] = [];
      for (let i = 0; i < WARM_RUNS; i++) warm.push((await timed(warmUrl)).ms);
      console.log(
        `  ${label.padEnd(32)} cold median ${ms(median(cold)).padStart(9)} (p95 ${ms(p95(cold))}, ${pages} pages)   warm median ${ms(median(warm)).padStart(8)} (p95 ${ms(p95(warm))})   ${last.count} pairs, ${(last.bytes / 1024).toFixed(0)} KiB`,
      );
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await tool.close();
    await db.close();
  }
}

await main();
