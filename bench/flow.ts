// What the launch benches share: a browser's cookie jar, one launch through the whole browser flow
// (login initiation → the LMS's authorization → id_token POST → the tool's own redirects → the proctoring
// URL) with every step's status checked, and percentiles.
import { type Agent, fetch, type Response } from 'undici';
import { parseAutoSubmitForm, type LoginInitiation } from '../src/sandbox/demo-lms/index.js';

export const sorted = (samples: readonly number[]) => [...samples].sort((a, b) => a - b);
/** The nearest-rank percentile (p in 0–100) of the samples; NaN when there are none. */
export const percentile = (samples: readonly number[], p: number) => {
  const s = sorted(samples);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil((s.length * p) / 100) - 1))]!;
};
export const median = (samples: readonly number[]) => {
  const s = sorted(samples);
  const mid = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
export const ms = (value: number) => `${value.toFixed(0)} ms`;
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** A browser's cookies: name → value, honouring expiry and Secure as a browser over http would. */
export class CookieJar {
  readonly #cookies = new Map<string, { value: string; expiresAt: number }>();

  constructor(private readonly secureContext: boolean) {}

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let expiresAt = Infinity;
      let secure = false;
      for (const attribute of attributes) {
        const [key = '', ...rest] = attribute.split('=');
        const attributeValue = rest.join('=').trim();
        switch (key.trim().toLowerCase()) {
          case 'max-age':
            expiresAt = Date.now() + Number(attributeValue) * 1000;
            break;
          case 'expires':
            if (expiresAt === Infinity) expiresAt = Date.parse(attributeValue);
            break;
          case 'secure':
            secure = true;
            break;
        }
      }
      if (secure && !this.secureContext) continue;
      if (!(expiresAt > Date.now())) this.#cookies.delete(name);
      else this.#cookies.set(name, { value, expiresAt });
    }
  }

  header(): string | undefined {
    const now = Date.now();
    const pairs: string[] = [];
    for (const [name, cookie] of this.#cookies) {
      if (cookie.expiresAt <= now) this.#cookies.delete(name);
      else pairs.push(`${name}=${cookie.value}`);
    }
    return pairs.length > 0 ? pairs.join('; ') : undefined;
  }
}

export class LaunchFailure extends Error {
  constructor(
    readonly step: string,
    readonly status: number,
    detail: string,
  ) {
    super(`${step}: HTTP ${status}: ${detail}`);
  }
}

/** What a page says, for failure reports: its title or first heading and text, without markup. */
export const gist = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);

/**
 * One launch as a browser does it, from the LMS's login initiation form to the redirect to the proctoring
 * session; redirects are followed by hand so each step's status is checked. `toolRedirects` is how many of
 * the tool's own redirects (GETs) may come between the id_token POST and the proctoring URL. `steps`, when
 * given, receives each HTTP exchange's time (ms), in order.
 */
export async function browserLaunch(login: LoginInitiation, jar: CookieJar, dispatcher: Agent, sessionPrefix: string, toolRedirects = 0, steps?: StepTimes): Promise<void> {
  let stepStarted = performance.now();
  const send = async (step: string, url: string, init: { method: 'GET' | 'POST'; form?: Record<string, string> }) => {
    const headers: Record<string, string> = {};
    const cookie = jar.header();
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    let response: Response;
    try {
      response = await fetch(url, { method: init.method, headers, body, redirect: 'manual', dispatcher });
    } catch (error) {
      throw new LaunchFailure(step, 0, (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
    }
    jar.store(response);
    const text = await response.text();
    const now = performance.now();
    steps?.push(now - stepStarted);
    stepStarted = now;
    return { response, text };
  };
  const expect = (step: string, got: { response: Response; text: string }, status: number) => {
    if (got.response.status !== status) throw new LaunchFailure(step, got.response.status, gist(got.text));
  };
  const location = (step: string, got: { response: Response; text: string }, base: string) => {
    const value = got.response.headers.get('location');
    if (!value) throw new LaunchFailure(step, got.response.status, 'no Location header');
    return new URL(value, base).href;
  };

  const toLogin = await send('login initiation', login.url, { method: 'POST', form: login.params });
  expect('login initiation', toLogin, 302);
  const authUrl = location('login initiation', toLogin, login.url);
  const auth = await send('LMS authorization', authUrl, { method: 'GET' });
  expect('LMS authorization', auth, 200);
  const form = parseAutoSubmitForm(auth.text);
  if (!form?.fields.id_token || !form.fields.state) throw new LaunchFailure('LMS authorization', 200, 'no id_token form');
  let step = 'id_token post';
  let got = await send(step, form.action, { method: 'POST', form: { id_token: form.fields.id_token, state: form.fields.state } });
  let base = form.action;
  let noticePressed = false;
  for (let hop = 0; ; hop++) {
    // A student's first launch of an exam in a window shows the privacy notice (the tool's at once, the bare tool's
    // after its redirect): its button posts the session token on.
    const notice = !noticePressed && got.response.status === 200 ? noticeForm(got.text) : undefined;
    if (notice) {
      noticePressed = true;
      step = 'privacy notice';
      base = new URL(notice.action, base).href;
      got = await send(step, base, { method: 'POST', form: notice.fields });
    }
    expect(step, got, 302);
    const target = location(step, got, base);
    if (target.startsWith(sessionPrefix)) return;
    if (hop >= toolRedirects) throw new LaunchFailure(step, 302, `redirected elsewhere: ${target.slice(0, 200)}`);
    step = `tool redirect ${hop + 1}`;
    base = target;
    got = await send(step, target, { method: 'GET' });
  }
}

/** The privacy notice's form (the tool's start page on a student's first launch of an exam in a window), if the page is one. */
function noticeForm(html: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form method="post" action="([^"]+)" class="start-action" data-notice-continue>([\s\S]*?)<\/form>/.exec(html);
  if (!form?.[1]) return undefined;
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[input[1] ?? ''] = input[2] ?? '';
  return { action: form[1], fields };
}

/** The time of each HTTP exchange of one launch, in order (login initiation, LMS authorization, id_token POST, …). */
export type StepTimes = number[];

/**
 * Runs one browser launch, adding its time to `times` or its failure (incident ids left out) to `failures`;
 * true when it succeeded.
 */
export async function timedLaunch(launch: () => Promise<void>, times: number[], failures: Map<string, number>): Promise<boolean> {
  const t0 = performance.now();
  try {
    await launch();
    times.push(performance.now() - t0);
    return true;
  } catch (error) {
    const message = (error as Error).message.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '…').slice(0, 160);
    failures.set(message, (failures.get(message) ?? 0) + 1);
    return false;
  }
}
