import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { propertyRuns } from '../../helpers/property-runs.js';
import {
  decideLaunchTarget,
  isCourseStaffRole,
  mapRoles,
  parseRole,
  proctorRoleRefusal,
  roleDisplay,
  roleKey,
  roleLabel,
  type LaunchTarget,
  type MapRolesInput,
  type ParsedRole,
  type RoleDecision,
} from '../../../src/lti/roles.js';

const M = 'http://purl.imsglobal.org/vocab/lis/v2/membership#';
const SUB = 'http://purl.imsglobal.org/vocab/lis/v2/membership/';
const INST = 'http://purl.imsglobal.org/vocab/lis/v2/institution/person#';
const SYS = 'http://purl.imsglobal.org/vocab/lis/v2/system/person#';
const TEST_USER = 'http://purl.imsglobal.org/vocab/lti/system/person#TestUser';

type Expected = Partial<Omit<RoleDecision, 'reason'>> & { kind: RoleDecision['kind']; reasonIncludes?: string };

interface Case {
  name: string;
  input: MapRolesInput;
  expected: Expected;
}

// Role sets as the platforms send them (Canvas: doc/api/canvas_roles.md; Moodle 5.1: observed launches).
const cases: Case[] = [
  {
    name: 'Canvas student',
    input: { roles: [`${M}Learner`, `${INST}Student`, `${SYS}User`] },
    expected: { kind: 'candidate', canEditSettings: false, canReview: false, canProctor: false, matched: [`${M}Learner`] },
  },
  {
    name: 'Canvas teacher',
    input: { roles: [`${M}Instructor`, `${INST}Instructor`, `${SYS}User`] },
    expected: { kind: 'instructor', canEditSettings: true, canReview: true, canProctor: true, isAdmin: false, matched: [`${M}Instructor`] },
  },
  {
    name: 'Canvas TA (Instructor + Instructor#TeachingAssistant), institution does not allow TAs to edit',
    input: { roles: [`${M}Instructor`, `${SUB}Instructor#TeachingAssistant`, `${INST}Student`, `${SYS}User`] },
    expected: {
      kind: 'instructor',
      canEditSettings: false,
      canReview: true,
      canProctor: true,
      matched: [`${SUB}Instructor#TeachingAssistant`],
      reasonIncludes: 'read-only',
    },
  },
  {
    name: 'Canvas TA, institution allows TAs to edit',
    input: { roles: [`${M}Instructor`, `${SUB}Instructor#TeachingAssistant`, `${SYS}User`], teachingAssistantsMayEdit: true },
    expected: { kind: 'instructor', canEditSettings: true, canReview: true, canProctor: true },
  },
  {
    name: 'Canvas TA sub-role with the lower-case path of old Canvas substitutions',
    input: { roles: [`${M}Instructor`, `${SUB}instructor#TeachingAssistant`] },
    expected: { kind: 'instructor', canEditSettings: false, canReview: true },
  },
  {
    name: 'Canvas designer (ContentDeveloper)',
    input: { roles: [`${M}ContentDeveloper`, `${INST}Instructor`, `${SYS}User`] },
    expected: { kind: 'instructor', canEditSettings: true, canReview: false, canProctor: false, matched: [`${M}ContentDeveloper`] },
  },
  {
    name: 'Canvas observer (Mentor)',
    input: { roles: [`${M}Mentor`, `${SYS}User`] },
    expected: { kind: 'none', matched: [`${M}Mentor`], reasonIncludes: 'observers cannot open proctored exams' },
  },
  {
    name: 'Canvas Student View (TestUser)',
    input: { roles: [`${M}Learner`, TEST_USER] },
    expected: { kind: 'candidate', isTestUser: true, canEditSettings: false, canReview: false, matched: [TEST_USER] },
  },
  {
    name: 'a test user is a candidate even with a staff role',
    input: { roles: [`${M}Instructor`, TEST_USER] },
    expected: { kind: 'candidate', isTestUser: true, canEditSettings: false, canReview: false, canProctor: false },
  },
  {
    name: 'Canvas account admin not enrolled in the course (institution Administrator only)',
    input: { roles: [`${INST}Administrator`, `${SYS}User`] },
    expected: { kind: 'none', isAdmin: false, matched: [], reasonIncludes: 'institution roles' },
  },
  {
    name: 'Canvas site admin (system SysAdmin)',
    input: { roles: [`${SYS}SysAdmin`, `${SYS}User`] },
    expected: { kind: 'instructor', isAdmin: true, canEditSettings: true, canReview: true, matched: [`${SYS}SysAdmin`] },
  },
  {
    name: 'faculty at the institution who is a Learner in this course',
    input: { roles: [`${M}Learner`, `${INST}Faculty`, `${INST}Instructor`] },
    expected: { kind: 'candidate', canEditSettings: false, canReview: false, canProctor: false, matched: [`${M}Learner`] },
  },
  {
    name: 'institution Faculty with no course role',
    input: { roles: [`${INST}Faculty`] },
    expected: { kind: 'none', reasonIncludes: 'institution Faculty' },
  },
  {
    name: 'Moodle student',
    input: { roles: [`${M}Learner`] },
    expected: { kind: 'candidate' },
  },
  {
    name: 'Moodle editing or non-editing teacher',
    input: { roles: [`${M}Instructor`] },
    expected: { kind: 'instructor', canEditSettings: true, canReview: true, canProctor: true, isAdmin: false },
  },
  {
    name: 'Moodle site admin (institution Administrator + Instructor + system Administrator)',
    input: { roles: [`${INST}Administrator`, `${M}Instructor`, `${SYS}Administrator`] },
    expected: { kind: 'instructor', isAdmin: true, canEditSettings: true, matched: [`${M}Instructor`, `${SYS}Administrator`] },
  },
  {
    name: 'system Administrator alone',
    input: { roles: [`${SYS}Administrator`] },
    expected: { kind: 'instructor', isAdmin: true, canEditSettings: true, canReview: true, canProctor: true },
  },
  {
    name: 'Brightspace course administrator (membership Administrator)',
    input: { roles: [`${M}Instructor`, `${M}Administrator`, `${INST}Instructor`, `${INST}Administrator`] },
    expected: { kind: 'instructor', isAdmin: false, canEditSettings: true, canReview: true },
  },
  {
    name: 'bare Instructor (short form)',
    input: { roles: ['Instructor'] },
    expected: { kind: 'instructor', canEditSettings: true, matched: ['Instructor'] },
  },
  {
    name: 'bare Learner (short form)',
    input: { roles: ['Learner'] },
    expected: { kind: 'candidate', matched: ['Learner'] },
  },
  {
    name: 'LTI 1.1 urn Instructor',
    input: { roles: ['urn:lti:role:ims/lis/Instructor'] },
    expected: { kind: 'instructor', canEditSettings: true },
  },
  {
    name: 'LTI 1.1 urn TeachingAssistant (Canvas TaEnrollment in LTI 1.1)',
    input: { roles: ['urn:lti:role:ims/lis/TeachingAssistant'] },
    expected: { kind: 'instructor', canEditSettings: false, canReview: true },
  },
  {
    name: 'LTI 1.1 urn observer (Learner/NonCreditLearner + Mentor)',
    input: { roles: ['urn:lti:role:ims/lis/Learner/NonCreditLearner', 'urn:lti:role:ims/lis/Mentor'] },
    expected: { kind: 'none', reasonIncludes: 'observers cannot open proctored exams' },
  },
  {
    name: 'LTI 1.1 urn institution Administrator only',
    input: { roles: ['urn:lti:instrole:ims/lis/Administrator'] },
    expected: { kind: 'none', isAdmin: false },
  },
  {
    name: 'LTI 1.1 Moodle site admin (Instructor + sysrole and instrole Administrator)',
    input: { roles: ['Instructor', 'urn:lti:sysrole:ims/lis/Administrator', 'urn:lti:instrole:ims/lis/Administrator'] },
    expected: { kind: 'instructor', isAdmin: true },
  },
  {
    name: 'an instructor sub-role that is not a TA is an instructor',
    input: { roles: [`${M}Instructor`, `${SUB}Instructor#PrimaryInstructor`] },
    expected: { kind: 'instructor', canEditSettings: true, matched: [`${SUB}Instructor#PrimaryInstructor`] },
  },
  {
    name: 'TA and designer in the same course: rights add up',
    input: { roles: [`${M}Instructor`, `${SUB}Instructor#TeachingAssistant`, `${M}ContentDeveloper`] },
    expected: { kind: 'instructor', canEditSettings: true, canReview: true, canProctor: true },
  },
  {
    name: 'a learner who is also a TA in the course opens the hub',
    input: { roles: [`${M}Learner`, `${M}Instructor`, `${SUB}Instructor#TeachingAssistant`] },
    expected: { kind: 'instructor', canEditSettings: false },
  },
  {
    name: 'a learner who is also an observer is refused',
    input: { roles: [`${M}Learner`, `${M}Mentor`] },
    expected: { kind: 'none' },
  },
  {
    name: 'group-only roles (Canvas group member) grant nothing',
    input: { roles: [`${M}Member`, `${M}Manager`] },
    expected: { kind: 'none' },
  },
  {
    name: 'empty roles',
    input: { roles: [] },
    expected: { kind: 'none', matched: [], reasonIncludes: 'no roles' },
  },
  {
    name: 'garbage only',
    input: { roles: ['', '   ', 'not a role', 'http://example.com/role', 'urn:x', '#', `${M}`, `${SUB}Instructor#`, `${M}Inst ructor`] },
    expected: { kind: 'none', matched: [] },
  },
  {
    name: 'garbage beside a real role is ignored',
    input: { roles: ['💥', 'http://example.com/role', `${M}Learner`, 'Instructor#TeachingAssistant#x'] },
    expected: { kind: 'candidate', matched: [`${M}Learner`] },
  },
  {
    name: 'https spelling of the vocabulary',
    input: { roles: ['https://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'] },
    expected: { kind: 'instructor' },
  },
  // Proctor roles named in the platform's settings.
  {
    name: 'no proctor roles by default',
    input: { roles: [`${SUB}Mentor#Reviewer`] },
    expected: { kind: 'none' },
  },
  {
    name: 'proctor role from settings (Mentor#Reviewer)',
    input: { roles: [`${M}Mentor`, `${SUB}Mentor#Reviewer`], proctorRoles: [`${SUB}Mentor#Reviewer`] },
    expected: { kind: 'proctor', canProctor: true, canReview: false, canEditSettings: false, matched: [`${SUB}Mentor#Reviewer`] },
  },
  {
    name: 'proctor role written as a short name in settings matches the full URI',
    input: { roles: [`${M}Mentor`], proctorRoles: ['Mentor'] },
    expected: { kind: 'proctor', canProctor: true },
  },
  {
    name: 'platform-specific proctor role from settings',
    input: { roles: ['https://lms.example.edu/roles#Proctor', `${INST}Staff`], proctorRoles: ['https://lms.example.edu/roles#Proctor'] },
    expected: { kind: 'proctor', canProctor: true, matched: ['https://lms.example.edu/roles#Proctor'] },
  },
  {
    name: 'an instructor may proctor too, and keeps the hub',
    input: { roles: [`${M}Instructor`, `${SUB}Mentor#Reviewer`], proctorRoles: [`${SUB}Mentor#Reviewer`] },
    expected: { kind: 'instructor', canProctor: true, canEditSettings: true },
  },
  {
    name: 'a designer who also holds a proctor role may proctor',
    input: { roles: [`${M}ContentDeveloper`, `${SUB}Mentor#Reviewer`], proctorRoles: [`${SUB}Mentor#Reviewer`] },
    expected: { kind: 'instructor', canProctor: true, canReview: false },
  },
  {
    name: 'Learner configured as a proctor role never makes students proctors',
    input: { roles: [`${M}Learner`], proctorRoles: [`${M}Learner`, 'Learner', `${SUB}Learner#NonCreditLearner`] },
    expected: { kind: 'candidate', canProctor: false },
  },
  {
    name: 'Canvas custom "Proctor" course role based on Designer (sent as ContentDeveloper), named a proctor role',
    input: { roles: [`${M}ContentDeveloper`, `${SYS}User`], proctorRoles: [`${M}ContentDeveloper`] },
    expected: { kind: 'proctor', canProctor: true, canReview: false, canEditSettings: false, matched: [`${M}ContentDeveloper`] },
  },
  {
    name: 'Canvas TA-based proctor role: Instructor + Instructor#TeachingAssistant with the TA sub-role named a proctor role',
    input: { roles: [`${M}Instructor`, `${SUB}Instructor#TeachingAssistant`, `${SYS}User`], proctorRoles: [`${SUB}Instructor#TeachingAssistant`] },
    expected: { kind: 'proctor', canProctor: true, canReview: false, canEditSettings: false },
  },
  {
    name: 'Moodle with Instructor named a proctor role: its teachers (editing or not) launch as proctors',
    input: { roles: [`${M}Instructor`], proctorRoles: ['Instructor'] },
    expected: { kind: 'proctor', canProctor: true, canEditSettings: false },
  },
  {
    name: 'Moodle site admin keeps the hub even when Instructor is a proctor role',
    input: { roles: [`${INST}Administrator`, `${M}Instructor`, `${SYS}Administrator`], proctorRoles: ['Instructor'] },
    expected: { kind: 'instructor', isAdmin: true, canEditSettings: true, canProctor: true },
  },
  {
    name: 'a teacher whose Instructor role is not a proctor role stays an instructor beside a proctor role',
    input: { roles: [`${M}Instructor`, `${M}ContentDeveloper`], proctorRoles: [`${M}ContentDeveloper`] },
    expected: { kind: 'instructor', canEditSettings: true, canReview: true, canProctor: true },
  },
  {
    name: 'a TA is not a proctor because its principal Instructor is named (the sub-role decides)',
    input: { roles: [`${M}Instructor`, `${SUB}Instructor#TeachingAssistant`], proctorRoles: ['Instructor'] },
    expected: { kind: 'instructor', canEditSettings: false, canReview: true, canProctor: true },
  },
  {
    name: 'a TA sub-role sent in the short form is still a TA (settings read-only), not a full instructor',
    input: { roles: ['Instructor', 'Instructor#TeachingAssistant'] },
    expected: { kind: 'instructor', canEditSettings: false, canReview: true, canProctor: true, matched: ['Instructor#TeachingAssistant'] },
  },
  {
    name: 'a proctor role named in the short sub-role form matches the full URI Canvas sends',
    input: { roles: [`${M}Instructor`, `${SUB}Instructor#TeachingAssistant`, `${SYS}User`], proctorRoles: ['Instructor#TeachingAssistant'] },
    expected: { kind: 'proctor', canProctor: true, canReview: false, canEditSettings: false, matched: [`${SUB}Instructor#TeachingAssistant`] },
  },
  {
    name: 'an institution role configured as a proctor role grants nothing',
    input: { roles: [`${INST}Staff`], proctorRoles: [`${INST}Staff`] },
    expected: { kind: 'none', canProctor: false },
  },
];

