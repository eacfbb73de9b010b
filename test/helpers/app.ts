import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { decodeJwt } from 'jose';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { Database } from '../../src/db/types.js';
import { createAppSecrets, type AppSecretName } from '../../src/db/app-secrets.js';
import { createSecretBox } from '../../src/secrets/secret-box.js';
import { migratedTestDatabase, type TestDatabase } from './db.js';
import './shared-rsa-keys.mjs';
import { createConformanceWatch } from '../contract/conformance.js';

export interface TestApp {
  baseUrl: string;
  config: Config;
  db: TestDatabase;
  tool: App;
  server: Server;
  /**
   * The LTI session token (ltik) the tool issued for the launch of this login state, read inside the test
   * process: a launch answered with a redirect hands it to no browser, and no response carries it in a URL.
   */
  sessionToken(state: string): string;
  /** Every session token the tool has issued so far. */
  issuedSessionTokens(): string[];
  /** Checks every body the tool sends to the emulator against the hand-written reading of the Launch API document. */
  conformance: ReturnType<typeof createConformanceWatch>;
  /** Stops the app; fails when the tool sent the emulator a request the Launch API document forbids. */
  close(): Promise<void>;
}

export const TEST_ENCRYPTION_KEY = 'test-encryption-key-0123456789-abcdefghijklmnop';

/**
 * The real app (sandbox mode: demo LMS + Launch API emulator) on a real port of 127.0.0.1, on the test
 * database (PGlite in memory, or a throwaway PostgreSQL schema when DATABASE_URL is set).
 * One at a time per process (files sharing a process run one after the other): ltijs's token validation and
 * login are patched process-wide, for the newest adapter.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  /** `tls`: serve https with this key and certificate (PUBLIC_URL then is https://127.0.0.1:PORT). */
  options: { logger?: Logger; tls?: { key: string; cert: string }; db?: TestDatabase; now?: () => Date; launchesThroughLtijs?: boolean; olderEncryptionKeys?: string[] } = {},
): Promise<TestApp> {
  const server: Server = options.tls ? createTlsServer({ key: options.tls.key, cert: options.tls.cert }) : createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  // No scheduled retention prune in the middle of a test's data (test/retention/ runs it on purpose).
  const config = loadConfig({ NODE_ENV: 'test', PORT: String(port), PUBLIC_URL: baseUrl, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', RETENTION_PRUNE_INTERVAL_MINUTES: '0', ...env });
  const db = options.db ?? (await migratedTestDatabase());
  const tool = await createApp({ config, db, logger: options.logger ?? createLogger(config.logLevel), encryptionKey: TEST_ENCRYPTION_KEY, olderEncryptionKeys: options.olderEncryptionKeys, now: options.now, launchesThroughLtijs: options.launchesThroughLtijs });
  const sessions = new Map<string, string>();
  const conformance = createConformanceWatch();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    conformance.observe(req, res);
    // Express keeps an existing res.locals: the session token ltijs puts there is read once answered.
    const locals: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    (res as ServerResponse & { locals?: unknown }).locals = locals;
    res.on('finish', () => {
      if (typeof locals.ltik !== 'string') return;
      const state = decodeJwt(locals.ltik).s;
      if (typeof state === 'string') sessions.set(state, locals.ltik);
    });
    tool.app(req, res);
  });
  return {
    baseUrl,
    config,
    db,
    tool,
    server,
    sessionToken(state) {
      const ltik = sessions.get(state);
      if (!ltik) throw new Error(`no LTI session was issued for login state ${state}`);
      return ltik;
    },
    issuedSessionTokens: () => [...sessions.values()],
    conformance,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tool.close();
      await db.close();
      conformance.assertConformed();
    },
  };
}

/** A logger (level trace, or `level`) that keeps every line it writes, for tests that check what reaches the log. */
export function capturedLog(level = 'trace'): { logger: Logger; lines: string[]; entries(): Record<string, unknown>[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger(level, sink), lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** The newest version of an installation secret of a test app's database (sealed with TEST_ENCRYPTION_KEY). */
export async function installationSecret(db: Database, name: AppSecretName, keys: readonly string[] = [TEST_ENCRYPTION_KEY]): Promise<string> {
  const [newest] = await createAppSecrets(db, createSecretBox(keys)).versions(name);
  if (!newest) throw new Error(`no installation secret ${name}`);
  return newest.value;
}
