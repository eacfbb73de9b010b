// What a student's launch asks of the database once the caches are warm: the statements the launch itself needs,
// each prepared once per connection (docs/performance.md, "Where a launch's time goes").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { preparedName } from '../../../src/db/prepared.js';
import type { DemoPerson } from '../../../src/sandbox/demo-lms/index.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launch } from '../../helpers/lti-flow.js';
import { waitFor } from '../../helpers/wait.js';

/** The statements of a launch, by what they are for. */
const STATEMENTS: ReadonlyArray<[string, RegExp]> = [
  ['the login', /^INSERT INTO lti_login_states /],
  ['the launch consumes the login', /^UPDATE lti_login_states SET consumed_at/],
  ["the issuer's pseudonym binding", /LEFT JOIN pseudonym_bindings b ON b\.issuer = \$1/],
  ['whether the student has seen the privacy notice', /^SELECT 1 FROM privacy_notices /],
  ['the launch record', /^INSERT INTO launch_log /],
  ['the privacy notice recorded', /^INSERT INTO privacy_notices /],
  ['the attempt', /^WITH abandoned AS \( ?UPDATE attempts .* INSERT INTO attempts /],
];

/** Reads that fill the caches of a few seconds (platforms, deployments, keys, settings, exams, accounts). */
const CACHE_FILL = /^SELECT .*\bFROM (ltijs_documents|lti_deployments|app_secrets|pseudonym_bindings|institution_settings|exams|platform_proctoring_accounts)\b/;

const oneLine = (sql: string): string => sql.replace(/\s+/g, ' ').trim();
const isLaunchStatement = (sql: string): boolean => STATEMENTS.some(([, pattern]) => pattern.test(oneLine(sql)));
const purposeOf = (sql: string): string => STATEMENTS.find(([, pattern]) => pattern.test(oneLine(sql)))?.[0] ?? oneLine(sql).slice(0, 100);

describe("a student's launch in the database", () => {
  let app: TestApp;
  let db: TestDatabase;
  let recorded: string[] | undefined;
  let learners: DemoPerson[];
  before(async () => {
    db = await migratedTestDatabase();
    const query: typeof db.query = (sql, params) => {
      recorded?.push(sql);
      return db.query(sql, params);
    };
    app = await startTestApp({}, { db: { ...db, query } });
    const demoLms = app.tool.sandbox?.demoLms;
    assert.ok(demoLms, 'sandbox mode expected');
    const named = new Set(demoLms.users.map((user) => user.id));
    learners = demoLms.members().filter((person) => !named.has(person.id) && person.status === 'Active');
  });
  after(() => app.close());

  const launchRecords = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM launch_log')).rows[0]?.n ?? 0;

  it("a first launch in a window, privacy notice included: seven statements and the launch records' share, each prepared", async () => {
    // Two launches first: the caches are warm, the pooled connections open.
    for (const learner of learners.slice(0, 2)) await launch(app, { member: learner.id, presentation: 'window' });
    // Each leaves two records (its notice and its redirect), written after the answers.
    await waitFor("the first launches' records", async () => (await launchRecords()) === 4);
    const before = await launchRecords();
    recorded = [];
    const { response, notice } = await launch(app, { member: learners[2]!.id, presentation: 'window' });
    assert.ok(notice, 'the privacy notice came first');
    assert.equal(response.status, 302, response.text.slice(0, 200));
    // The notice and the redirect each leave a record, written after their answers.
    await waitFor('the launch records', async () => (await launchRecords()) === before + 2);
    const statements = recorded.filter((sql) => isLaunchStatement(sql) || !CACHE_FILL.test(oneLine(sql)));
    recorded = undefined;

    const purposes = statements.map(purposeOf);
    const withoutRecords = purposes.filter((purpose) => purpose !== 'the launch record');
    assert.deepEqual(withoutRecords, [
      'the login',
      'the launch consumes the login',
      "the issuer's pseudonym binding",
      'whether the student has seen the privacy notice',
      "the issuer's pseudonym binding",
      'the privacy notice recorded',
      'the attempt',
    ]);
    const records = purposes.length - withoutRecords.length;
    assert.ok(records >= 1 && records <= 2, `${records} statements for two launch records`);
    const unprepared = statements.filter((sql) => preparedName(sql) === undefined).map(oneLine);
    assert.deepEqual(unprepared, [], 'every statement of a launch is prepared');
  });
});
