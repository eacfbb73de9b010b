import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { openDatabase } from '../../../src/db/index.js';
import { parseAutoSubmitForm } from '../../../src/sandbox/demo-lms/index.js';
import { tempDataDir } from '../../helpers/cli.js';
import { entryArgs } from '../../helpers/entry-args.js';
import { pathOf } from '../../helpers/urls.js';
import { freePort } from '../../helpers/ports.js';
import { httpCandidateLaunch } from '../../helpers/http-launch.js';
import { waitFor } from '../../helpers/wait.js';

describe('SIGTERM in the middle of a burst', { timeout: 180_000 }, () => {
  let child: ChildProcess;
  let baseUrl: string;
  let data: ReturnType<typeof tempDataDir>;
  let dataDir: string;
  let output = '';
  let exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  before(async () => {
    data = tempDataDir('drain');
    dataDir = data.dir;
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, entryArgs('src/main.ts'), {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', PORT: String(port), PUBLIC_URL: baseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'info', SHUTDOWN_GRACE_SECONDS: '20', SHUTDOWN_DELAY_SECONDS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const started = new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('proctor-lti started')) resolve();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      void exit.then(() => reject(new Error(`the server exited during start-up:\n${output}`)));
    });
    await started;
  });
  after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    const ended = await exit;
    if (process.env.SHOW_SERVER_OUTPUT) console.log(JSON.stringify(ended), output);
    data?.remove();
  });

  it('finishes every launch in flight, writes their launch records, refuses new connections, closes the pool and exits 0', async () => {
    // The student has seen the exam's privacy notice (its button pressed once): each launch of the burst goes straight on.
    const seen = await httpCandidateLaunch(baseUrl, { user: 'student' });
    assert.deepEqual(seen.steps.map((step) => step.step).slice(-2), ['tool launch (id_token)', 'tool privacy notice (continue)']);
    // Each Launch API call takes 1.5 s: the launches are in flight when the signal comes.
    const fault = await supertest(baseUrl).post('/sandbox/proctoring/_emulator/faults').send({ kind: 'latency', ms: 1500 });
    assert.equal(fault.status, 200);
    let waitingOnLaunchApi = 0;
    const launchOnce = async () => {
      const agent = supertest.agent(baseUrl);
      const lms = await agent.get('/sandbox/lms/launch?user=student&presentation=window');
      assert.equal(lms.status, 302);
      const toAuth = await agent.get(pathOf(lms.headers.location as string));
      assert.equal(toAuth.status, 302, toAuth.text.slice(0, 200));
      const auth = await agent.get(pathOf(toAuth.headers.location as string));
      const form = parseAutoSubmitForm(auth.text);
      assert.ok(form?.fields.id_token);
      // The id_token POST itself is answered with the proctoring URL, once the Launch API answers.
      waitingOnLaunchApi += 1;
      const final = await agent.post(pathOf(form.action)).type('form').send({ id_token: form.fields.id_token, state: form.fields.state ?? '' }).timeout(30_000);
      return { status: final.status, location: String(final.headers.location ?? '') };
    };
    // The signal comes once the emulator holds every launch's Launch API call (it records them before the latency).
    const received = async () =>
      ((await supertest(baseUrl).get('/sandbox/proctoring/_emulator/received')).body as Array<{ endpoint?: string }>).filter((call) => call.endpoint === '/v2/candidate/launch').length;
    const receivedBefore = await received();
    const burst = Array.from({ length: 12 }, () => launchOnce());
    await waitFor('every launch waiting on its Launch API call', async () => waitingOnLaunchApi === 12 && (await received()) - receivedBefore === 12, { timeoutMs: 60_000 });
    child.kill('SIGTERM');
    const signalledAt = Date.now();
    // The listener closes as the drain starts, while the launches in flight are still held by the Launch API.
    const refusesConnections = () =>
      supertest(baseUrl).get('/healthz').timeout(2000).then(
        () => false,
        (error: unknown) => /ECONNREFUSED/.test(String((error as { code?: string }).code ?? error)),
      );
    await waitFor('no new connections once shutting down', refusesConnections, { timeoutMs: 1000 });

    const results = await Promise.all(burst);
    for (const result of results) {
      assert.equal(result.status, 302);
      assert.match(result.location, /\/sandbox\/proctoring\/session\//, 'the launch in flight ended on the proctoring page');
    }
    const { code } = await exit;
    assert.equal(code, 0, output.slice(-2000));
    assert.ok(Date.now() - signalledAt < 20_000, 'exited well before its grace period ended');
    assert.match(output, /draining requests in flight/);
    assert.match(output, /"forcedConnections":0[^\n]*"msg":"shut down"/);
    // A launch answers before its launch-log row is written; the process waits for those rows before it exits.
    const db = await openDatabase({ dataDir });
    try {
      const recorded = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM launch_log WHERE endpoint = 'candidate' AND outcome = 'redirected'");
      assert.equal(recorded.rows[0]?.count, 1 + 12, 'every launch answered during the drain has its record (and the first, through the notice)');
    } finally {
      await db.close();
    }
  });
});
