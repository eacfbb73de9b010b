// Two app instances on one PostgreSQL database: another instance (here the CLI, in its own process) moves the
// platform while this instance's change notices are held back, as on a replica whose notice has not arrived yet.
// This instance's first launch from the new address must already carry the student's, the exam's and the
// course's old ids. Real launches through the OIDC flow. PGlite is one process: there is no other instance.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { JWTPayload } from 'jose';
import { startTestApp, TEST_ENCRYPTION_KEY, type TestApp } from '../../helpers/app.js';
import { entryArgs } from '../../helpers/entry-args.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { demoExam, derived, launchAs, oneCall, saveExamSettings } from '../../helpers/launches.js';

const DATABASE_URL = process.env.DATABASE_URL;

describe('a platform moved by another app instance', { skip: DATABASE_URL ? false : 'needs PostgreSQL (DATABASE_URL): two processes on one database' }, () => {
  let app: TestApp;
  /** Change notices this instance has received but not yet handed on. */
  const held: Array<() => void> = [];
  let holding = false;

  before(async () => {
    const db = await migratedTestDatabase();
    const gated: TestDatabase = {
      ...db,
      listen: (channel, handlers) =>
        db.listen(channel, {
          ...handlers,
          onNotice: (payload) => (holding ? held.push(() => handlers.onNotice(payload)) : handlers.onNotice(payload)),
        }),
    };
    app = await startTestApp({}, { db: gated });
  });
  after(async () => {
    await app?.close();
  });

  it("this instance's first launch from the new address derives the old ids, before the move's change notice arrives", async () => {
    const { registration } = app.tool.sandbox!.demoLms;
    const exam = await demoExam(app);
    assert.ok(exam.settings);
    await saveExamSettings(app, exam.id, exam.settings);
    const moved = 'https://lms.moved-elsewhere.example';
    await app.tool.lti.platforms.register({
      issuer: moved,
      clientId: registration.clientId,
      name: 'Demo LMS (moved)',
      authUrl: registration.authUrl,
      tokenUrl: registration.tokenUrl,
      key: { jwk: JSON.stringify(app.tool.sandbox!.demoLms.jwks().keys[0]) },
      deploymentIds: registration.deploymentIds,
    });
    // The new address is registered before the move (as it must be); this instance has read everything since.
    const studentId = (await derived(app)).userId(registration.issuer, '5');
    const first = await oneCall(app, '/v2/candidate/launch', () => launchAs(app, { user: 'student', presentation: 'window' }));
    assert.equal(first.body.user_id, studentId);

    // From now on this instance's change notices wait.
    holding = true;
    const cli = spawnSync(
      process.execPath,
      [...entryArgs('src/cli/index.ts'), 'platform', 'move', '--from-issuer', registration.issuer, '--from-client-id', registration.clientId, '--to-issuer', moved, '--to-client-id', registration.clientId],
      {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL, DATABASE_SCHEMA: app.db.schema, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, PUBLIC_URL: app.config.publicUrl.href },
        encoding: 'utf8',
        timeout: 300_000,
      },
    );
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /Students keep their ids/i);

    const again = await oneCall(app, '/v2/candidate/launch', () =>
      launchAs(app, {
        user: 'student',
        presentation: 'window',
        login: (params) => {
          params.iss = moved;
        },
        claims: (claims: JWTPayload) => {
          claims.iss = moved;
        },
      }),
    );
    assert.equal(again.body.user_id, studentId, "the student's old id");
    assert.equal(again.body.exam_tag, first.body.exam_tag);
    assert.equal(again.body.section_id, first.body.section_id);
    assert.equal(again.body.attempt_id, first.body.attempt_id, 'the attempt in progress is resumed');
    assert.ok(held.length > 0, 'the move sent change notices, still held here');
    holding = false;
    for (const deliver of held.splice(0)) deliver();
  });
});
