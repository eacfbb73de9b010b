import { createHash, randomBytes } from 'node:crypto';
import express from 'express';

/** Emulator of the proctoring service's Launch API for sandbox mode and tests. */
export interface EmulatorAccount {
  consumerKey: string;
  secret: string;
  apiKey?: string;
  region: string;
  active: boolean;
}

export interface ReceivedRequest {
  endpoint: string;
  method: string;
  body: unknown;
  apiKeyValid: boolean;
  at: Date;
}

interface Session {
  kind: string;
  body: Record<string, unknown>;
  expiresAt: number;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function createEmulator(options: { publicBaseUrl: string; accounts: EmulatorAccount[]; region?: string }) {
  const received: ReceivedRequest[] = [];
  const sessions = new Map<string, Session>();
  const keys = new Map(options.accounts.map((a) => [a.apiKey ?? a.consumerKey + createHash('md5').update(a.secret).digest('hex'), a]));
  const router = express.Router();
  router.use(express.json({ limit: '256kb' }));

  const launch = (kind: string, required: string[]) =>
    router.post(`/v2/${kind}`, (req, res) => {
      const account = keys.get(String(req.get('api_key') ?? ''));
      const body = (req.body ?? {}) as Record<string, unknown>;
      received.push({ endpoint: `/v2/${kind}`, method: 'POST', body, apiKeyValid: Boolean(account), at: new Date() });
      if (!account) return void res.status(401).json({ code: 2655, message: 'Invalid api_key' });
      if (options.region && account.region !== options.region) return void res.status(401).json({ code: 2155, message: 'Incorrect region' });
      if (!account.active) return void res.status(401).json({ code: 2154, message: 'Account not active' });
      const missing = required.filter((field) => body[field] === undefined);
      if (missing.length > 0) return void res.status(400).json({ message: 'Bad request', violations: missing.map((path) => ({ path, rule: 'required' })) });
      const token = randomBytes(16).toString('hex');
      const expire = typeof body.expire === 'number' ? body.expire : kind === 'candidate/launch' ? 18000 : 3600;
      sessions.set(token, { kind, body, expiresAt: Date.now() + expire * 1000 });
      const tag = typeof body.exam_tag === 'string' ? `#${body.exam_tag}` : '';
      res.json(`${options.publicBaseUrl}/session/${token}${tag}`);
    });
  launch('candidate/launch', ['launch_url', 'exam_start', 'exam_take', 'exam_end', 'user_id', 'exam_settings']);
  launch('reviewer/launch', ['user_id', 'exam_settings']);

  router.get('/session/:token', (req, res) => {
    const session = sessions.get(req.params.token);
    if (!session || session.expiresAt < Date.now()) return void res.status(410).send('<h1>This link has expired</h1>');
    const redirects = (session.body.redirect_settings ?? {}) as Record<string, string>;
    const submit = redirects.graceful_submission_url ?? (session.body.redirect_url as string | undefined);
    res.send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Proctoring emulator</title></head><body>
<h1>Proctoring emulator: ${escapeHtml(session.kind)} session</h1>
<p>This page stands in for the proctoring service. The tool sent:</p>
<pre id="request">${escapeHtml(JSON.stringify(session.body, null, 2))}</pre>
${submit ? `<p><a id="submit-exam" href="${escapeHtml(submit)}">Submit exam</a>` : ''}
${redirects.ungraceful_submission_url ? ` <a id="leave-exam" href="${escapeHtml(redirects.ungraceful_submission_url)}">Leave exam</a></p>` : ''}
</body></html>`);
  });
  router.get('/_emulator/received', (_req, res) => void res.json(received));

  return { router, received, sessions };
}
