import type { z } from 'zod';
import type { Checked, FieldProblem } from '../values.js';
import { proctorRoleRefusal } from '../lti/roles.js';
import { EXTENSION_ID, institutionSettingsSchema, type InstitutionSettings, type InstitutionSettingsInput } from './settings.js';

/**
 * Checks of institution settings shared by the admin console and the CLI. Each problem names the field
 * (console field names; the CLI maps them to its options) and the expected format.
 */
export const COLOUR_FORMAT = '6 hexadecimal digits like 0b5cad (a leading # is allowed)';
const COLOUR = /^#?([0-9a-fA-F]{6})$/;

const FIELD_LABELS: Record<string, string> = {
  primaryColor: 'Primary colour',
  secondaryColor: 'Secondary colour',
  domain: 'Exam domain',
  extensionAllowlist: 'Extension allowlist',
  proctorRoles: 'Proctor roles',
  teachingAssistantsMayEdit: 'Teaching assistants may edit',
  proctorSettings: 'Default proctor settings',
  preAuth: 'Pre-authentication URL',
  postAuth: 'Post-authentication URL',
};

/** The settings field a schema path belongs to, as named in FieldProblem.field. */
function fieldOf(path: readonly PropertyKey[]): string {
  const [first, second] = path.map(String);
  if (first === 'branding' && second === 'primary_color') return 'primaryColor';
  if (first === 'branding' && second === 'secondary_color') return 'secondaryColor';
  return first ?? 'settings';
}

export function fieldLabel(field: string): string {
  return FIELD_LABELS[field] ?? field;
}

/**
 * A colour as stored (six lowercase hex digits, no '#'); '' or undefined means none. Refuses anything
 * else with the expected format: "blue" is not a colour here.
 */
export function checkColour(field: 'primaryColor' | 'secondaryColor', value: string | undefined): Checked<string | undefined> {
  const text = value?.trim() ?? '';
  if (!text) return { ok: true, value: undefined };
  const match = COLOUR.exec(text);
  if (!match) return { ok: false, problems: [{ field, message: `${fieldLabel(field)} must be ${COLOUR_FORMAT}; got "${text.slice(0, 40)}".`, code: 'colour', values: { value: text.slice(0, 40) } }] };
  return { ok: true, value: match[1]!.toLowerCase() };
}

/** Learner roles cannot be proctor roles: students would proctor their own exams. */
export function isLearnerRole(role: string): boolean {
  return proctorRoleRefusal(role) === 'learner';
}

export function checkProctorRoles(roles: readonly string[]): Checked<string[]> {
  const cleaned = [...new Set(roles.map((role) => role.trim()).filter(Boolean))];
  const learners = cleaned.filter(isLearnerRole);
  if (learners.length > 0) {
    return {
      ok: false,
      problems: [{ field: 'proctorRoles', message: `${fieldLabel('proctorRoles')} must not include a learner role (${learners.join(', ')}): students would proctor exams. Choose staff roles such as Mentor or Instructor#TeachingAssistant.`, code: 'learnerRoles', values: { roles: learners.join(', ') } }],
    };
  }
  const notCourse = cleaned.filter((role) => proctorRoleRefusal(role) === 'notCourse');
  if (notCourse.length > 0) {
    return {
      ok: false,
      problems: [{ field: 'proctorRoles', message: `${fieldLabel('proctorRoles')} must be course roles: institution and system roles (${notCourse.join(', ')}) never grant rights in a course.`, code: 'notCourseRoles', values: { roles: notCourse.join(', ') } }],
    };
  }
  return { ok: true, value: cleaned };
}

export const EXTENSION_ID_FORMAT = "32 letters a–p (Chrome, Edge) or a Firefox add-on id such as name@example.org or a {GUID}";

/** Browser-extension ids, duplicates dropped; each wrong one is named with the expected format. */
export function checkExtensionAllowlist(ids: readonly string[]): Checked<string[]> {
  const cleaned = [...new Set(ids.map((id) => id.trim()).filter(Boolean))];
  const wrong = cleaned.filter((id) => !EXTENSION_ID.test(id));
  if (wrong.length > 0) {
    return {
      ok: false,
      problems: [{ field: 'extensionAllowlist', message: `${fieldLabel('extensionAllowlist')}: not browser-extension ids: ${wrong.map((id) => `"${id.slice(0, 100)}"`).join(', ')}. Each id must be ${EXTENSION_ID_FORMAT}.`, code: 'extensions', values: { ids: wrong.map((id) => `"${id.slice(0, 100)}"`).join(', ') } }],
    };
  }
  return { ok: true, value: cleaned };
}

function schemaProblems(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => {
    const field = fieldOf(issue.path);
    const label = fieldLabel(field);
    const where = issue.path.length > 1 && field !== 'primaryColor' && field !== 'secondaryColor' ? ` (${issue.path.slice(1).join('.')})` : '';
    return { field, message: `${label}${where}: ${issue.message}` };
  });
}

/** Every check of a whole settings document: colours normalised, learner roles refused, then the schema. */
export function checkInstitutionSettings(input: InstitutionSettingsInput): Checked<InstitutionSettings> {
  const problems: FieldProblem[] = [];
  const branding: Record<string, string> = {};
  for (const [field, key] of [['primaryColor', 'primary_color'], ['secondaryColor', 'secondary_color']] as const) {
    const checked = checkColour(field, input.branding?.[key]);
    if (!checked.ok) problems.push(...checked.problems);
    else if (checked.value) branding[key] = checked.value;
  }
  const roles = checkProctorRoles(input.proctorRoles ?? []);
  if (!roles.ok) problems.push(...roles.problems);
  const extensions = checkExtensionAllowlist(input.extensionAllowlist ?? []);
  if (!extensions.ok) problems.push(...extensions.problems);
  const candidate = {
    ...input,
    branding: { ...input.branding, ...branding },
    proctorRoles: roles.ok ? roles.value : input.proctorRoles,
    extensionAllowlist: extensions.ok ? extensions.value : input.extensionAllowlist,
  };
  for (const key of ['primary_color', 'secondary_color'] as const) if (!branding[key]) delete candidate.branding[key];
  const parsed = institutionSettingsSchema.safeParse(candidate);
  if (!parsed.success) {
    const known = new Set(problems.map((problem) => problem.field));
    problems.push(...schemaProblems(parsed.error).filter((problem) => !known.has(problem.field)));
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };
  return { ok: true, value: parsed.data };
}

/** Problems as lines for a terminal or a log: "field: message". */
export function describeProblems(problems: readonly FieldProblem[]): string {
  return problems.map((problem) => `  ${problem.message}`).join('\n');
}
