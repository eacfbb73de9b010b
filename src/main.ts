import { createServer } from 'node:http';
import { hostname } from 'node:os';
import { createApp, LISTEN_BACKLOG } from './app.js';
import { ConfigError, loadConfig, serverStartProblems, toolUrl } from './config.js';
import { acquireLockWaiting, type DataDirLock } from './control/lock.js';
import { startControlServer, type ControlServer } from './control/server.js';
import { openDatabase } from './db/index.js';
import { SchemaWaitTimeout } from './db/migrate.js';
import { prepareSchema } from './db/schema-at-start.js';
import { encryptionKeysOf } from './dev-encryption-key.js';
import { createDrain } from './http/graceful-shutdown.js';
import { serverTimeoutOptions } from './http/server-timeouts.js';
import { createLogger } from './logger.js';
import { buildInfo } from './version.js';
import { EncryptionKeyError } from './db/app-secrets.js';

/** After a forced drain, how long the launch records of answered launches may take to be written before the exit. */
const FORCED_RELEASE_MS = 2000;

async function main(): Promise<void> {
  const startedAt = performance.now();
  let config;
  try {
    config = loadConfig(process.env);
    const problems = serverStartProblems(config);
    if (problems.length > 0) throw new ConfigError(problems);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const build = buildInfo();
  logger.info({ version: build.version, node: build.node }, 'proctor-lti starting');
  // A promise nobody awaited failed: log it and keep serving (every request path handles its own errors;
  // ending the process would drop every launch in flight). An uncaught exception leaves unknown state: exit.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection (still running)'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception: exiting');
    process.exit(1);
  });
  // The embedded database is one process per data directory: hold DATA_DIR's lock while running.
  let lock: DataDirLock | undefined;
  if (!config.database.url && config.database.dataDir !== 'memory') {
    try {
      lock = await acquireLockWaiting(config.database.dataDir, 'tool', {
        waitMs: 30_000,
        onWait: (holder) => console.error(`Waiting for a proctor-lti command (pid ${holder.pid}) to finish with ${config.database.dataDir}…`),
      });
    } catch (error) {
      console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    }
  }
  let db;
  try {
    db = await openDatabase({ ...config.database, onError: (err) => logger.warn({ err: err.message }, 'an idle database connection failed: it is opened again when needed') });
  } catch (error) {
    logger.fatal({ err: error instanceof Error ? error.message : String(error) }, 'database unavailable: not starting');
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  try {
    await prepareSchema(db, config.database, logger);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof SchemaWaitTimeout) logger.fatal({ code: 'schema_not_ready' }, `not starting: ${message}`);
    else logger.fatal({ code: 'migration_failed', err: error }, `not starting: a database migration failed: ${message}`);
    await db.close().catch(() => undefined);
    process.exit(1);
  }

  const [encryptionKey = '', ...olderEncryptionKeys] = encryptionKeysOf(config);
  const tool = await createApp({ config, db, logger, encryptionKey, olderEncryptionKeys }).catch((error: unknown) => {
    if (!(error instanceof EncryptionKeyError)) throw error;
    logger.fatal({ reason: error.message }, 'wrong encryption key: not starting');
    console.error(`Cannot start: ${error.message}`);
    return process.exit(1);
  });
  const server = createServer(serverTimeoutOptions(config.http), (req, res) => {
    // Load balancers stop sending new requests to a replica that is shutting down.
    if (drain.draining && req.url === '/readyz') {
      res.writeHead(503, { 'content-type': 'application/json', connection: 'close' }).end('{"status":"shutting down"}');
      return;
    }
    void tool.app(req, res);
  });
  let control: ControlServer | undefined;
  const drain = createDrain(server, {
    lameDuckMs: config.shutdownDelaySeconds * 1000,
    deadlineMs: config.shutdownGraceSeconds * 1000,
    logger,
    release: async (forced) => {
      if (forced) {
        // Requests whose connections were just cut are abandoned, not finished: their Launch API calls and log
        // lines would be for clients that are gone. Only the launch records of launches already answered are kept.
        await Promise.race([tool.abandonInFlight(), new Promise((resolve) => setTimeout(resolve, FORCED_RELEASE_MS).unref())]);
        lock?.release();
        return;
      }
      await control?.close();
      await tool.close();
      await db.close();
      lock?.release();
    },
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: config.port, backlog: LISTEN_BACKLOG }, resolve);
  });

  await tool.afterListen();

  // CLI commands on the embedded database are carried out here, through a loopback endpoint (see src/control/).
  if (lock) {
    const { createInToolRunner } = await import('./cli/in-tool.js');
    control = await startControlServer(createInToolRunner({ config, db, tool }));
    lock.update({ pid: process.pid, hostname: hostname(), kind: 'tool', startedAt: new Date().toISOString(), control: { port: control.port, token: control.token, publicUrl: toolUrl(config, '') } });
  }

  // Handled before 'started' is logged: whoever reads that line may stop the process at once.
  let signalled = false;
  const stop = async (signal: string) => {
    // SIGTERM comes from an orchestrator or a balancer's host: lame duck first. SIGINT (Ctrl-C) and a second
    // signal go straight to the drain.
    const lameDuck = signal === 'SIGTERM' && !signalled;
    signalled = true;
    try {
      await drain.shutdown(signal, { lameDuck });
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const startupMs = Math.round(performance.now() - startedAt);
  // Where an administrator goes next; the address only, never the password.
  const adminConsole = config.adminPassword ? toolUrl(config, '/admin') : 'off (set ADMIN_PASSWORD)';
  logger.info({ version: build.version, node: build.node, port: config.port, publicUrl: config.publicUrl.href, database: db.kind, sandbox: config.sandbox, adminConsole, startupMs }, 'proctor-lti started');
  if (config.sandbox) {
    logger.warn({ database: db.kind, explicit: config.sandboxExplicit }, 'sandbox mode: the demo LMS launches as anyone and the emulator controls need no sign-in; never expose it to users');
    console.log(`\nproctor-lti is running in sandbox mode (demo LMS + proctoring emulator, ${db.kind} database${config.sandboxExplicit ? ', SANDBOX=1' : ''}).`);
    console.log(`Open ${toolUrl(config, '/sandbox/lms/')} and click "Open the exam as a student".`);
    console.log(config.adminPassword ? `Admin console: ${toolUrl(config, '/admin')} (sign in with ADMIN_PASSWORD).` : 'Admin console: off — set ADMIN_PASSWORD (12 characters or more) to turn it on.');
    console.log(`Emulator faults (slow, failing or unreachable service): ${toolUrl(config, '/sandbox/proctoring/_emulator')}\n`);
  }
}

main().catch((error: unknown) => {
  // Still a JSON line, as every other line of the process: log collectors parse it like the rest.
  createLogger('info').fatal({ code: 'startup_failed', err: error }, `start-up failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
