// The production image's steps without Docker (deploy/Dockerfile): a clean production install of the build
// output in an empty folder (package.json, package-lock.json, dist/, views/, public/, locales/; `npm ci --omit=dev --omit=optional`,
// so no tsx and no dev dependency), then the compiled tool boots from there, serves a candidate launch end
// to end (demo LMS → OIDC → launch → proctoring emulator), stops on SIGTERM with exit code 0 within its
// deadline, and the administrator's CLI runs from the same install.
// Usage (after `npm run build`): npx tsx scripts/production-install-check.ts
// With DATABASE_URL set, the tool and the CLI use a throwaway schema of that database; else embedded PGlite.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpCandidateLaunch } from '../test/helpers/http-launch.js';

const STOP_DEADLINE_MS = 30_000;
const root = process.cwd();
if (!existsSync(join(root, 'dist', 'src', 'main.js'))) throw new Error('dist/src/main.js is missing: run `npm run build` first');

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

function step(message: string): void {
  console.log(`== production install: ${message}`);
}

const folder = mkdtempSync(join(tmpdir(), 'proctor-lti-production-'));
const app = join(folder, 'app');
let tool: ReturnType<typeof spawn> | undefined;
try {
  step(`copying the build output to ${app}`);
  for (const path of ['package.json', 'package-lock.json', 'dist', 'views', 'public', 'locales']) cpSync(join(root, path), join(app, path), { recursive: true });
  const started = performance.now();
  const install = spawnSync('npm', ['ci', '--omit=dev', '--omit=optional', '--no-audit', '--no-fund'], { cwd: app, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (install.status !== 0) throw new Error(`npm ci --omit=dev --omit=optional failed (exit ${install.status})`);
  step(`npm ci --omit=dev --omit=optional took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const devOnly of ['tsx', 'typescript', 'eslint']) {
    if (existsSync(join(app, 'node_modules', devOnly))) throw new Error(`${devOnly} was installed: the production install must hold no dev dependency`);
  }

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const schema = `prodcheck_${process.pid}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: folder,
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    SANDBOX: '1',
    DATA_DIR: join(folder, 'data'),
    LOG_LEVEL: 'info',
    ENCRYPTION_KEY: 'production-install-check-0123456789abcdef',
    // A one-second lame duck: the stop takes the image's path; how long it lasts is a setting.
    SHUTDOWN_DELAY_SECONDS: '1',
  };
  if (process.env.DATABASE_URL) Object.assign(env, { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema });

  step(`starting node dist/src/main.js on ${baseUrl} (${env.DATABASE_URL ? `PostgreSQL schema ${schema}` : 'embedded PGlite'}, sandbox mode)`);
  const running = spawn(process.execPath, ['dist/src/main.js'], { cwd: app, env, stdio: ['ignore', 'inherit', 'inherit'] });
  tool = running;
  const exited = new Promise<number | null>((resolve) => running.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (running.exitCode !== null) throw new Error(`the tool exited during start-up (exit ${running.exitCode})`);
    const ready = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error('the tool did not become ready within 180 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  const { proctoringUrl, steps } = await httpCandidateLaunch(baseUrl);
  if (!proctoringUrl.startsWith(`${baseUrl}/sandbox/proctoring/`)) throw new Error(`the launch ended elsewhere: ${proctoringUrl}`);
  step(`candidate launch served end to end: ${steps.map((s) => `${s.step} ${s.status}`).join(' → ')} → proctoring session`);

  const stopStarted = performance.now();
  running.kill('SIGTERM');
  const timer = setTimeout(() => running.kill('SIGKILL'), STOP_DEADLINE_MS);
  const code = await exited;
  clearTimeout(timer);
  tool = undefined;
  if (code !== 0) throw new Error(`on SIGTERM the tool exited with ${code} (expected 0 within ${STOP_DEADLINE_MS / 1000} s)`);
  step(`SIGTERM: exited 0 after ${Math.round(performance.now() - stopStarted)} ms`);

  // The CLI as the image runs it: its bin entry when the package declares one, else the compiled src/cli/index.js.
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : (manifest.bin?.['proctor-lti'] ?? 'dist/src/cli/index.js');
  const cli = spawnSync(process.execPath, [bin, 'platform', 'list'], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
  if (cli.status !== 0) throw new Error(`proctor-lti platform list failed (exit ${cli.status}): ${cli.stderr}`);
  if (!cli.stdout.includes(`${baseUrl}/sandbox/lms`)) throw new Error(`proctor-lti platform list does not list the demo LMS: ${cli.stdout}`);
  step(`CLI (${bin}) ran: platform list shows the demo LMS`);
  const version = spawnSync(process.execPath, [bin, '--version'], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
  const manifestVersion = (JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { version: string }).version;
  if (version.status !== 0 || version.stdout.trim() !== manifestVersion) throw new Error(`proctor-lti --version printed ${JSON.stringify(version.stdout)} (exit ${version.status}), not ${manifestVersion}`);
  step(`CLI --version: ${manifestVersion}`);

  if (env.DATABASE_URL) {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
  step('passed');
} finally {
  tool?.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
}
