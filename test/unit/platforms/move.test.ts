// Moving a platform to a new registration (new issuer and/or client id): exams, courses, settings, logo and
// proctoring account move in one transaction, or nothing does.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createExamStore } from '../../../src/exams/store.js';
import { createContextStore } from '../../../src/hosted/contexts.js';
import { createLogoStore } from '../../../src/hosted/logos.js';
import { createInstitutionSettingsStore } from '../../../src/institution/settings.js';
import { createAppSecrets } from '../../../src/db/app-secrets.js';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';
import { deriveExamTag, deriveSectionId, deriveUserId, platformKey } from '../../../src/lti/identifiers.js';
import { loadPseudonymKeys, rotatePseudonymKey } from '../../../src/lti/pseudonym-keys.js';
import { movePlatform, MoveRefusedError } from '../../../src/platforms/move.js';
import { createAccountStore } from '../../../src/proctoring/accounts.js';
import { createSecretBox } from '../../../src/secrets/secret-box.js';
import { migratedTestDatabase, openSecondHandle, type TestDatabase } from '../../helpers/db.js';
import { settingsDocument } from '../../helpers/proctoring.js';

const SECRET = 'pseudonym-secret-for-tests';
const OLD = { issuer: 'http://moodle.example.edu', clientId: 'old-client' };
const NEW = { issuer: 'https://moodle.example.edu', clientId: 'new-client' };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

