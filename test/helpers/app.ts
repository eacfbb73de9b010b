import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { migratedTestDatabase, type TestDatabase } from './db.js';

export interface TestApp {
  baseUrl: string;
  config: Config;
  db: TestDatabase;
  tool: App;
  server: Server;
  close(): Promise<void>;
}

export const TEST_ENCRYPTION_KEY = 'test-encryption-key-0123456789-abcdefghijklmnop';

/**
 * The real app (sandbox mode: demo LMS + Launch API emulator) on a real port of 127.0.0.1, on the test
 * database (PGlite in memory, or a throwaway PostgreSQL schema when DATABASE_URL is set).
 * One per test file: ltijs is a process-wide singleton.
 */
export async function startTestApp(env: Record<string, string> = {}, options: { logger?: Logger } = {}): Promise<TestApp> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({ NODE_ENV: 'test', PORT: String(port), PUBLIC_URL: baseUrl, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...env });
  const db = await migratedTestDatabase();
  const tool = await createApp({ config, db, logger: options.logger ?? createLogger(config.logLevel), encryptionKey: TEST_ENCRYPTION_KEY });
  server.on('request', tool.app);
  return {
    baseUrl,
    config,
    db,
    tool,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tool.close();
      await db.close();
    },
  };
}
