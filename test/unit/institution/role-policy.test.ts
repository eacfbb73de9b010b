import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asNamedProctor, asNonEditingTeacher, decideCourseRoles, decideRoles, type PolicyLaunch } from '../../../src/institution/role-policy.js';
import type { InstitutionSettings } from '../../../src/institution/settings.js';

const INSTRUCTOR = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor';
const SYSTEM_ADMIN = 'http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator';
const settings = (teachingAssistantsMayEdit: boolean) => ({ proctorRoles: [], teachingAssistantsMayEdit }) as unknown as InstitutionSettings;
const launch = (roles: string[], platformFamily = 'moodle'): PolicyLaunch => ({ issuer: 'https://moodle.example.edu', clientId: 'c', deploymentId: '1', context: { id: '7' }, roles, userSub: '5', platformFamily });

describe('role policy: the course names proctors, Moodle non-editing teachers', () => {
  it('a named proctor monitors live only; an LMS administrator keeps the hub', () => {
    const named = asNamedProctor(decideRoles({ roles: [INSTRUCTOR] }, settings(true)));
    assert.deepEqual([named.kind, named.canProctor, named.canEditSettings, named.canReview], ['proctor', true, false, false]);
    assert.equal(named.why.kind, 'namedProctor');
    const admin = decideRoles({ roles: [INSTRUCTOR, SYSTEM_ADMIN] }, settings(false));
    assert.equal(asNamedProctor(admin).kind, 'instructor');
  });

  it('a plain Instructor listed as a learner is a teaching assistant: "teaching assistants may edit" decides', () => {
    assert.equal(asNonEditingTeacher({ roles: [INSTRUCTOR] }, settings(false)).canEditSettings, false);
    assert.equal(asNonEditingTeacher({ roles: [INSTRUCTOR] }, settings(true)).canEditSettings, true);
    assert.deepEqual(asNonEditingTeacher({ roles: [INSTRUCTOR] }, settings(false)).matched, [INSTRUCTOR], 'the roles received, as received');
  });

  it('asks the roster only for a plain Moodle teacher, and keeps the teacher without a roster', async () => {
    let asked = 0;
    const listing = (answer: 'staff' | 'learner' | undefined) => async () => {
      asked++;
      return answer;
    };
    assert.equal((await decideCourseRoles(launch([INSTRUCTOR]), settings(false), { listing: listing('learner') })).canEditSettings, false);
    assert.equal((await decideCourseRoles(launch([INSTRUCTOR]), settings(false), { listing: listing('staff') })).canEditSettings, true);
    assert.equal((await decideCourseRoles(launch([INSTRUCTOR]), settings(false), { listing: listing(undefined) })).canEditSettings, true);
    const before = asked;
    assert.equal((await decideCourseRoles(launch([INSTRUCTOR], 'canvas'), settings(false), { listing: listing('learner') })).canEditSettings, true);
    assert.equal(asked, before, 'a Canvas teacher is not looked up');
  });

  it('a named proctor wins over the roster', async () => {
    const decision = await decideCourseRoles(launch([INSTRUCTOR]), settings(true), { courseStaff: { isNamedProctor: async () => true }, userIdOf: () => 'u', listing: async () => 'staff' });
    assert.equal(decision.kind, 'proctor');
  });
});
