// A candidate launch as a browser runs it, over plain HTTP against a running server (a separate process, or
// a load balancer in front of several): the demo LMS's launch link → the tool's OIDC login → the LMS's
// authorization page (an auto-submitting id_token form) → the tool's launch, answered with a 302 to the
// proctoring service (or, on a student's first launch of the exam, the privacy notice, whose button is pressed). Redirects are followed by hand so each step's status, and the
// `X-Served-By` header a load balancer adds, are kept.

/** One host's cookies, as a browser over http keeps them (Secure ones dropped, expiry honoured). */
export class CookieJar {
  readonly #cookies = new Map<string, { value: string; expiresAt: number }>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      let expiresAt = Infinity;
      let secure = false;
      for (const attribute of attributes) {
        const [key = '', ...rest] = attribute.split('=');
        const value = rest.join('=').trim();
        const name = key.trim().toLowerCase();
        if (name === 'max-age') expiresAt = Date.now() + Number(value) * 1000;
        else if (name === 'expires' && expiresAt === Infinity) expiresAt = Date.parse(value);
        else if (name === 'secure') secure = true;
      }
      if (secure) continue;
      const name = pair.slice(0, eq).trim();
      if (!(expiresAt > Date.now())) this.#cookies.delete(name);
      else this.#cookies.set(name, { value: pair.slice(eq + 1).trim(), expiresAt });
    }
  }

  header(): string | undefined {
    const pairs = [...this.#cookies].filter(([, c]) => c.expiresAt > Date.now()).map(([name, c]) => `${name}=${c.value}`);
    return pairs.length > 0 ? pairs.join('; ') : undefined;
  }
}

export interface LaunchStep {
  step: string;
  method: string;
  path: string;
  status: number;
  /** The load balancer's name for the server that answered, when it adds one. */
  servedBy?: string;
}

export class HttpLaunchError extends Error {
  constructor(
    message: string,
    readonly steps: LaunchStep[],
    /** `answer`: the unexpected answer in full; `timedOut`: a step ran past its deadline (no answer at all). */
    readonly details: { answer?: { status: number; text: string; headers: Headers }; timedOut?: boolean } = {},
  ) {
    super(`${message} (steps: ${steps.map((s) => `${s.step} ${s.status}${s.servedBy ? `@${s.servedBy}` : ''}`).join(', ')})`);
  }
}

const decode = (value: string) =>
  value.replace(/&(amp|lt|gt|quot|#39|#x27|#x2F);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", '#x2F': '/' })[name] ?? '');

/** The action and hidden fields of the first form of an auto-submitting page. */
export function formOf(html: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input[^>]*name="([^"]*)"[^>]*value="([^"]*)"/gi)) fields[decode(input[1] ?? '')] = decode(input[2] ?? '');
  return { action: decode(form[1] ?? ''), fields };
}

/**
 * Runs one student's candidate launch and returns the proctoring URL the tool sent the browser to, with every
 * step. It starts at `baseUrl`'s demo LMS launch link (`/sandbox/lms/launch`), or with `login`, a login
 * initiation the LMS would post to the tool. Throws `HttpLaunchError` at the first unexpected answer.
 */
export async function httpCandidateLaunch(
  baseUrl: string,
  options: {
    user?: string;
    flavor?: string;
    login?: { url: string; params: Record<string, string> };
    timeoutMs?: number;
    /** Bound on each request of the launch (a step that takes longer fails with `timedOut`). */
    stepTimeoutMs?: number;
  } = {},
): Promise<{ proctoringUrl: string; steps: LaunchStep[] }> {
  const jar = new CookieJar();
  const steps: LaunchStep[] = [];
  const whole = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const send = async (step: string, url: string, form?: Record<string, string>) => {
    const headers: Record<string, string> = {};
    const cookie = jar.header();
    if (cookie) headers.cookie = cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const signal = options.stepTimeoutMs ? AbortSignal.any([whole, AbortSignal.timeout(options.stepTimeoutMs)]) : whole;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { method: form ? 'POST' : 'GET', headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual', signal });
      text = await response.text();
    } catch (error) {
      const timedOut = signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError';
      throw new HttpLaunchError(`${step}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`, steps, { timedOut });
    }
    jar.store(response);
    const { pathname } = new URL(url);
    steps.push({ step, method: form ? 'POST' : 'GET', path: pathname, status: response.status, servedBy: response.headers.get('x-served-by') ?? undefined });
    return { response, text, url };
  };
  const redirected = (got: Awaited<ReturnType<typeof send>>) => {
    const location = got.response.headers.get('location');
    if (got.response.status !== 302 || !location) {
      const answer = { status: got.response.status, text: got.text, headers: got.response.headers };
      throw new HttpLaunchError(`${steps.at(-1)?.step}: expected a redirect, got HTTP ${got.response.status}: ${got.text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 300)}`, steps, { answer });
    }
    return new URL(location, got.url).href;
  };

  const params = new URLSearchParams({ user: options.user ?? 'student', flavor: options.flavor ?? 'moodle', presentation: 'window' });
  const toAuth = options.login
    ? redirected(await send('tool login', options.login.url, options.login.params))
    : redirected(await send('tool login', redirected(await send('LMS launch link', `${baseUrl}/sandbox/lms/launch?${params}`))));
  const auth = await send('LMS authorization', toAuth);
  const idTokenForm = formOf(auth.text);
  if (auth.response.status !== 200 || !idTokenForm?.fields.id_token) throw new HttpLaunchError(`LMS authorization: no id_token form (HTTP ${auth.response.status})`, steps);
  // The tool answers the id_token POST itself with the proctoring URL (no redirect to a session URL), or, on the
  // student's first launch of the exam, with the privacy notice, whose button posts the session token on.
  const launched = await send('tool launch (id_token)', new URL(idTokenForm.action, toAuth).href, idTokenForm.fields);
  const notice = launched.response.status === 200 ? formOf(/<form[^>]*data-notice-continue[^>]*>[\s\S]*?<\/form>/.exec(launched.text)?.[0] ?? '') : undefined;
  const proctoringUrl = redirected(notice ? await send('tool privacy notice (continue)', new URL(notice.action, launched.url).href, notice.fields) : launched);
  return { proctoringUrl, steps };
}
