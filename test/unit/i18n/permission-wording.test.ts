// One wording per permission, on every page and in every language: whatever speaks of who may change exam settings,
// who may monitor exams live, who may open the review center and who may only read the settings (the hub, the
// console's proctor roles, the refused-launch causes, the "not allowed" pages) says it with that permission's own
// phrase, `common:permissions.<permission>`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUPPORTED_LOCALES, translator } from '../../../src/i18n/index.js';

type Values = Readonly<Record<string, string>>;
const STAFF: Values = { who: 'W', roles: 'R', settingsReadOnly: 'false', noReviewOrLive: 'false' };
const READ_ONLY_STAFF: Values = { ...STAFF, settingsReadOnly: 'true' };
const NO_VIEWS_STAFF: Values = { ...STAFF, noReviewOrLive: 'true' };

/** Each permission and the messages that speak of it (key, and the values of its arguments). */
const PERMISSION_MESSAGES: Readonly<Record<string, ReadonlyArray<readonly [string, Values?]>>> = {
  changeSettings: [
    ['causes:roles.staff', READ_ONLY_STAFF],
    ['causes:roles.mayNot.settings'],
    ['hub:settings.readOnly'],
    ['hub:actions.noStaffViews'],
    ['hub:proctors.lead'],
    ['admin:institution.taMayEdit'],
    ['common:errors.notAllowedSettings.message'],
  ],
  monitorLive: [
    ['causes:roles.staff', NO_VIEWS_STAFF],
    ['causes:roles.proctor', { roles: 'R' }],
    ['causes:roles.namedProctor', { roles: 'R' }],
    ['causes:roles.mayNot.live'],
    ['hub:actions.noStaffViews'],
    ['hub:proctors.lead'],
    ['admin:institution.proctorRolesHint'],
    ['common:errors.notAllowedLive.message'],
  ],
  openReview: [
    ['causes:roles.staff', NO_VIEWS_STAFF],
    ['causes:roles.mayNot.review'],
    ['hub:actions.noStaffViews'],
    ['hub:proctors.lead'],
    ['common:errors.notAllowedReview.message'],
  ],
  readOnly: [
    ['causes:roles.staff', READ_ONLY_STAFF],
    ['hub:settings.readOnly'],
  ],
};

const folded = (text: string, locale: string) => text.toLocaleLowerCase(locale);

describe('one wording per permission', () => {
  for (const locale of SUPPORTED_LOCALES) {
    it(`${locale}: every message about a permission uses its phrase`, () => {
      const { t } = translator(locale);
      const missing: string[] = [];
      for (const [permission, messages] of Object.entries(PERMISSION_MESSAGES)) {
        const phrase = t(`common:permissions.${permission}`);
        assert.ok(phrase.length > 1 && !phrase.includes(':'), `${locale}: common:permissions.${permission} is worded`);
        for (const [key, values] of messages) {
          const text = t(key, values);
          assert.ok(!text.startsWith(key.split(':')[0] ?? key), `${locale}: ${key} exists`);
          if (!folded(text, locale).includes(folded(phrase, locale))) missing.push(`${key} does not say "${phrase}": ${text}`);
        }
      }
      assert.deepEqual(missing, [], locale);
    });
  }

  it('the phrases differ from each other in every language (four permissions, four phrases)', () => {
    for (const locale of SUPPORTED_LOCALES) {
      const { t } = translator(locale);
      const phrases = Object.keys(PERMISSION_MESSAGES).map((permission) => t(`common:permissions.${permission}`));
      assert.equal(new Set(phrases).size, phrases.length, locale);
    }
  });
});