describe('mapRoles', () => {
  for (const { name, input, expected } of cases) {
    it(name, () => {
      const decision = mapRoles(input);
      const { reasonIncludes, ...fields } = expected;
      for (const [field, value] of Object.entries(fields)) {
        assert.deepEqual(decision[field as keyof RoleDecision], value, `${field} (reason: ${decision.reason})`);
      }
      if (reasonIncludes) assert.ok(decision.reason.includes(reasonIncludes), decision.reason);
      assert.ok(decision.reason.length > 0);
    });
  }

  it('never throws and only reports role strings it received', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(`${M}Learner`, `${M}Instructor`, TEST_USER, `${SYS}Administrator`))), (roles) => {
        const decision = mapRoles({ roles, proctorRoles: roles.slice(0, 2) });
        assert.ok(decision.matched.every((role) => roles.includes(role)));
        assert.equal(typeof decision.reason, 'string');
        if (decision.kind === 'candidate' || decision.kind === 'none') {
          assert.equal(decision.canEditSettings, false);
          assert.equal(decision.canReview, false);
        }
      }),
      { numRuns: propertyRuns(100) },
    );
  });
});

describe('parseRole', () => {
  const table: [string, ParsedRole][] = [
    [`${M}Instructor`, { scope: 'membership', principal: 'Instructor' }],
    [`${SUB}Instructor#TeachingAssistant`, { scope: 'membership', principal: 'Instructor', subRole: 'TeachingAssistant' }],
    [`${SUB}instructor#TeachingAssistant`, { scope: 'membership', principal: 'Instructor', subRole: 'TeachingAssistant' }],
    [`${INST}Faculty`, { scope: 'institution', principal: 'Faculty' }],
    [`${SYS}Administrator`, { scope: 'system', principal: 'Administrator' }],
    [TEST_USER, { scope: 'system', principal: 'TestUser' }],
    ['Instructor', { scope: 'membership', principal: 'Instructor' }],
    ['  Learner  ', { scope: 'membership', principal: 'Learner' }],
    ['urn:lti:role:ims/lis/Instructor', { scope: 'membership', principal: 'Instructor' }],
    ['urn:lti:role:ims/lis/Learner/NonCreditLearner', { scope: 'membership', principal: 'Learner', subRole: 'NonCreditLearner' }],
    ['urn:lti:instrole:ims/lis/Administrator', { scope: 'institution', principal: 'Administrator' }],
    ['urn:lti:sysrole:ims/lis/SysAdmin', { scope: 'system', principal: 'SysAdmin' }],
    ['http://purl.imsglobal.org/vocab/lis/v2/person#Administrator', { scope: 'unknown', principal: 'Administrator' }],
    ['', { scope: 'unknown', principal: '' }],
    ['not a role', { scope: 'unknown', principal: 'not a role' }],
    ['http://example.com/role#Instructor', { scope: 'unknown', principal: 'http://example.com/role#Instructor' }],
    [`${SUB}Instructor#`, { scope: 'unknown', principal: `${SUB}Instructor#` }],
    ['Instructor#TeachingAssistant', { scope: 'membership', principal: 'Instructor', subRole: 'TeachingAssistant' }],
    ['Instructor#TeachingAssistant#x', { scope: 'unknown', principal: 'Instructor#TeachingAssistant#x' }],
    ['#TeachingAssistant', { scope: 'unknown', principal: '#TeachingAssistant' }],
  ];
  for (const [role, expected] of table) {
    it(`parses ${JSON.stringify(role)}`, () => assert.deepEqual(parseRole(role), expected));
  }

  it('gives one key to the URI, the short name and the LTI 1.1 urn of a role', () => {
    assert.equal(roleKey(`${M}Instructor`), roleKey('Instructor'));
    assert.equal(roleKey('Instructor'), roleKey('urn:lti:role:ims/lis/Instructor'));
    assert.notEqual(roleKey(`${M}Administrator`), roleKey(`${INST}Administrator`));
    assert.notEqual(roleKey(`${INST}Administrator`), roleKey(`${SYS}Administrator`));
    assert.equal(roleKey('Instructor#TeachingAssistant'), roleKey(`${SUB}Instructor#TeachingAssistant`));
    assert.notEqual(roleKey('Instructor#TeachingAssistant'), roleKey('Instructor'));
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (role) => void parseRole(role)), { numRuns: propertyRuns(100) });
  });
});

