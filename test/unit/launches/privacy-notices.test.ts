// Who has seen an exam's privacy notice: what each kind of launch does about it (pure), and the store on the test
// database (PGlite, or PostgreSQL with DATABASE_URL).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createPrivacyNoticeStore, noticeStep, type NoticeStep } from '../../../src/launches/privacy-notices.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

describe('privacy notice: what a launch does about it', () => {
  const cases: Array<{ name: string; view: { framed: boolean; continued?: boolean }; exempt: boolean; step: NoticeStep }> = [
    { name: 'a launch in a window of its own: the notice unless seen', view: { framed: false }, exempt: false, step: 'notice-unless-seen' },
    { name: 'a framed launch: its start page is the notice, recorded after', view: { framed: true }, exempt: false, step: 'session-then-record' },
    { name: "the notice's button: recorded, then the session", view: { framed: false, continued: true }, exempt: false, step: 'record-then-session' },
    { name: "the notice's button, whatever the frame says", view: { framed: true, continued: true }, exempt: false, step: 'record-then-session' },
    { name: 'exempted from proctoring, in a window: no notice', view: { framed: false }, exempt: true, step: 'none' },
    { name: 'exempted from proctoring, framed: nothing recorded', view: { framed: true }, exempt: true, step: 'none' },
    { name: 'exempted from proctoring, continued: nothing recorded', view: { framed: false, continued: true }, exempt: true, step: 'none' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(noticeStep(c.view, c.exempt), c.step);
    });
  }
});

describe('privacy notice store', () => {
  let db: TestDatabase;
  let examId: string;
  before(async () => {
    db = await migratedTestDatabase();
    examId = randomUUID();
    await db.query(`INSERT INTO exams (id, issuer, client_id, deployment_id, context_id, resource_link_id, title) VALUES ($1, 'https://lms.example.edu', 'c', '1', 'course', $2, 'Exam')`, [examId, `link-${examId}`]);
  });
  after(() => db.close());

  it('is per exam and student; a second record keeps the first time', async () => {
    const notices = createPrivacyNoticeStore(db);
    assert.equal(await notices.seen(examId, 'student-a'), false);
    await notices.record(examId, 'student-a');
    const first = (await db.query<{ shown_at: Date }>('SELECT shown_at FROM privacy_notices WHERE exam_id = $1 AND user_id = $2', [examId, 'student-a'])).rows[0]?.shown_at;
    await Promise.all([notices.record(examId, 'student-a'), notices.record(examId, 'student-a')]);
    assert.equal(await notices.seen(examId, 'student-a'), true);
    assert.equal(await notices.seen(examId, 'student-b'), false, 'another student has not seen it');
    assert.equal(await notices.seen(randomUUID(), 'student-a'), false, 'another exam: not seen');
    const rows = (await db.query<{ shown_at: Date }>('SELECT shown_at FROM privacy_notices WHERE exam_id = $1 AND user_id = $2', [examId, 'student-a'])).rows;
    assert.equal(rows.length, 1);
    assert.equal(new Date(rows[0]!.shown_at).getTime(), new Date(first!).getTime(), 'the first time is kept');
  });

  it('goes with its exam', async () => {
    const notices = createPrivacyNoticeStore(db);
    const gone = randomUUID();
    await db.query(`INSERT INTO exams (id, issuer, client_id, deployment_id, context_id, resource_link_id, title) VALUES ($1, 'https://lms.example.edu', 'c', '1', 'course', $2, 'Exam')`, [gone, `link-${gone}`]);
    await notices.record(gone, 'student-a');
    await db.query('DELETE FROM exams WHERE id = $1', [gone]);
    assert.equal((await db.query('SELECT 1 FROM privacy_notices WHERE exam_id = $1', [gone])).rows.length, 0);
  });
});
