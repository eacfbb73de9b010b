import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchAllMembers, NamesRolesError, nextLink, type FetchMembersOptions } from '../../../src/lti/names-roles.js';

const BASE = 'https://lms.example.edu/nrps/course-1';

type Page = { status?: number; members?: unknown[]; next?: string; body?: string; link?: string };

/** A fake memberships endpoint: pages by URL, recording each request's Authorization header. */
function fakeFetch(pages: Record<string, Page | ((auth: string) => Page)>) {
  const calls: Array<{ url: string; authorization: string | null; accept: string | null }> = [];
  const impl: typeof fetch = async (input, init) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    calls.push({ url, authorization: headers.get('authorization'), accept: headers.get('accept') });
    const entry = pages[url];
    if (!entry) return new Response('not found', { status: 404 });
    const page = typeof entry === 'function' ? entry(headers.get('authorization') ?? '') : entry;
    const responseHeaders = new Headers({ 'Content-Type': 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json' });
    if (page.link) responseHeaders.set('Link', page.link);
    else if (page.next) responseHeaders.set('Link', `<${page.next}>; rel="next"`);
    return new Response(page.body ?? JSON.stringify({ id: url, context: { id: 'course-1' }, members: page.members ?? [] }), { status: page.status ?? 200, headers: responseHeaders });
  };
  return { impl, calls };
}

const member = (id: string, name: string, status = 'Active') => ({ user_id: id, name, status, roles: ['Learner'] });
const options = (fetchImpl: typeof fetch, extra: Partial<FetchMembersOptions> = {}): FetchMembersOptions => {
  let issued = 0;
  return { url: BASE, authorization: async () => `Bearer token-${++issued}`, userAgent: 'test', fetch: fetchImpl, ...extra };
};

describe('Names and Roles: every page', () => {
  it('follows Link rel="next" over three pages and keeps every member in order', async () => {
    const { impl, calls } = fakeFetch({
      [BASE]: { members: [member('1', 'Ана'), member('2', '李明')], next: `${BASE}?from=2` },
      [`${BASE}?from=2`]: { members: [member('3', 'فاطمة')], link: `<${BASE}?from=3>; rel="next", <${BASE}?diff=1>; rel="differences"` },
      [`${BASE}?from=3`]: { members: [member('4', 'Zoë', 'Inactive')] },
    });
    const members = await fetchAllMembers(options(impl));
    assert.deepEqual(members.map((m) => [m.userId, m.name, m.status]), [
      ['1', 'Ана', 'Active'],
      ['2', '李明', 'Active'],
      ['3', 'فاطمة', 'Active'],
      ['4', 'Zoë', 'Inactive'],
    ]);
    assert.equal(calls.length, 3);
    assert.ok(calls.every((call) => call.authorization === 'Bearer token-1' && call.accept === 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json'));
  });

  it('treats a member without status as Active and skips entries without user_id', async () => {
    const { impl } = fakeFetch({ [BASE]: { members: [{ user_id: '7', given_name: 'Ana', family_name: 'Lima' }, { name: 'no id' }] } });
    const members = await fetchAllMembers(options(impl));
    assert.deepEqual(members, [{ userId: '7', status: 'Active', name: undefined, givenName: 'Ana', familyName: 'Lima', roles: [] }]);
  });

  it('fails as a whole when a later page fails: never a partial list', async () => {
    const { impl } = fakeFetch({ [BASE]: { members: [member('1', 'A')], next: `${BASE}?p=2` }, [`${BASE}?p=2`]: { status: 500, body: 'boom' } });
    await assert.rejects(fetchAllMembers(options(impl)), (error: unknown) => error instanceof NamesRolesError && error.failure === 'upstream' && /HTTP 500 for page 2/.test(error.message));
  });

  it('refuses a page that is not a membership container', async () => {
    const { impl } = fakeFetch({ [BASE]: { body: '<html>login</html>' } });
    await assert.rejects(fetchAllMembers(options(impl)), (error: unknown) => error instanceof NamesRolesError && error.failure === 'upstream');
  });

  it('asks for a new access token once when the LMS refuses the cached one', async () => {
    const { impl, calls } = fakeFetch({ [BASE]: (auth) => (auth === 'Bearer token-2' ? { members: [member('1', 'A')] } : { status: 401, body: '{}' }) });
    const fresh: boolean[] = [];
    let issued = 0;
    const members = await fetchAllMembers({ ...options(impl), authorization: async (isFresh) => (fresh.push(isFresh), `Bearer token-${++issued}`) });
    assert.equal(members.length, 1);
    assert.deepEqual(fresh, [false, true]);
    assert.equal(calls.length, 2);
  });

  it('does not send the token to another site named by a next link', async () => {
    const { impl, calls } = fakeFetch({ [BASE]: { members: [member('1', 'A')], next: 'https://evil.example.com/steal' } });
    await assert.rejects(fetchAllMembers(options(impl)), /another site/);
    assert.equal(calls.length, 1);
  });

  it('stops a next link that loops, and caps the number of pages', async () => {
    const loop = fakeFetch({ [BASE]: { members: [], next: BASE } });
    await assert.rejects(fetchAllMembers(options(loop.impl)), /already read/);
    const many: Record<string, Page> = {};
    for (let i = 0; i < 5; i++) many[i === 0 ? BASE : `${BASE}?p=${i}`] = { members: [member(String(i), 'x')], next: `${BASE}?p=${i + 1}` };
    await assert.rejects(fetchAllMembers(options(fakeFetch(many).impl, { maxPages: 3 })), (error: unknown) => error instanceof NamesRolesError && error.failure === 'too_large');
  });

  it('reports a timeout when the caller aborts a slow page', async () => {
    const slow: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error)));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('deadline')), 50);
    await assert.rejects(fetchAllMembers(options(slow, { signal: controller.signal })), (error: unknown) => error instanceof NamesRolesError && error.failure === 'timeout');
  });
});

describe('Link header parsing', () => {
  it('finds rel="next" among several links, quoted or not, relative or absolute', () => {
    assert.equal(nextLink('<https://a.example/p2>; rel="next"', BASE), 'https://a.example/p2');
    assert.equal(nextLink('<https://a.example/d>; rel="differences", <https://a.example/p3>; rel=next', BASE), 'https://a.example/p3');
    assert.equal(nextLink('</nrps/course-1?page=2>; rel="next last"', BASE), 'https://lms.example.edu/nrps/course-1?page=2');
    assert.equal(nextLink('<https://a.example/p1>; rel="prev"', BASE), undefined);
    assert.equal(nextLink(null, BASE), undefined);
  });
});