describe('moving a platform', () => {
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  after(async () => {
    await db.close();
  });

  const register = async (platform: { issuer: string; clientId: string }, deployments: string[]) => {
    await db.query(`INSERT INTO ltijs_documents (collection, doc) VALUES ('platform', $1::text::jsonb)`, [
      JSON.stringify({ platformUrl: platform.issuer, clientId: platform.clientId, kid: `${platform.issuer}|${platform.clientId}` }),
    ]);
    for (const d of deployments) await db.query('INSERT INTO lti_deployments (issuer, client_id, deployment_id) VALUES ($1, $2, $3)', [platform.issuer, platform.clientId, d]);
  };
  const exams = () => createExamStore(db);
  const snapshot = async () =>
    (await db.query('SELECT issuer, client_id, deployment_id, context_id, resource_link_id, title, settings IS NOT NULL AS configured FROM exams ORDER BY title')).rows;

  beforeEach(async () => {
    for (const table of ['exams', 'lti_contexts', 'institution_settings', 'institution_logos', 'platform_proctoring_accounts', 'proctoring_accounts', 'lti_deployments', 'ltijs_documents', 'launch_log']) {
      await db.query(`DELETE FROM ${table}`);
    }
    await register(OLD, ['1']);
    await register(NEW, ['7']);
    const midterm = await exams().ensure({ ...OLD, deploymentId: '1', contextId: 'course-1', resourceLinkId: 'quiz-1' }, 'Midterm');
    await exams().saveSettings(midterm.id, settingsDocument('http://moodle.example.edu/mod/quiz/view.php?id=1'));
    await exams().ensure({ ...OLD, deploymentId: '1', contextId: 'course-2', resourceLinkId: 'quiz-2' }, 'Final');
    await db.query("INSERT INTO launch_log (issuer, exam_id, user_id, role, outcome, duration_ms) VALUES ($1, $2, 'u', 'candidate', 'redirected', 5)", [OLD.issuer, midterm.id]);
    await createContextStore(db, { pseudonymSecret: SECRET }).remember({ ...OLD, deploymentId: '1', context: { id: 'course-1', title: 'Course 1' }, namesRolesUrl: 'http://moodle.example.edu/nrps' });
    await createInstitutionSettingsStore(db).save(OLD.issuer, OLD.clientId, { branding: { primary_color: '112233' }, proctorRoles: ['Mentor'] });
    await createLogoStore(db).save(OLD.issuer, OLD.clientId, PNG);
    const accounts = createAccountStore(db, createSecretBox(['k'.repeat(32)]));
    await accounts.create({ id: 'eu', name: 'EU', region: 'EU', baseUrl: 'https://eu.example.com', apiKey: 'eu-api-key-0001' });
    await accounts.assign(OLD, 'eu');
  });

  it('moves exams, courses, settings, logo and account; a placeholder exam of the new registration gives way', async () => {
    const placeholder = await exams().ensure({ ...NEW, deploymentId: '7', contextId: 'course-1', resourceLinkId: 'quiz-1' }, 'Midterm (new, empty)');
    const plan = await movePlatform(db, { from: OLD, to: NEW }, { pseudonymSecret: SECRET });
    assert.deepEqual(plan, {
      deployments: { '1': '7' },
      exams: 2,
      placeholdersReplaced: 1,
      courses: 1,
      institutionSettings: true,
      logo: true,
      proctoringAccount: 'eu',
      launchLogRows: 1,
      studentIds: 'kept',
      accommodations: 0,
      attempts: 0,
      attemptsInProgress: 0,
      // http → https of the same host: the quiz address and the literal schemes of its patterns.
      addressRewrites: [
        {
          examId: plan.addressRewrites[0]?.examId ?? '',
          title: 'Midterm',
          rewrites: (['launch_url', 'exam_start', 'exam_take', 'exam_end'] as const).map((field) => ({
            field,
            before: settingsDocument('http://moodle.example.edu/mod/quiz/view.php?id=1')[field],
            after: settingsDocument('https://moodle.example.edu/mod/quiz/view.php?id=1')[field],
          })),
        },
      ],
      addressesToCheck: [],
    });

    const moved = await exams().find({ ...NEW, deploymentId: '7', contextId: 'course-1', resourceLinkId: 'quiz-1' });
    assert.equal(moved?.title, 'Midterm');
    assert.ok(moved?.settings, 'the configured original, not the empty placeholder');
    assert.equal(await exams().get(placeholder.id), undefined);
    assert.equal((await snapshot()).every((row) => row.issuer === NEW.issuer && row.client_id === NEW.clientId), true);

    // The new issuer's ids are derived as the old issuer's (its people keep theirs): so is the course's.
    const sectionId = deriveSectionId(SECRET, OLD.issuer, '7', 'course-1');
    const course = await createContextStore(db, { pseudonymSecret: SECRET }).find(sectionId);
    assert.equal(course?.title, 'Course 1');
    assert.equal(course?.membershipsUrl, 'http://moodle.example.edu/nrps');

    assert.equal((await createInstitutionSettingsStore(db).get(NEW.issuer, NEW.clientId)).branding.primary_color, '112233');
    assert.equal((await createInstitutionSettingsStore(db).findByKey(platformKey(NEW.issuer, NEW.clientId)))?.clientId, NEW.clientId);
    assert.ok(await createLogoStore(db).findByKey(platformKey(NEW.issuer, NEW.clientId)), 'the logo is served under the new key');
    assert.equal(await createLogoStore(db).findByKey(platformKey(OLD.issuer, OLD.clientId)), undefined);
    assert.equal((await createAccountStore(db, createSecretBox(['k'.repeat(32)])).accountOf(NEW)).accountId, 'eu');
    assert.equal((await db.query('SELECT 1 FROM launch_log WHERE issuer = $1', [NEW.issuer])).rowCount, 1);
  });

  it('refuses, changing nothing, when the new registration has a configured exam under the same link', async () => {
    const configured = await exams().ensure({ ...NEW, deploymentId: '7', contextId: 'course-1', resourceLinkId: 'quiz-1' }, 'Midterm (reconfigured)');
    await exams().saveSettings(configured.id, settingsDocument('https://moodle.example.edu/x'));
    const before = await snapshot();
    await assert.rejects(movePlatform(db, { from: OLD, to: NEW }, { pseudonymSecret: SECRET }), (error: unknown) => {
      assert.ok(error instanceof MoveRefusedError);
      assert.match(error.message, /already has a configured exam "Midterm \(reconfigured\)"/);
      return true;
    });
    assert.deepEqual(await snapshot(), before);
    assert.equal((await createInstitutionSettingsStore(db).get(OLD.issuer, OLD.clientId)).branding.primary_color, '112233', 'settings stayed');
  });

  it('asks which deployment takes the old one when the new registration has several, and checks the names given', async () => {
    await db.query("INSERT INTO lti_deployments (issuer, client_id, deployment_id) VALUES ($1, $2, '8')", [NEW.issuer, NEW.clientId]);
    await assert.rejects(movePlatform(db, { from: OLD, to: NEW }, { pseudonymSecret: SECRET }), /say which deployment of the new registration takes the old deployment '1' \(e\.g\. --deployment 1=NEW; the new one has: 7, 8\)/);
    await assert.rejects(movePlatform(db, { from: OLD, to: NEW, deployments: { '1': '9' } }, { pseudonymSecret: SECRET }), /has no deployment id '9'/);
    const plan = await movePlatform(db, { from: OLD, to: NEW, deployments: { '1': '8' } }, { pseudonymSecret: SECRET });
    assert.deepEqual(plan.deployments, { '1': '8' });
  });

  it('refuses a new registration that is not registered', async () => {
    await assert.rejects(movePlatform(db, { from: OLD, to: { issuer: 'https://elsewhere.example.edu', clientId: 'x' } }, { pseudonymSecret: SECRET }), /is not registered: register it first/);
    assert.equal((await snapshot()).length, 2);
  });
});

