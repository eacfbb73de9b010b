// The tool under test, in its own process as in production: configuration from the environment (the
// Launch API of bench/compare/upstream.ts with the sandbox account's credentials, not sandbox mode), its
// own database, the upstream demo LMS registered as a platform and the demo course's exam configured,
// then the same HTTP server set-up as src/main.ts. Started by bench/compare.ts. BENCH_LMS names which of the
// upstream's LMSs launches it (default `tool`; `bare` when it stands in for the bare tool, under --against).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, LISTEN_BACKLOG } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { migrate } from '../../src/db/migrate.js';
import { createExamStore } from '../../src/exams/store.js';
import { createLogger } from '../../src/logger.js';
import { seedDemoExam } from '../../src/sandbox/index.js';
import type { UpstreamInfo } from './upstream.js';

const upstream = process.env.UPSTREAM_URL;
if (!upstream) throw new Error('UPSTREAM_URL is required');
const dataDir = mkdtempSync(join(tmpdir(), 'proctor-lti-compare-'));
const config = loadConfig({ ...process.env, DATA_DIR: process.env.DATA_DIR ?? dataDir });
const logger = createLogger(config.logLevel);
const db = await openDatabase(config.database);
await migrate(db);
const tool = await createApp({ config, db, logger, encryptionKey: 'compare-bench-encryption-key-0123456789abcdef' });
// As in production, where NODE_ENV=production turns it on (the bench runs development: production needs an https URL).
tool.app.enable('view cache');

const lms = process.env.BENCH_LMS ?? 'tool';
const info = (await (await fetch(`${upstream}/bench/info?lms=${encodeURIComponent(lms)}`)).json()) as UpstreamInfo;
await tool.lti.platforms.register({
  issuer: info.registration.issuer,
  clientId: info.registration.clientId,
  name: 'Bench LMS',
  authUrl: info.registration.authUrl,
  tokenUrl: info.registration.tokenUrl,
  key: { jwksUrl: info.registration.jwksUrl },
  deploymentIds: info.registration.deploymentIds,
});
await seedDemoExam({ exams: createExamStore(db) }, info);

const server = createServer((req, res) => void tool.app(req, res));
server.keepAliveTimeout = 65_000;
await new Promise<void>((resolve) => server.listen({ port: config.port, host: '127.0.0.1', backlog: LISTEN_BACKLOG }, resolve));
await tool.afterListen();
process.stdout.write(`ready ${config.port}\n`);

process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(async () => {
    await tool.close();
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
