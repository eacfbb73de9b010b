import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settingsSummary } from '../../../src/launches/summary.js';
import { validateSettingsDocument, type ExamSettingsDocument } from '../../../src/exams/settings/document.js';
import { EXAM_SETTINGS_OFF } from '../../../src/proctoring/contract.js';
import { translator } from '../../../src/i18n/translator.js';

const QUIZ = 'https://moodle.example.edu/mod/quiz/view.php?id=7';
const PAGES = {
  launch_url: QUIZ,
  exam_start: '^https://moodle\\.example\\.edu/mod/quiz/view\\.php\\?id=7$',
  exam_take: '^https://moodle\\.example\\.edu/mod/quiz/attempt\\.php.*',
  exam_end: '^https://moodle\\.example\\.edu/mod/quiz/review\\.php.*',
};

const config = (change: Record<string, unknown> = {}): ExamSettingsDocument => {
  const parsed = validateSettingsDocument({ ...PAGES, exam_settings: { ...EXAM_SETTINGS_OFF, record_video: true, verify_video: true, calculator: 2 }, ...change });
  assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.violations));
  return parsed.value;
};

describe('settingsSummary', () => {
  it('a short summary (quiz, options on, breaks, link validity in minutes or hours, after the exam) and every option that is on', () => {
    const { short, all } = settingsSummary(config({ tool: { redirect: 'message' }, expire: 5400, break_settings: { number: 2, duration: 10 } }));
    assert.deepEqual(
      short.map((row) => [row.label, row.value]),
      [
        ['Quiz', QUIZ],
        ['Proctoring', '3 options on'],
        ['Breaks', '2 breaks of 10 minutes'],
        ['Link validity', '1 hour 30 minutes'],
        ['After the exam', 'a “you may close this window” page'],
      ],
    );
    assert.equal(short[0]?.ltr, true, 'the quiz address reads left to right');
    const byLabel = new Map(all.map((row) => [row.label, row]));
    assert.equal(byLabel.get('Exam start page pattern')?.ltr, true);
    assert.ok(all.some((row) => row.value === 'Scientific'), JSON.stringify(all));
    assert.equal(all.some((row) => /^off$/i.test(row.value)), false, 'options that are off are left out');
  });

  it('in the reader’s language, with the service default named', () => {
    const { short } = settingsSummary(config(), translator('es').t);
    assert.deepEqual(short.map((row) => row.label), ['Cuestionario', 'Supervisión', 'Pausas', 'Validez del enlace', 'Después del examen']);
    assert.equal(short[3]?.value, 'El valor predeterminado del servicio (5 horas)');
  });
});
