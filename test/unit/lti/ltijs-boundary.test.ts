import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { Response } from 'express';
import { onStateCookie, replaceLtijsErrorAnswers, tolerateStateDeleteFailures } from '../../../src/lti/ltijs-boundary.js';

const require = createRequire(import.meta.url);

/** ltijs is contained in src/lti/: moving to another ltijs release must touch nothing else (docs/architecture.md). */
const IMPORTS_LTIJS = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]ltijs(?:\/[^'"]*)?['"]/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(?:ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

describe('the ltijs boundary', () => {
  it('the pattern finds the ways ltijs can be imported', () => {
    for (const line of ["import ltijs from 'ltijs';", "import Auth from 'ltijs/dist/Utils/Auth.js';", "const l = await import('ltijs');", 'require("ltijs")', "import type { LtijsPlatform } from 'ltijs';"]) {
      assert.match(line, IMPORTS_LTIJS);
    }
    assert.doesNotMatch("import { x } from './ltijs-store.js';", IMPORTS_LTIJS);
  });

  it('nothing outside src/lti/ imports ltijs', () => {
    const offenders = sources('src')
      .filter((path) => !relative('src', path).startsWith(`lti${sep}`))
      .filter((path) => IMPORTS_LTIJS.test(readFileSync(path, 'utf8')));
    assert.deepEqual(offenders, []);
    assert.ok(sources(join('src', 'lti')).some((path) => IMPORTS_LTIJS.test(readFileSync(path, 'utf8'))), 'the adapter itself does import ltijs');
  });

  it("only src/lti/ltijs-boundary.ts reaches into ltijs's private modules (ltijs/dist/…)", () => {
    const privateImport = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]ltijs\/dist\//;
    const users = sources('src').filter((path) => privateImport.test(readFileSync(path, 'utf8')));
    assert.deepEqual(users, [join('src', 'lti', 'ltijs-boundary.ts')]);
  });
});

/**
 * What the adapter relies on inside ltijs beyond its public Provider API (docs/architecture.md, "The ltijs
 * boundary"). Each check names the use; when an ltijs release changes one, this fails before anything
 * misbehaves at run time.
 */
describe('ltijs private surface the adapter relies on', () => {
  const ltijsRequire = createRequire(require.resolve('ltijs'));
  const dist = (file: string) => readFileSync(ltijsRequire.resolve(`./dist/${file}`), 'utf8');

  it('is ltijs 5.9.9, the release the patches were written for', () => {
    assert.equal((ltijsRequire('./package.json') as { version: string }).version, '5.9.9');
  });

  it('Auth.validateToken(token, devMode, validationParameters, …), replaced by the token validator, is what the launch route calls', async () => {
    const { default: Auth } = await import('ltijs/dist/Utils/Auth.js');
    assert.equal(typeof Auth.validateToken, 'function');
    assert.match(dist('Provider/Provider.js'), /const Auth = require\('\.\.\/Utils\/Auth'\)/);
    assert.match(dist('Provider/Provider.js'), /await Auth\.validateToken\(idtoken, .+?, validationParameters,/);
    // The cookie's issuer reaches the replacement as validationParameters.iss.
    assert.match(dist('Provider/Provider.js'), /validationParameters = \{[^}]*iss:/s);
  });

  it('Request.ltiAdvantageLogin(request, platform, state), wrapped to bind a secure nonce, is what the login route calls', async () => {
    const { default: LtijsRequest } = await import('ltijs/dist/Utils/Request.js');
    assert.equal(typeof LtijsRequest.ltiAdvantageLogin, 'function');
    assert.equal(LtijsRequest.ltiAdvantageLogin.length, 3);
    assert.match(dist('Provider/Provider.js'), /const Request = require\('\.\.\/Utils\/Request'\)/);
    assert.match(dist('Provider/Provider.js'), /await Request\.ltiAdvantageLogin\(params, platform, state\)/);
    assert.match(dist('Utils/Request.js'), /nonce:/, 'ltijs still draws its own nonce, which the wrapper replaces');
    // The wrapper finds its login's context by the state of the cookie set just before (onStateCookie).
    assert.match(dist('Provider/Provider.js'), /res\.cookie\('state' \+ state, iss, cookieOptions\);\s*(?:\/\/[^\n]*\s*)*const query = await Request\.ltiAdvantageLogin\(params, platform, state\)/);
  });

  it('the launch route gives the token validation the id_token of the body, by which the validator finds its request', () => {
    assert.match(dist('Provider/Provider.js'), /const idtoken = req\.body\.id_token;[\s\S]{0,600}await Auth\.validateToken\(idtoken,/);
  });

  it("ltijs's app is express 4, whose router stack the rejection guard wraps", () => {
    const version = (ltijsRequire('express/package.json') as { version: string }).version;
    assert.match(version, /^4\./);
  });

  it('the session check leaves res.locals.token, res.locals.ltik and, when refusing, res.locals.err with details.message', () => {
    const provider = dist('Provider/Provider.js');
    assert.match(provider, /res\.locals\.token = /);
    assert.match(provider, /res\.locals\.ltik = /);
    assert.match(provider, /res\.locals\.err = \{\s*status: \d+,\s*error: '[^']+',\s*details: \{/);
  });

  it("ltijs's own failure answers are res.status(5xx).send({ status, error, details: { message } }), which the res.send patch recognises", () => {
    const files = ['Provider/Provider.js', 'Utils/Server.js', 'Utils/Auth.js', 'Utils/Request.js'];
    const sources = files.map(dist).join('\n');
    const serverErrors = [...sources.matchAll(/res\.(?:status\(5\d\d\)\.\w+|sendStatus\(5\d\d)\(/g)].map((m) => m[0]);
    assert.ok(serverErrors.length >= 3, 'ltijs still answers its internal failures itself');
    assert.deepEqual([...new Set(serverErrors)], ['res.status(500).send('], 'every 5xx answer goes through res.send');
    const answers = [...sources.matchAll(/res\.status\(500\)\.send\(\{\s*status: 500,\s*error: '[^']+',\s*details: \{\s*message: err\.message\s*\}/g)];
    assert.equal(answers.length, serverErrors.length, 'each carries { status, error, details: { message } }');
    assert.doesNotMatch(sources, /res\.json\(|\.status\(5\d\d\)\.json\(/, 'ltijs does not answer with res.json, which the patch does not see');
  });

  it("ltijs deletes a used login's state document through the store's Delete('state', …) without awaiting it", () => {
    const provider = dist('Provider/Provider.js');
    assert.match(provider, /if \(!database\.plugin\) this\.Database = new DB\(database\);\s*else this\.Database = database\.plugin;/, 'the store given as database.plugin is the one ltijs calls');
    const deletes = [...provider.matchAll(/(await\s+)?this\.Database\.Delete\('state',/g)];
    assert.ok(deletes.length >= 1, "ltijs still deletes used 'state' documents itself");
    assert.deepEqual(
      deletes.filter((m) => m[1]),
      [],
      'if ltijs awaits these deletes now, a failure reaches its catch: revisit tolerateStateDeleteFailures',
    );
  });
});

describe('the patches of ltijs responses and store', () => {
  function fakeResponse(statusCode: number) {
    const sent: unknown[] = [];
    const res = { statusCode, send: (body?: unknown) => (sent.push(body), res) };
    return { res, sent };
  }

  it("replaces an ltijs 5xx error answer by the tool's, with ltijs's message, and passes anything else through", () => {
    const replaced: string[] = [];
    const failing = fakeResponse(500);
    replaceLtijsErrorAnswers(failing.res as unknown as Response, (message) => replaced.push(message));
    failing.res.send({ status: 500, error: 'Internal Server Error', details: { message: 'connect ECONNREFUSED 10.0.0.5:5432' } });
    assert.deepEqual(replaced, ['connect ECONNREFUSED 10.0.0.5:5432']);
    assert.deepEqual(failing.sent, [], "ltijs's raw answer is never sent");

    const ok = fakeResponse(200);
    replaceLtijsErrorAnswers(ok.res as unknown as Response, (message) => replaced.push(message));
    ok.res.send({ status: 200, error: 'x', details: {} });
    const refused = fakeResponse(400);
    replaceLtijsErrorAnswers(refused.res as unknown as Response, (message) => replaced.push(message));
    refused.res.send({ status: 400, error: 'Bad Request', details: { message: 'missing parameter' } });
    const plain = fakeResponse(503);
    replaceLtijsErrorAnswers(plain.res as unknown as Response, (message) => replaced.push(message));
    plain.res.send('Service unavailable');
    assert.equal(replaced.length, 1);
    assert.equal(ok.sent.length + refused.sent.length + plain.sent.length, 3);
  });

  it('names the state of every login state cookie set on a response, and sets each cookie unchanged', () => {
    const set: unknown[][] = [];
    const res = { cookie: (...args: unknown[]) => (set.push(args), res) };
    const states: string[] = [];
    onStateCookie(res as unknown as Response, (state) => states.push(state));
    const options = { httpOnly: true, signed: true };
    res.cookie('state8f3a%20b', 'https://lms.example', options);
    res.cookie('state8f3a%20b', '', options); // cleared
    res.cookie('ltiaas', 'x', options);
    res.cookie('state', 'y', options);
    assert.deepEqual(states, ['8f3a%20b']);
    assert.deepEqual(set, [['state8f3a%20b', 'https://lms.example', options], ['state8f3a%20b', '', options], ['ltiaas', 'x', options], ['state', 'y', options]]);
  });

  it("swallows and reports a failed delete of a 'state' document only; other collections still reject", async () => {
    const failure = new Error('database down');
    const store = {
      Delete(_collection: string, _query: Record<string, unknown>): Promise<boolean> {
        return Promise.reject(failure);
      },
    };
    const reported: unknown[] = [];
    const tolerant = tolerateStateDeleteFailures(store, (error) => reported.push(error));
    assert.equal(await tolerant.Delete('state', { state: 'abc' }), true);
    assert.deepEqual(reported, [failure]);
    await assert.rejects(tolerant.Delete('platform', { platformUrl: 'x' }), failure);
    assert.equal(reported.length, 1);
  });
});
