import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JWTPayload } from 'jose';
import { claimsToKeep, withoutPersonalClaims } from '../../../src/lti/claims.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { CLAIMS, launchAs, oneCall } from '../../helpers/launches.js';

const NRPS = 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice';
const LIS = 'https://purl.imsglobal.org/spec/lti/claim/lis';
const EXT = 'https://purl.imsglobal.org/spec/lti/claim/ext';

describe('personal claims are not kept', () => {
  const token = {
    iss: 'https://lms.example.edu',
    sub: '42',
    name: 'Ana Lima',
    given_name: 'Ana',
    family_name: 'Lima',
    email: 'ana@example.edu',
    picture: 'https://lms.example.edu/ana.png',
    [LIS]: { person_sourcedid: 'S-123', course_section_sourcedid: 'SEC-1' },
    [EXT]: { user_username: 'alima', lms: 'moodle-2' },
  };

  it('withoutPersonalClaims keeps the LTI ids and drops names, e-mail, picture, sourcedid and username', () => {
    assert.deepEqual(withoutPersonalClaims(token), {
      iss: 'https://lms.example.edu',
      sub: '42',
      [LIS]: { course_section_sourcedid: 'SEC-1' },
      [EXT]: { lms: 'moodle-2' },
    });
  });

  const cases = [
    { name: 'with Names and Roles: no name either', claims: { ...token, [NRPS]: { context_memberships_url: 'https://lms.example.edu/nrps' } }, name_: undefined },
    { name: 'without Names and Roles: the name only (display_name needs it)', claims: token, name_: 'Ana Lima' },
    { name: 'without Names and Roles, given and family names only', claims: { ...token, name: undefined }, name_: 'Ana Lima' },
  ];
  for (const c of cases) {
    it(`claimsToKeep ${c.name}`, () => {
      const kept = claimsToKeep(c.claims);
      assert.equal(kept.name, c.name_);
      for (const claim of ['given_name', 'family_name', 'email', 'picture']) assert.equal(claim in kept, false, claim);
    });
  }
});

describe('what a launch leaves in the database', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const student = () => {
    const person = app.tool.sandbox?.demoLms.users.find((user) => user.key === 'student');
    assert.ok(person?.email);
    return person;
  };
  /** Every stored row of the LTI tables by table and key, as text (jsonb escapes non-ASCII, so compare both spellings). */
  async function storedRows(): Promise<Map<string, string>> {
    const rows = await app.db.query<{ row: string }>(
      `SELECT row_to_json(t)::text AS row FROM (SELECT 'lti_login_states ' || state AS key, claims::text AS doc FROM lti_login_states UNION ALL SELECT 'ltijs_documents ' || id, doc::text FROM ltijs_documents) t`,
    );
    return new Map(
      rows.rows.map((r) => JSON.parse(r.row) as { key: string; doc: string | null }).map((r) => [r.key, JSON.stringify(JSON.parse(r.doc ?? 'null') as unknown)]),
    );
  }
  async function stored(): Promise<string> {
    return [...(await storedRows()).values()].join('\n');
  }
  /** The rows `work` added or changed, as text: other tests' launches may legitimately have stored a name. */
  async function storedBy<T>(work: () => Promise<T>): Promise<{ result: T; text: string }> {
    const before = await storedRows();
    const result = await work();
    const text = [...(await storedRows())].filter(([key, doc]) => before.get(key) !== doc).map(([, doc]) => doc).join('\n');
    return { result, text };
  }
  const holds = (text: string, value: string) => text.includes(value);

  it('with Names and Roles: no name, e-mail or username anywhere', async () => {
    const person = student();
    const { result, text } = await storedBy(() => oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window' })));
    assert.equal(result.body.display_name, undefined);
    assert.ok(text.includes(person.id), 'the launch was stored (its user id is there)');
    for (const value of [person.name, person.given_name, person.family_name, person.email ?? '', person.username]) {
      assert.equal(holds(text, value), false, `stored: ${value}`);
    }
  });

  it('without Names and Roles: display_name is sent, only the name is kept for the session, never the e-mail', async () => {
    const person = student();
    const noNrps = (claims: JWTPayload) => {
      delete claims[CLAIMS.nrps];
      const custom = claims[CLAIMS.custom] as Record<string, string> | undefined;
      if (custom) delete custom.context_memberships_url;
    };
    const { body } = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', flavor: 'moodle', presentation: 'window', claims: noNrps }));
    assert.equal(body.display_name, person.name);
    const text = await stored();
    assert.equal(holds(text, person.email ?? ''), false);
    assert.equal(holds(text, person.username), false);
    const idtokens = await app.db.query<{ doc: string }>("SELECT doc::text AS doc FROM ltijs_documents WHERE collection IN ('idtoken', 'contexttoken')");
    assert.equal(idtokens.rows.some((row) => row.doc.includes(person.family_name)), false, "ltijs's documents hold no name");
  });

  it('housekeeping deletes login states past the session age and expired ltijs documents, and keeps the rest', async () => {
    await app.db.query("INSERT INTO lti_login_states (state, nonce, issuer, created_at) VALUES ('old-state', 'n', 'https://x', now() - interval '30 days')");
    await app.db.query("INSERT INTO ltijs_documents (collection, doc, expires_at) VALUES ('nonce', '{\"nonce\":\"old\"}', now() - interval '1 minute')");
    const before = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM lti_login_states');
    const purged = await app.tool.lti.housekeeping();
    assert.equal(purged.loginStates, 1);
    assert.ok(purged.ltijsDocuments >= 1);
    const remaining = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM lti_login_states');
    assert.equal(remaining.rows[0]?.n, (before.rows[0]?.n ?? 0) - 1, 'recent sessions are kept');
    const { response } = await launchAs(app, { user: 'instructor', flavor: 'moodle', presentation: 'window' });
    assert.equal(response.status, 200, 'launches still work');
  });
});
