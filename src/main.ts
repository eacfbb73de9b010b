import { createServer } from 'node:http';
import { createApp, LISTEN_BACKLOG } from './app.js';
import { ConfigError, loadConfig, toolUrl } from './config.js';
import { openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';
import { developmentEncryptionKey } from './dev-encryption-key.js';
import { createLogger } from './logger.js';

async function main(): Promise<void> {
  const startedAt = performance.now();
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let db;
  try {
    db = await openDatabase(config.database);
  } catch (error) {
    logger.fatal({ err: error instanceof Error ? error.message : String(error) }, 'database unavailable: not starting');
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const applied = await migrate(db);
  if (applied.length > 0) logger.info({ applied }, 'database migrations applied');

  const encryptionKey = config.encryptionKey ?? developmentEncryptionKey(config.database.dataDir);
  const tool = await createApp({ config, db, logger, encryptionKey });
  const server = createServer(tool.app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: config.port, backlog: LISTEN_BACKLOG }, resolve);
  });

  const startupMs = Math.round(performance.now() - startedAt);
  logger.info({ port: config.port, publicUrl: config.publicUrl.href, database: db.kind, sandbox: config.sandbox, startupMs }, 'proctor-lti started');
  if (config.sandbox) {
    console.log(`\nproctor-lti is running in sandbox mode (demo LMS + proctoring emulator, ${db.kind} database).`);
    console.log(`Open ${toolUrl(config, '/sandbox/lms/')} and click "Open the exam as a student".\n`);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close();
    server.closeIdleConnections();
    await tool.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('Start-up failed:', error);
  process.exit(1);
});
