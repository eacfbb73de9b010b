import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checklistFamilyOf, SETUP_CHECKLISTS } from '../../../src/admin/setup-checklist.js';

describe('the LMS of a registration, for its setup checklist', () => {
  const cases: Array<[string, Parameters<typeof checklistFamilyOf>[0], keyof typeof SETUP_CHECKLISTS]> = [
    ['Moodle by its dynamic registration, whatever its endpoints', { issuer: 'https://lms.example.edu', authUrl: 'https://lms.example.edu/auth', productFamily: 'moodle' }, 'moodle'],
    ['Canvas by its dynamic registration', { issuer: 'https://canvas.example.edu', authUrl: 'https://canvas.example.edu/x', productFamily: 'canvas' }, 'canvas'],
    ['another named family: the generic list, even on Moodle-like endpoints', { issuer: 'https://x.example.edu', authUrl: 'https://x.example.edu/mod/lti/auth.php', productFamily: 'BlackboardLearn' }, 'generic'],
    ['Moodle by hand: its endpoints are under /mod/lti/', { issuer: 'https://moodle.example.edu', authUrl: 'https://moodle.example.edu/mod/lti/auth.php' }, 'moodle'],
    ['Moodle in a subdirectory', { issuer: 'https://www.example.edu/moodle', authUrl: 'https://www.example.edu/moodle/mod/lti/auth.php' }, 'moodle'],
    ['cloud Canvas by hand', { issuer: 'https://canvas.instructure.com', authUrl: 'https://sso.canvaslms.com/api/lti/authorize_redirect' }, 'canvas'],
    ['self-hosted Canvas by its authorization endpoint', { issuer: 'https://canvas.example.edu', authUrl: 'https://canvas.example.edu/api/lti/authorize_redirect' }, 'canvas'],
    ['a look-alike host is not Instructure', { issuer: 'https://notinstructure.com', authUrl: 'https://notinstructure.com/auth' }, 'generic'],
    ['Brightspace', { issuer: 'https://school.brightspace.com', authUrl: 'https://school.brightspace.com/d2l/lti/authenticate' }, 'generic'],
    ['an unreadable address', { issuer: 'not a url', authUrl: '' }, 'generic'],
  ];
  for (const [name, traits, family] of cases) {
    it(name, () => {
      assert.equal(checklistFamilyOf(traits), family);
    });
  }

  it("Moodle's list: activate, show in the activity chooser, a new window, HTTP security; Canvas's: key on, app, placements", () => {
    assert.deepEqual(SETUP_CHECKLISTS.moodle, ['activate', 'chooser', 'newWindow', 'httpSecurity']);
    assert.deepEqual(SETUP_CHECKLISTS.canvas, ['keyOn', 'appAdded', 'placements']);
  });
});