describe('decideLaunchTarget', () => {
  const student = mapRoles({ roles: [`${M}Learner`] });
  const teacher = mapRoles({ roles: [`${M}Instructor`] });
  const designer = mapRoles({ roles: [`${M}ContentDeveloper`] });
  const proctor = mapRoles({ roles: [`${SUB}Mentor#Reviewer`], proctorRoles: [`${SUB}Mentor#Reviewer`] });
  const observer = mapRoles({ roles: [`${M}Mentor`] });
  const testUser = mapRoles({ roles: [`${M}Learner`, TEST_USER] });

  const table: [string, RoleDecision, boolean, string | undefined, LaunchTarget][] = [
    ['student on an exam link', student, true, undefined, 'candidate-launch'],
    ['test user on an exam link', testUser, true, undefined, 'candidate-launch'],
    ['instructor on an exam link', teacher, true, undefined, 'instructor-hub'],
    ['designer on an exam link', designer, true, undefined, 'instructor-hub'],
    ['proctor on an exam link', proctor, true, undefined, 'live-launch'],
    ['observer on an exam link', observer, true, undefined, 'forbidden'],
    ['instructor in Canvas course navigation', teacher, true, 'course_navigation', 'launchpad'],
    ['proctor in Canvas course navigation', proctor, true, 'course_navigation', 'launchpad'],
    ['student in Canvas course navigation', student, true, 'course_navigation', 'student-exam-list'],
    ['observer in Canvas course navigation', observer, true, 'course_navigation', 'forbidden'],
    ['designer in course navigation (cannot proctor)', designer, true, 'course_navigation', 'forbidden'],
    ['instructor on a link with custom placement=launchpad', teacher, true, 'launchpad', 'launchpad'],
    ['student on a link with custom placement=launchpad', student, true, 'launchpad', 'student-exam-list'],
    ['instructor on a course-level launch without a resource link', teacher, false, undefined, 'launchpad'],
    ['student on a course-level launch without a resource link', student, false, undefined, 'student-exam-list'],
    ['instructor from another placement on an exam link', teacher, true, 'assignment_selection', 'instructor-hub'],
    ['placement compared without case or spaces', teacher, true, ' Course_Navigation ', 'launchpad'],
    ['test user in course navigation gets the exam list', testUser, true, 'course_navigation', 'student-exam-list'],
    ['Canvas designer-based proctor (ContentDeveloper named) on an exam link', mapRoles({ roles: [`${M}ContentDeveloper`], proctorRoles: [`${M}ContentDeveloper`] }), true, undefined, 'live-launch'],
    ['TA on an exam link', mapRoles({ roles: [`${M}Instructor`, `${SUB}Instructor#TeachingAssistant`] }), true, undefined, 'instructor-hub'],
    ['TA in course navigation (may proctor)', mapRoles({ roles: [`${M}Instructor`, `${SUB}Instructor#TeachingAssistant`] }), true, 'course_navigation', 'launchpad'],
    ['system admin in course navigation', mapRoles({ roles: [`${SYS}SysAdmin`] }), true, 'course_navigation', 'launchpad'],
  ];
  for (const [name, decision, hasResourceLink, placement, expected] of table) {
    it(name, () => assert.equal(decideLaunchTarget({ decision, hasResourceLink, placement }), expected));
  }
});

