// The comparison bench's upstream side, in its own process: a Canvas-like demo LMS per tool under test
// (/lms/tool and /lms/bare, each with its own keys and registration) and the Launch API emulator
// (/proctoring), optionally answering each Launch API call after a delay. /bench/* lets the bench prepare
// login initiations outside the timed rounds. Configured by environment variables set by bench/compare.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { createDemoLms, type DemoLms } from '../../src/sandbox/demo-lms/index.js';
import { createEmulator } from '../../src/sandbox/emulator/index.js';
import { SANDBOX_ACCOUNT } from '../../src/sandbox/index.js';

export interface ToolUrls {
  loginUrl: string;
  launchUrl: string;
  jwksUrl: string;
}

export interface UpstreamInfo {
  registration: DemoLms['registration'];
  course: { id: string; exam: { id: string; title: string } };
  learners: string[];
}

export interface CandidateSummary {
  /** Every request the emulator has received so far (the next `from`). */
  total: number;
  requests: number;
  users: number;
  attempts: number;
  statuses: Record<string, number>;
}

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const port = Number(required('UPSTREAM_PORT'));
const classSize = Number(process.env.CLASS_SIZE ?? '1200');
const delayMs = Number(process.env.PROCTORING_DELAY_MS ?? '0');
const tools = JSON.parse(required('TOOLS')) as Record<string, ToolUrls>;
const base = `http://127.0.0.1:${port}`;

const emulator = createEmulator({
  publicBaseUrl: `${base}/proctoring`,
  accounts: [{ consumerKey: SANDBOX_ACCOUNT.consumerKey, secret: SANDBOX_ACCOUNT.secret, region: SANDBOX_ACCOUNT.region, active: true }],
  region: SANDBOX_ACCOUNT.region,
});
const lmss = new Map<string, DemoLms>();
for (const [name, urls] of Object.entries(tools)) {
  lmss.set(name, await createDemoLms({ issuer: `${base}/lms/${name}`, tool: urls, flavor: 'canvas', classSize }));
}

const app = express();
const lmsOf = (name: unknown): DemoLms => {
  const lms = lmss.get(String(name));
  if (!lms) throw new Error(`no LMS for ${String(name)}`);
  return lms;
};
app.get('/bench/info', (req, res) => {
  const lms = lmsOf(req.query.lms);
  const named = new Set(lms.users.map((user) => user.id));
  const info: UpstreamInfo = {
    registration: lms.registration,
    course: { id: lms.course.id, exam: { id: lms.course.exam.id, title: lms.course.exam.title } },
    learners: lms.members().filter((person) => !named.has(person.id) && person.status === 'Active' && person.role === 'learner').map((person) => person.id),
  };
  res.json(info);
});
app.post('/bench/initiate', express.json(), async (req, res, next) => {
  try {
    const { lms, members } = req.body as { lms: string; members: string[] };
    const demo = lmsOf(lms);
    res.json(await Promise.all(members.map((member) => demo.initiateLogin({ member, presentation: 'window' }))));
  } catch (error) {
    next(error);
  }
});
// The candidate requests the emulator received from index `from` on: how many, for how many students and attempts.
app.get('/bench/candidates', (req, res) => {
  const calls = emulator.received.slice(Number(req.query.from ?? 0)).filter((call) => call.endpoint === '/v2/candidate/launch');
  const bodies = calls.map((call) => (call.body ?? {}) as { user_id?: unknown; attempt_id?: unknown });
  const statuses: Record<string, number> = {};
  for (const call of calls) statuses[String(call.status)] = (statuses[String(call.status)] ?? 0) + 1;
  const summary: CandidateSummary = {
    total: emulator.received.length,
    requests: calls.length,
    users: new Set(bodies.map((body) => String(body.user_id))).size,
    attempts: new Set(bodies.map((body) => String(body.attempt_id))).size,
    statuses,
  };
  res.json(summary);
});
if (delayMs > 0) {
  app.use('/proctoring/v2', async (_req, _res, next) => {
    await sleep(delayMs);
    next();
  });
}
app.use('/proctoring', emulator.router);
for (const [name, lms] of lmss) app.use(`/lms/${name}`, lms.router);

const server = createServer(app);
server.keepAliveTimeout = 65_000;
await new Promise<void>((resolve) => server.listen({ port, host: '127.0.0.1', backlog: 4096 }, resolve));
process.stdout.write(`ready ${(server.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
