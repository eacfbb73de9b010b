// Every cause staff may read, worded in every language: no catalog key or ICU argument left showing, a real
// translation outside English, and the English (the log's) unchanged in meaning.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUPPORTED_LOCALES, translator, type Wording } from '../../../src/i18n/index.js';
import { roleReasonWording, roleRefusalWording } from '../../../src/lti/role-words.js';
import { mapRoles } from '../../../src/lti/roles.js';
import { RegistrationError } from '../../../src/lti/dynamic-registration.js';
import {
  ProctoringBadRequest,
  ProctoringBadResponse,
  ProctoringConnectionFailed,
  ProctoringRequestInvalid,
  ProctoringTimeout,
  ProctoringUnauthorized,
  ProctoringUnavailable,
} from '../../../src/proctoring/errors.js';

const M = 'http://purl.imsglobal.org/vocab/lis/v2/membership#';
const roles = (...names: string[]) => mapRoles({ roles: names.map((name) => (name.includes(':') ? name : `${M}${name}`)) });

/** Each cause, and what its English must still say (the log and the command line read it). */
const CAUSES: Array<{ name: string; words: Wording; english: RegExp }> = [
  { name: 'request not sent', words: new ProctoringRequestInvalid([{ path: 'exam_settings.full_screen', rule: 'required', message: 'Full-screen removal needs X.' }], 'candidate_launch').adminText, english: /not sent .* Full-screen removal needs X\. Correct/ },
  { name: '400 with an answer', words: new ProctoringBadRequest('bad field', 'candidate_launch').adminText, english: /invalid \(HTTP 400\), answering: bad field\./ },
  { name: '400 without one', words: new ProctoringBadRequest('', 'candidate_launch').adminText, english: /invalid \(HTTP 400\)\. Check/ },
  { name: '401 2154', words: new ProctoringUnauthorized(2154, 'reviewer_launch').adminText, english: /not active \(code 2154\)/ },
  { name: '401 2155 with the region', words: new ProctoringUnauthorized(2155, 'live_launch', { region: 'eu', baseUrl: 'https://eu.example' }).adminText, english: /another region .* region eu at https:\/\/eu\.example\./ },
  { name: '401 2655', words: new ProctoringUnauthorized(2655, 'launchpad').adminText, english: /rejected the API key \(code 2655\)/ },
  { name: '401 without a code', words: new ProctoringUnauthorized(undefined, 'launchpad').adminText, english: /HTTP 401, code none/ },
  { name: 'timeout', words: new ProctoringTimeout(10000, 'api.example', 'candidate_launch').adminText, english: /at api\.example did not answer within 10000 ms/ },
  { name: 'unavailable', words: new ProctoringUnavailable(503, 'candidate_launch').adminText, english: /answered HTTP 503: it is failing/ },
  { name: 'connection failed', words: new ProctoringConnectionFailed('ECONNREFUSED', 'api.example', 2, 'candidate_launch').adminText, english: /api\.example failed \(ECONNREFUSED\)/ },
  { name: 'unusable answer', words: new ProctoringBadResponse('not JSON', 'candidate_launch', 200).adminText, english: /answered HTTP 200 with something .* \(not JSON\)/ },
  { name: 'unusable answer, no status', words: new ProctoringBadResponse('cut off', 'candidate_launch').adminText, english: /answered with something .* \(cut off\)/ },
  { name: 'registration refused', words: new RegistrationError('addressRefused', { field: 'jwks_uri' }).words, english: /configuration's jwks_uri is refused/ },
  { name: 'learner', words: roleReasonWording(roles('Learner').why), english: /^Learner in this course \(Learner\)/ },
  { name: 'instructor and designer', words: roleReasonWording(roles('Instructor', 'ContentDeveloper').why), english: /^Instructor and content developer \(Instructor, ContentDeveloper\): instructor hub\.$/ },
  { name: 'TA, settings read-only', words: roleReasonWording(roles('http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant').why), english: /^Teaching assistant .*: instructor hub \(read-only: teaching assistants at this institution may not change exam settings\)\.$/ },
  { name: 'designer', words: roleRefusalWording(roles('ContentDeveloper').why, 'review'), english: /^Content developer \(ContentDeveloper\): instructor hub \(may not open the review center or monitor exams live\)\. This role may not open the review center\.$/ },
  { name: 'observer', words: roleReasonWording(roles('Mentor').why), english: /^Observer \(Mentor\)/ },
  { name: 'no roles', words: roleReasonWording(roles().why), english: /carried no roles/ },
  { name: 'institution roles only', words: roleReasonWording(roles('http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor').why), english: /institution roles \(institution Instructor\)/ },
];

describe('causes for staff', () => {
  for (const { name, words, english } of CAUSES) {
    it(`${name}: worded in every language, English as the log reads it`, () => {
      const inEnglish = words(translator('en'));
      assert.match(inEnglish, english);
      for (const locale of SUPPORTED_LOCALES) {
        const text = words(translator(locale));
        assert.doesNotMatch(text, /causes:|[{}]/, `${locale}: ${text}`);
        if (locale !== 'en') assert.notEqual(text, inEnglish, `${locale} is still English`);
      }
    });
  }

  it("the role decision's English sentence and its catalog wording say the same", () => {
    for (const decision of [roles('Learner'), roles('Instructor'), roles('Mentor'), roles()]) {
      assert.equal(roleReasonWording(decision.why)(translator('en')), decision.reason);
    }
  });
});
