// A bare LTI 1.3 proctoring tool, as an LMS integrator would write it in an afternoon with the official
// ltijs and its Sequelize plugin on PostgreSQL: learners get a candidate launch from the Launch API and a
// 302 to it, teachers a reviewer launch, everyone else a 403. With BARE_NOTICE=1, as the product does, a learner's
// first launch of an exam shows a privacy notice whose button posts the session token (ltik) on to the candidate
// launch; who has seen it is kept in memory. Nothing else: no nonce binding, no attempt, no launch log, no course
// record. It is the baseline of `npm run bench:compare` (bench/compare.ts), which starts it with these environment
// variables:
//   PORT, DATABASE_URL (its own database), LMS_ISSUER, LMS_CLIENT_ID, LMS_AUTH_URL, LMS_TOKEN_URL,
//   LMS_JWKS_URL, PROCTORING_BASE_URL, PROCTORING_CONSUMER_KEY, PROCTORING_SECRET, BARE_NOTICE
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const lti = require('ltijs').Provider;
const Database = require('ltijs-sequelize');

const env = process.env;
const database = new URL(env.DATABASE_URL);
const db = new Database(database.pathname.slice(1), decodeURIComponent(database.username), decodeURIComponent(database.password), {
  host: database.hostname,
  port: Number(database.port || 5432),
  dialect: 'postgres',
  logging: false,
});

lti.setup('bare-ltijs-bench-key-0123456789', { plugin: db }, {
  appRoute: '/',
  loginRoute: '/login',
  cookies: { secure: false, sameSite: '' },
  devMode: false,
});

const apiKey = env.PROCTORING_CONSUMER_KEY + createHash('md5').update(env.PROCTORING_SECRET).digest('hex');
const OFF = {
  record_video: false, record_audio: false, record_screen: false, record_web_traffic: false, record_desk: 0,
  live_proctor: false, verify_video: false, verify_audio: false, verify_desktop: false, verify_id: 0,
  verify_signature: false, full_screen: 0, tabs: 0, close_tabs: false, one_screen: false,
  disable_clipboard: false, disable_printing: false, block_downloads: false, disable_right_click: false,
  disable_extensions: false, clear_cache: false, calculator: 0, whiteboard: false, mobile: false,
  advanced_program_detection: false, advanced_hardware_detection: false, advanced_vm_detection: false,
  allowed_macos_apps: [], allowed_windows_apps: [], strict_apps_validation: 0,
};
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const safeId = (text) => String(text).replace(/[^a-zA-Z0-9-]/g, '-').slice(0, 100);

async function launchUrl(kind, body) {
  const response = await fetch(`${env.PROCTORING_BASE_URL}/v2/${kind}/launch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', api_key: apiKey },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Launch API ${response.status}: ${text.slice(0, 200)}`);
  let value = text;
  try {
    value = JSON.parse(text);
  } catch {
    // a bare URL
  }
  if (Array.isArray(value)) value = value[0];
  if (value && typeof value === 'object') value = value.url ?? value.launch_url;
  return String(value);
}

const NOTICE = env.BARE_NOTICE === '1';
const noticesSeen = new Set();
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const noticePage = (ltik) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Before you start</title></head><body>
<h1>Before you start</h1><p>This exam is proctored: your camera, microphone and screen are recorded while you take it.</p>
<form method="post" action="/notice" class="start-action" data-notice-continue><input type="hidden" name="ltik" value="${escapeHtml(ltik)}"><button>Start the exam</button></form>
</body></html>`;

const resourceIdOf = (token) => token.platformContext.resource?.id ?? 'exam';
const isLearner = (roles) => roles.some((role) => role.endsWith('#Learner'));

async function candidateRedirect(token, res) {
  const resourceId = resourceIdOf(token);
  const quiz = `${token.iss}/quiz/${encodeURIComponent(resourceId)}`;
  return res.redirect(await launchUrl('candidate', {
    user_id: safeId(token.user),
    launch_url: quiz,
    exam_start: `^${escapeRegex(quiz)}([?#].*)?$`,
    exam_take: `^${escapeRegex(quiz)}/attempt.*`,
    exam_end: `^${escapeRegex(quiz)}/review.*`,
    exam_settings: OFF,
    exam_tag: safeId(resourceId),
  }));
}
const noticeKey = (token) => JSON.stringify([token.iss, token.user, resourceIdOf(token)]);

lti.onConnect(async (token, _req, res) => {
  const roles = token.platformContext.roles ?? [];
  const resourceId = resourceIdOf(token);
  try {
    if (isLearner(roles)) {
      if (NOTICE && !noticesSeen.has(noticeKey(token))) return res.send(noticePage(res.locals.ltik));
      return await candidateRedirect(token, res);
    }
    if (roles.some((role) => role.endsWith('#Instructor') || role.endsWith('#ContentDeveloper'))) {
      return res.redirect(await launchUrl('reviewer', { user_id: safeId(token.user), exam_settings: OFF, exam_tag: safeId(resourceId) }));
    }
    return res.status(403).send('Your role cannot use this tool.');
  } catch (error) {
    console.error(error);
    return res.status(502).send('The proctoring service could not be reached.');
  }
});

// The notice's button: ltijs checks the ltik of the form body before this route runs.
lti.app.post('/notice', async (_req, res) => {
  const token = res.locals.token;
  try {
    if (!isLearner(token.platformContext.roles ?? [])) return res.status(403).send('Your role cannot use this tool.');
    noticesSeen.add(noticeKey(token));
    return await candidateRedirect(token, res);
  } catch (error) {
    console.error(error);
    return res.status(502).send('The proctoring service could not be reached.');
  }
});

await lti.deploy({ port: Number(env.PORT), silent: true });
await lti.registerPlatform({
  url: env.LMS_ISSUER,
  name: 'Bench LMS',
  clientId: env.LMS_CLIENT_ID,
  authenticationEndpoint: env.LMS_AUTH_URL,
  accesstokenEndpoint: env.LMS_TOKEN_URL,
  authConfig: { method: 'JWK_SET', key: env.LMS_JWKS_URL },
});
process.stdout.write(`ready ${env.PORT}\n`);
process.on('SIGTERM', async () => {
  await lti.close();
  process.exit(0);
});