describe('isCourseStaffRole', () => {
  it('names the Names and Roles roles of people who teach or build the course, in URI and short form', () => {
    for (const role of ['Instructor', 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor', 'http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant', 'ContentDeveloper', 'Administrator']) {
      assert.equal(isCourseStaffRole(role), true, role);
    }
    for (const role of ['Learner', 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner', 'Mentor', 'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor', 'http://purl.imsglobal.org/vocab/lti/system/person#TestUser', 'Member', '']) {
      assert.equal(isCourseStaffRole(role), false, role);
    }
  });
});

// Whole decisions, sentence and reason-as-data included, written out by hand: the troubleshooting panel shows the
// sentence to administrators, and the hub words its explanation from `why`.
describe('mapRoles: the whole decision', () => {
  const none = { canEditSettings: false, canReview: false, canProctor: false, isTestUser: false, isAdmin: false };
  const full = { canEditSettings: true, canReview: true, canProctor: true, isTestUser: false, isAdmin: false };
  const table: [string, MapRolesInput, RoleDecision][] = [
    ['test user', { roles: [`${M}Learner`, TEST_USER] }, {
      kind: 'candidate', ...none, isTestUser: true, matched: [TEST_USER],
      reason: 'LMS test user (such as Canvas Student View): opens exams as a candidate, attempts marked as tests.',
      why: { kind: 'testUser' },
    }],
    ['teacher', { roles: [`${M}Instructor`, `${INST}Instructor`, `${SYS}User`] }, {
      kind: 'instructor', ...full, matched: [`${M}Instructor`],
      reason: 'Instructor (Instructor): instructor hub.',
      why: { kind: 'staff', staff: ['instructor'], roles: ['Instructor'], settingsReadOnly: false, noReviewOrLive: false },
    }],
    ['teaching assistant who may not edit', { roles: [`${M}Instructor`, `${SUB}Instructor#TeachingAssistant`] }, {
      kind: 'instructor', ...full, canEditSettings: false, matched: [`${SUB}Instructor#TeachingAssistant`],
      reason: 'Teaching assistant (Instructor#TeachingAssistant): instructor hub (read-only: teaching assistants at this institution may not change exam settings).',
      why: { kind: 'staff', staff: ['teachingAssistant'], roles: ['Instructor#TeachingAssistant'], settingsReadOnly: true, noReviewOrLive: false },
    }],
    ['teacher and designer', { roles: [`${M}Instructor`, `${M}ContentDeveloper`] }, {
      kind: 'instructor', ...full, matched: [`${M}Instructor`, `${M}ContentDeveloper`],
      reason: 'Instructor and content developer (Instructor, ContentDeveloper): instructor hub.',
      why: { kind: 'staff', staff: ['instructor', 'contentDeveloper'], roles: ['Instructor', 'ContentDeveloper'], settingsReadOnly: false, noReviewOrLive: false },
    }],
    ['designer', { roles: [`${M}ContentDeveloper`] }, {
      kind: 'instructor', ...none, canEditSettings: true, matched: [`${M}ContentDeveloper`],
      reason: 'Content developer (ContentDeveloper): instructor hub (may not open the review center or monitor exams live).',
      why: { kind: 'staff', staff: ['contentDeveloper'], roles: ['ContentDeveloper'], settingsReadOnly: false, noReviewOrLive: true },
    }],
    ['designer who is also a named proctor', { roles: [`${M}ContentDeveloper`, `${SUB}Mentor#Reviewer`], proctorRoles: [`${SUB}Mentor#Reviewer`] }, {
      kind: 'instructor', ...none, canEditSettings: true, canProctor: true, matched: [`${M}ContentDeveloper`, `${SUB}Mentor#Reviewer`],
      reason: 'Content developer (ContentDeveloper, Mentor#Reviewer): instructor hub.',
      why: { kind: 'staff', staff: ['contentDeveloper'], roles: ['ContentDeveloper', 'Mentor#Reviewer'], settingsReadOnly: false, noReviewOrLive: false },
    }],
    ['course administrator', { roles: [`${M}Administrator`] }, {
      kind: 'instructor', ...full, matched: [`${M}Administrator`],
      reason: 'Course administrator (Administrator): instructor hub.',
      why: { kind: 'staff', staff: ['courseAdministrator'], roles: ['Administrator'], settingsReadOnly: false, noReviewOrLive: false },
    }],
    ['LMS system administrator', { roles: [`${SYS}Administrator`] }, {
      kind: 'instructor', ...full, isAdmin: true, matched: [`${SYS}Administrator`],
      reason: 'LMS system administrator (system Administrator): instructor hub.',
      why: { kind: 'staff', staff: ['systemAdministrator'], roles: ['system Administrator'], settingsReadOnly: false, noReviewOrLive: false },
    }],
    ['named proctor', { roles: [`${SUB}Mentor#Reviewer`], proctorRoles: [`${SUB}Mentor#Reviewer`] }, {
      kind: 'proctor', ...none, canProctor: true, matched: [`${SUB}Mentor#Reviewer`],
      reason: 'Proctor role from the platform settings (Mentor#Reviewer): may monitor exams live and open the launchpad.',
      why: { kind: 'proctor', roles: ['Mentor#Reviewer'] },
    }],
    ['observer', { roles: [`${M}Mentor`] }, {
      kind: 'none', ...none, matched: [`${M}Mentor`],
      reason: 'Observer (Mentor): observers cannot open proctored exams.',
      why: { kind: 'observer', roles: ['Mentor'] },
    }],
    ['observer written as a Manager sub-role', { roles: [`${SUB}Manager#Observer`, `${SUB}Manager#ExternalObserver`] }, {
      kind: 'none', ...none, matched: [`${SUB}Manager#Observer`, `${SUB}Manager#ExternalObserver`],
      reason: 'Observer (Manager#Observer, Manager#ExternalObserver): observers cannot open proctored exams.',
      why: { kind: 'observer', roles: ['Manager#Observer', 'Manager#ExternalObserver'] },
    }],
    ['learner', { roles: [`${M}Learner`, `${INST}Student`, `${SYS}User`] }, {
      kind: 'candidate', ...none, matched: [`${M}Learner`],
      reason: 'Learner in this course (Learner): opens exams as a candidate.',
      why: { kind: 'learner', roles: ['Learner'] },
    }],
    ['no roles', { roles: [] }, {
      kind: 'none', ...none, matched: [],
      reason: 'The launch carried no roles, so no access to proctored exams.',
      why: { kind: 'noRoles' },
    }],
    ['only empty role strings and a value that is not a string', { roles: ['', '  ', 5 as unknown as string] }, {
      kind: 'none', ...none, matched: [],
      reason: 'The launch carried no roles, so no access to proctored exams.',
      why: { kind: 'noRoles' },
    }],
    ['institution roles only', { roles: [`${INST}Faculty`, `${SYS}User`] }, {
      kind: 'none', ...none, matched: [],
      reason: 'No course role that opens proctored exams; institution roles (institution Faculty) never grant rights in a course.',
      why: { kind: 'institutionOnly', roles: ['institution Faculty'] },
    }],
    ['no course role that opens exams', { roles: [`${M}Member`, `${SYS}User`] }, {
      kind: 'none', ...none, matched: [],
      reason: 'No course role that opens proctored exams among the roles received (Member, system User).',
      why: { kind: 'noCourseRole', roles: ['Member', 'system User'] },
    }],
  ];
  for (const [name, input, expected] of table) {
    it(name, () => assert.deepEqual(mapRoles(input), expected));
  }

  it('every teaching-assistant sub-role, and the LTI 1.1 principal, is a teaching assistant', () => {
    const roles = [
      `${SUB}Instructor#TeachingAssistant`, `${SUB}Instructor#TeachingAssistantGroup`, `${SUB}Instructor#TeachingAssistantOffering`,
      `${SUB}Instructor#TeachingAssistantSection`, `${SUB}Instructor#TeachingAssistantSectionAssociation`,
      `${SUB}Instructor#TeachingAssistantTemplate`, `${SUB}Instructor#Grader`, 'TeachingAssistant',
    ];
    for (const role of roles) {
      const decision = mapRoles({ roles: [role] });
      assert.deepEqual([decision.kind, decision.canEditSettings, decision.canReview, decision.why], ['instructor', false, true, {
        kind: 'staff', staff: ['teachingAssistant'], roles: [roleLabel(parseRole(role))], settingsReadOnly: true, noReviewOrLive: false,
      }], role);
    }
  });

  it('a staff role stays staff while one of its roles is not a named proctor role', () => {
    const roles = [`${SUB}Instructor#TeachingAssistant`, 'TeachingAssistant'];
    assert.equal(mapRoles({ roles, proctorRoles: ['Instructor#TeachingAssistant'] }).kind, 'instructor');
    assert.equal(mapRoles({ roles, proctorRoles: ['Instructor#TeachingAssistant', 'TeachingAssistant'] }).kind, 'proctor');
  });
});

describe('role names', () => {
  it('every name the tool acts on gets its canonical spelling, whatever the case received', () => {
    const names: [string, string[]][] = [
      [M, ['Administrator', 'ContentDeveloper', 'Instructor', 'Learner', 'Mentor', 'Manager', 'Member', 'Officer', 'TeachingAssistant',
        'TeachingAssistantGroup', 'TeachingAssistantOffering', 'TeachingAssistantSection', 'TeachingAssistantSectionAssociation',
        'TeachingAssistantTemplate', 'Grader', 'Observer', 'ExternalObserver']],
      [INST, ['Administrator', 'Faculty', 'Instructor', 'Learner', 'Staff', 'Student']],
      [SYS, ['Administrator', 'SysAdmin', 'TestUser', 'User', 'None']],
    ];
    for (const [prefix, known] of names) {
      for (const name of known) assert.equal(parseRole(`${prefix}${name.toLowerCase()}`).principal, name, `${prefix}${name}`);
    }
  });

  const table: [string, ParsedRole][] = [
    [`${M}Learner/NonCreditLearner`, { scope: 'membership', principal: 'Learner', subRole: 'NonCreditLearner' }],
    [`${M}Learner extra`, { scope: 'unknown', principal: `${M}Learner extra` }],
    [`${SUB}Instructor#TeachingAssistant#x`, { scope: 'unknown', principal: `${SUB}Instructor#TeachingAssistant#x` }],
    [`${SUB}Instructor#Teaching Assistant`, { scope: 'unknown', principal: `${SUB}Instructor#Teaching Assistant` }],
    ['https://purl.imsglobal.org/vocab/lis/v2/membership#Instructor', { scope: 'membership', principal: 'Instructor' }],
    [5 as unknown as string, { scope: 'unknown', principal: '' }],
  ];
  for (const [role, expected] of table) {
    it(`parses ${JSON.stringify(role)}`, () => assert.deepEqual(parseRole(role), expected));
  }

  it('keys an unrecognised string by its trimmed text', () => {
    assert.equal(roleKey('not a role'), 'unknown:not a role');
    assert.equal(roleKey('  not a role  '), 'unknown:not a role');
    assert.equal(roleKey(5 as unknown as string), 'unknown:');
    assert.equal(roleKey(`${SUB}Instructor#TeachingAssistant`), 'membership:Instructor#TeachingAssistant');
  });

  it('labels a role for explanations', () => {
    assert.equal(roleLabel({ scope: 'membership', principal: 'Instructor', subRole: 'TeachingAssistant' }), 'Instructor#TeachingAssistant');
    assert.equal(roleLabel({ scope: 'institution', principal: 'Faculty' }), 'institution Faculty');
    assert.equal(roleLabel({ scope: 'unknown', principal: '' }), 'unknown (empty)');
  });

  const displays: [string, ReturnType<typeof roleDisplay>][] = [
    [`${M}Instructor`, { group: 'course', name: 'Instructor' }],
    [`${SUB}Instructor#TeachingAssistant`, { group: 'course', name: 'TeachingAssistant (Instructor)' }],
    [`${INST}Faculty`, { group: 'institution', name: 'Faculty' }],
    [TEST_USER, { group: 'system', name: 'TestUser' }],
    ['  not a role ', { group: 'other', name: 'not a role' }],
    ['   ', { group: 'other', name: '' }],
  ];
  for (const [role, expected] of displays) {
    it(`shows ${JSON.stringify(role)} without its vocabulary`, () => assert.deepEqual(roleDisplay(role), expected));
  }
});

describe('proctorRoleRefusal', () => {
  const table: [string, ReturnType<typeof proctorRoleRefusal>][] = [
    [`${M}Learner`, 'learner'],
    [`${M}Learner/NonCreditLearner`, 'learner'],
    [`${SUB}Instructor#Learner`, 'learner'],
    [`${INST}Student`, 'learner'],
    ['Student', undefined],
    [`${SYS}Student`, 'notCourse'],
    [`${INST}Faculty`, 'notCourse'],
    ['urn:lti:instrole:ims/lis/Staff', 'notCourse'],
    [`${SYS}Administrator`, 'notCourse'],
    [TEST_USER, 'notCourse'],
    ['http://purl.imsglobal.org/vocab/lis/v2/person#Administrator', 'notCourse'],
    ['  https://purl.imsglobal.org/vocab/lis/v2/person#Administrator', 'notCourse'],
    ['x http://purl.imsglobal.org/vocab/lis/v2/person#Administrator', undefined],
    [`${M}Instructor`, undefined],
    [`${SUB}Instructor#TeachingAssistant`, undefined],
    ['Proctor', undefined],
  ];
  for (const [role, expected] of table) {
    it(`${JSON.stringify(role)}: ${expected ?? 'may be a proctor role'}`, () => assert.equal(proctorRoleRefusal(role), expected));
  }
});

describe('decideLaunchTarget: decisions mapRoles does not make', () => {
  it('refuses a decision of no kind even where it says it may proctor, and a proctor who may not', () => {
    assert.equal(decideLaunchTarget({ decision: { kind: 'none', canProctor: true }, hasResourceLink: false }), 'forbidden');
    assert.equal(decideLaunchTarget({ decision: { kind: 'proctor', canProctor: false }, hasResourceLink: true }), 'forbidden');
  });
});