describe('moving a platform: students keep their ids, addresses follow the LMS', () => {
  const A = { issuer: 'http://moodle.old.example.edu', clientId: 'a' };
  const B = { issuer: 'https://lms.new.example.edu', clientId: 'b' };
  const C = { issuer: 'https://lms.third.example.edu', clientId: 'c' };
  const box = createSecretBox(['p'.repeat(32)]);
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  after(async () => {
    await db.close();
  });
  beforeEach(async () => {
    for (const table of ['exams', 'lti_contexts', 'lti_deployments', 'ltijs_documents', 'pseudonym_bindings', 'lti_refused_registrations']) await db.query(`DELETE FROM ${table}`);
    invalidateReadCaches();
    for (const platform of [A, B, C]) {
      await db.query(`INSERT INTO ltijs_documents (collection, doc) VALUES ('platform', $1::text::jsonb)`, [JSON.stringify({ platformUrl: platform.issuer, clientId: platform.clientId, kid: platform.clientId })]);
      await db.query("INSERT INTO lti_deployments (issuer, client_id, deployment_id) VALUES ($1, $2, '1')", [platform.issuer, platform.clientId]);
    }
  });
  const keyring = () => loadPseudonymKeys(db, createAppSecrets(db, box));
  const exam = async (platform: typeof A, link: string, quizUrl?: string) => {
    const created = await createExamStore(db).ensure({ ...platform, deploymentId: '1', contextId: 'course-1', resourceLinkId: link }, `Exam ${link}`);
    if (quizUrl) await createExamStore(db).saveSettings(created.id, settingsDocument(quizUrl));
    return created;
  };
  const ids = (keys: Awaited<ReturnType<typeof keyring>>, issuer: string) => ({
    user: deriveUserId(keys, issuer, '5'),
    exam: deriveExamTag(keys, issuer, '1', 'quiz-1'),
    section: deriveSectionId(keys, issuer, '1', 'course-1'),
  });

  it('the new issuer derives every id as the old one did: in this process at once, in another once loaded, after a key rotation too', async () => {
    const keys = await keyring();
    const before = ids(keys, A.issuer);
    const quiz = await exam(A, 'quiz-1', 'http://moodle.old.example.edu/mod/quiz/view.php?id=1');
    await db.query("INSERT INTO attempts (id, exam_id, user_id, status) VALUES (gen_random_uuid(), $1, $2, 'started'), (gen_random_uuid(), $1, 'other', 'submitted')", [quiz.id, before.user]);
    await db.query(`INSERT INTO exam_accommodations (exam_id, user_id, override) VALUES ($1, $2, '{"exempt": true}')`, [quiz.id, before.user]);
    assert.notDeepEqual(ids(keys, B.issuer), before, 'two issuers: different ids before the move');

    const plan = await movePlatform(db, { from: A, to: B }, { pseudonymSecret: keys });
    assert.equal(plan.studentIds, 'kept');
    assert.deepEqual([plan.accommodations, plan.attempts, plan.attemptsInProgress], [1, 2, 1]);
    assert.deepEqual(ids(keys, B.issuer), before, 'this process');
    assert.deepEqual(ids(await keyring(), B.issuer), before, 'another process');
    await rotatePseudonymKey(createAppSecrets(db, box));
    assert.deepEqual(ids(await keyring(), B.issuer), before, 'after a rotation');
    assert.deepEqual(ids(await keyring(), A.issuer), before, 'the old issuer keeps its own');
    // Nothing keyed by the ids had to change.
    assert.equal((await db.query("SELECT 1 FROM attempts WHERE user_id = $1 AND status = 'started'", [before.user])).rowCount, 1);
  });

  it('another replica: before the move\'s change notice is read, confirming the launch\'s issuer derives the old ids', async () => {
    // Two app instances on one database: this one moves, the other had read the keys before.
    const second = await openSecondHandle(db);
    try {
      const keys = await keyring();
      const before = ids(keys, A.issuer);
      await exam(A, 'quiz-1');
      const replica = await loadPseudonymKeys(second, createAppSecrets(second, box));
      assert.notDeepEqual(ids(replica, B.issuer), before);
      await movePlatform(db, { from: A, to: B }, { pseudonymSecret: keys });
      // What the replica read serves until its reload has finished (and a notice lost or late leaves it stale).
      assert.notDeepEqual(ids(replica, B.issuer), before, 'the window: the replica still derives the new issuer\'s own ids');
      await replica.confirm(B.issuer);
      assert.deepEqual(ids(replica, B.issuer), before, 'confirmed: the old issuer\'s ids');
      await replica.confirm(A.issuer);
      assert.deepEqual(ids(replica, A.issuer), before);

      // A rotation elsewhere: an issuer first seen afterwards derives with the new key on every replica.
      const other = await loadPseudonymKeys(second, createAppSecrets(second, box));
      await rotatePseudonymKey(createAppSecrets(db, box));
      const firstSeen = 'https://first-seen.example.edu';
      const fresh = ids(await keyring(), firstSeen);
      await other.confirm(firstSeen);
      assert.deepEqual(ids(other, firstSeen), fresh);
    } finally {
      await second.close();
    }
  });

  it('a second move keeps the ids of the first issuer; a dry run changes nothing', async () => {
    const keys = await keyring();
    const before = ids(keys, A.issuer);
    await exam(A, 'quiz-1');
    await movePlatform(db, { from: A, to: B }, { pseudonymSecret: keys });
    const dry = await movePlatform(db, { from: B, to: C }, { pseudonymSecret: keys, dryRun: true });
    assert.equal(dry.studentIds, 'kept');
    assert.notDeepEqual(ids(await keyring(), C.issuer), before, 'the dry run bound nothing');
    await movePlatform(db, { from: B, to: C }, { pseudonymSecret: keys });
    assert.deepEqual(ids(keys, C.issuer), before);
    assert.deepEqual(ids(await keyring(), C.issuer), before);
  });

  it('forgets the refused launches of the new address that looked like the moved platform', async () => {
    await exam(A, 'quiz-1');
    const refused = "INSERT INTO lti_refused_registrations (issuer, client_id, reason, looks_like_issuer, looks_like_client_id) VALUES ($1, $2, 'unregistered_platform', $3, $4)";
    await db.query(refused, [B.issuer, 'b-old', A.issuer, A.clientId]);
    await db.query(refused, [C.issuer, 'c-old', A.issuer, A.clientId]);
    await movePlatform(db, { from: A, to: B }, { pseudonymSecret: await keyring() });
    assert.deepEqual((await db.query<{ issuer: string }>('SELECT issuer FROM lti_refused_registrations')).rows, [{ issuer: C.issuer }]);
  });

  it('not kept when the new issuer has exams of its own with settings: its students keep theirs', async () => {
    const keys = await keyring();
    await exam(A, 'quiz-1');
    await exam(B, 'own-quiz', 'https://lms.new.example.edu/mod/quiz/view.php?id=9');
    const own = ids(keys, B.issuer);
    const plan = await movePlatform(db, { from: A, to: B }, { pseudonymSecret: keys });
    assert.equal(plan.studentIds, 'not-kept');
    assert.deepEqual(ids(keys, B.issuer), own);
    assert.deepEqual(ids(await keyring(), B.issuer), own);
  });

  it('a course the new issuer launched before the move is found under the kept section id', async () => {
    const keys = await keyring();
    await exam(A, 'quiz-1');
    const contexts = createContextStore(db, { pseudonymSecret: keys });
    await contexts.remember({ ...A, deploymentId: '1', context: { id: 'course-1', title: 'Course (old)' } });
    await contexts.remember({ ...B, deploymentId: '1', context: { id: 'course-2', title: 'Only launched after the move' } });
    await movePlatform(db, { from: A, to: B }, { pseudonymSecret: keys });
    assert.equal((await contexts.find(deriveSectionId(keys, B.issuer, '1', 'course-1')))?.title, 'Course (old)');
    assert.equal((await contexts.find(deriveSectionId(keys, B.issuer, '1', 'course-2')))?.title, 'Only launched after the move');
    // A launch of the moved course records it again without a conflict.
    await createContextStore(db, { pseudonymSecret: keys }).remember({ ...B, deploymentId: '1', context: { id: 'course-1', title: 'Course (new)' } });
    assert.equal((await db.query('SELECT 1 FROM lti_contexts')).rowCount, 2);
  });

  it('rewrites addresses on the old site with a history entry; an exam on a third site is listed and left as it was', async () => {
    const keys = await keyring();
    const moodle = await exam(A, 'quiz-1', 'http://moodle.old.example.edu/mod/quiz/view.php?id=1');
    const elsewhere = await exam(A, 'quiz-2', 'https://quizzes.elsewhere.example/q/2');
    const plan = await movePlatform(db, { from: A, to: B }, { pseudonymSecret: keys });
    assert.deepEqual(plan.addressRewrites.map((e) => [e.title, e.rewrites.map((r) => r.field)]), [['Exam quiz-1', ['launch_url', 'exam_start', 'exam_take', 'exam_end']]]);
    assert.deepEqual(plan.addressesToCheck, [{ examId: elsewhere.id, title: 'Exam quiz-2', address: 'https://quizzes.elsewhere.example/q/2', field: undefined }]);
    const moved = await createExamStore(db).get(moodle.id);
    assert.deepEqual(moved?.settings, settingsDocument('https://lms.new.example.edu/mod/quiz/view.php?id=1'));
    assert.deepEqual((await createExamStore(db).get(elsewhere.id))?.settings, settingsDocument('https://quizzes.elsewhere.example/q/2'));
    const history = await db.query<{ source: string; changes: Array<{ path: string }> }>('SELECT source, changes FROM exam_settings_changes WHERE exam_id = $1', [moodle.id]);
    assert.deepEqual(history.rows.map((row) => [row.source, row.changes.map((c) => c.path)]), [['platform-move', ['launch_url', 'exam_start', 'exam_take', 'exam_end']]]);
  });
});
