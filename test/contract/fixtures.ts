import type { Endpoint } from './launch-api-checker.js';

/**
 * Request bodies written by hand from docs/launch-api.md: good ones follow every rule, bad ones break exactly
 * the named rule (`rule` at `path`), with the words of the document that forbid them.
 */

/** All 30 exam_settings members, every one off. */
const SETTINGS_OFF = {
  record_video: false, record_audio: false, record_screen: false, record_web_traffic: false, record_desk: 0,
  verify_video: false, verify_audio: false, verify_desktop: false, verify_id: 0, verify_signature: false,
  full_screen: 0, disable_clipboard: false, tabs: 0, close_tabs: false, one_screen: false, disable_printing: false,
  block_downloads: false, clear_cache: false, disable_right_click: false, calculator: 0, whiteboard: false,
  disable_extensions: false, live_proctor: false, mobile: false, advanced_program_detection: false,
  advanced_hardware_detection: false, advanced_vm_detection: false, allowed_macos_apps: [], allowed_windows_apps: [],
  strict_apps_validation: 0,
};

/** A locked-down exam whose prerequisites are all met. */
const SETTINGS_STRICT = {
  ...SETTINGS_OFF,
  record_video: true, record_audio: true, record_screen: true, verify_video: true, verify_audio: true, verify_desktop: true,
  record_desk: 1, verify_id: 2, full_screen: 3, close_tabs: true, one_screen: true, tabs: 1, live_proctor: true, calculator: 3,
  advanced_program_detection: true, allowed_macos_apps: ['com.apple.calculator'],
  allowed_windows_apps: [{ binary_name: 'calc.exe', product_name: 'Calculator', company_name: 'Microsoft' }], strict_apps_validation: 1,
};

const CANDIDATE = {
  launch_url: 'https://lms.example.edu/mod/quiz/view.php?id=7',
  exam_start: '^https://lms\\.example\\.edu/mod/quiz/view\\.php\\?id=7$',
  exam_take: '^https://lms\\.example\\.edu/mod/quiz/attempt\\.php.*',
  exam_end: '^https://lms\\.example\\.edu/mod/quiz/review\\.php.*',
  exam_settings: SETTINGS_OFF,
  user_id: 'c0ffee-42',
};

const REVIEWER = { user_id: 'teacher-1', exam_settings: SETTINGS_OFF };

export interface GoodFixture { name: string; endpoint: Endpoint; body: Record<string, unknown> }
export interface BadFixture extends GoodFixture { rule: string; path: string; because: string }

export const GOOD: readonly GoodFixture[] = [
  { name: 'candidate: the required minimum', endpoint: 'candidate', body: CANDIDATE },
  {
    name: 'candidate: every optional field',
    endpoint: 'candidate',
    body: {
      ...CANDIDATE, exam_settings: SETTINGS_STRICT, expire: 18000, pre_auth: 'https://lms.example.edu/login', post_auth: 'https://lms.example.edu/my',
      pre_auth_bypass: false, redirect_url: 'https://tool.example.edu/r/1',
      redirect_settings: { graceful_submission_url: 'https://tool.example.edu/r/1/ok', ungraceful_submission_url: 'https://tool.example.edu/r/1/ended' },
      attempt_id: 'attempt-1', display_name: 'Ada Lovelace', extension_allowlist_url: 'https://tool.example.edu/allow',
      break_settings: { number: 10, duration: 30, cumulative: true, on_time_exceeded: 1, desk_scan_after_break: true },
      branding: { primary_color: '1A73e8', secondary_color: 'ffffff', logo_url: 'https://tool.example.edu/logo.png' },
      domain: 'exams.example.edu', exam_tag: 'midterm-7', section_id: 'sec-1', roster_url: 'https://tool.example.edu/roster',
    },
  },
  { name: 'candidate: single-page exam posts its state', endpoint: 'candidate', body: { ...CANDIDATE, exam_take: 'post_message_nofication', exam_end: 'post_message_nofication' } },
  { name: 'candidate: mobile with pre_auth', endpoint: 'candidate', body: { ...CANDIDATE, exam_settings: { ...SETTINGS_OFF, mobile: true }, pre_auth: 'https://lms.example.edu/login' } },
  { name: 'reviewer: the required minimum', endpoint: 'reviewer', body: REVIEWER },
  {
    name: 'reviewer: every listed field',
    endpoint: 'reviewer',
    body: {
      ...REVIEWER, expire: 3600, domain: 'exams.example.edu', branding: { primary_color: '000000' }, exam_tag: 'midterm-7', section_id: 's', roster_url: 'https://tool.example.edu/roster',
      behavior_settings: { frame_metrics: { navigating_away: 5, leaving_room: 0 }, exam_metrics: { exam_collusion: true, mouse_movement: false } },
    },
  },
  { name: 'live: the required minimum', endpoint: 'live', body: { user_id: 'proctor-1' } },
  {
    name: 'live: every listed field',
    endpoint: 'live',
    body: { user_id: 'proctor-1', expire: 1, exam_name: 'Midterm', proctor_settings: { break_allowed: true, desk_scan_allowed: false, interrupt_allowed: true, kickout_allowed: false }, exam_tag: 't', section_id: 's', roster_url: 'https://tool.example.edu/roster' },
  },
  { name: 'launchpad: the required minimum', endpoint: 'launchpad', body: { user_id: 'proctor-1', exam_roster: 'https://tool.example.edu/exams' } },
  { name: 'subscribe: type and client', endpoint: 'subscribe', body: { type: '1', version: '3', client: { url: 'https://tool.example.edu/hook', key: 'k' } } },
];

const bad = (name: string, endpoint: Endpoint, body: Record<string, unknown>, path: string, rule: string, because: string): BadFixture => ({ name, endpoint, body, path, rule, because });
const settings = (change: Record<string, unknown>) => ({ ...CANDIDATE, exam_settings: { ...SETTINGS_OFF, ...change } });
const { user_id: _userId, ...candidateWithoutUser } = CANDIDATE;
const { exam_settings: _settings, ...reviewerWithoutSettings } = REVIEWER;

export const BAD: readonly BadFixture[] = [
  bad('candidate without user_id', 'candidate', candidateWithoutUser, 'user_id', 'required', 'Required minimum bodies: "candidate launch needs launch_url, exam_start, exam_take, exam_end, user_id, exam_settings"'),
  bad('reviewer without exam_settings', 'reviewer', reviewerWithoutSettings, 'exam_settings', 'required', 'Required minimum bodies: "Reviewer launch needs user_id and exam_settings"'),
  bad('launchpad without exam_roster', 'launchpad', { user_id: 'p' }, 'exam_roster', 'required', 'Required minimum bodies: "Launchpad needs user_id and exam_roster"'),
  bad('subscribe without client', 'subscribe', { type: '1' }, 'client', 'required', 'Required minimum bodies: "Subscribe needs type and client"'),
  bad('user_id with an underscore', 'live', { user_id: 'proctor_1' }, 'user_id', 'pattern', 'user_id: "matching ^[a-zA-Z0-9-]*$"'),
  bad('user_id of 37 characters', 'live', { user_id: 'a'.repeat(37) }, 'user_id', 'length', 'Limits: "user_id, attempt_id: 1 to 36 characters"'),
  bad('candidate expire above 18000', 'candidate', { ...CANDIDATE, expire: 18001 }, 'expire', 'range', 'expire: "Candidate: default 18000, range 1 to 18000"'),
  bad('reviewer expire above 3600', 'reviewer', { ...REVIEWER, expire: 3601 }, 'expire', 'range', 'expire: "Reviewer, live, launchpad: default 3600, range 1 to 3600"'),
  bad('expire of zero', 'live', { user_id: 'p', expire: 0 }, 'expire', 'range', 'expire: "range 1 to 3600"'),
  bad('expire not an integer', 'launchpad', { user_id: 'p', exam_roster: 'https://x.example/r', expire: 60.5 }, 'expire', 'integer', 'expire: "A non-integer is invalid."'),
  bad('expire as a string', 'live', { user_id: 'p', expire: '60' }, 'expire', 'integer', 'expire: integer(int32)'),
  bad('exam_tag with a space', 'candidate', { ...CANDIDATE, exam_tag: 'mid term' }, 'exam_tag', 'pattern', 'exam_tag: "No spaces, ASCII only"'),
  bad('exam_tag not ASCII', 'reviewer', { ...REVIEWER, exam_tag: 'prüfung' }, 'exam_tag', 'pattern', 'exam_tag: "ASCII only"'),
  bad('exam_tag a reserved word', 'live', { user_id: 'p', exam_tag: 'goodbye' }, 'exam_tag', 'reserved_word', 'exam_tag: "must not be exactly one of: goodbye, support, update, setup, invalid"'),
  bad('exam_tag of 101 characters', 'candidate', { ...CANDIDATE, exam_tag: 't'.repeat(101) }, 'exam_tag', 'length', 'Limits: "domain, display_name, exam_tag …: 1 to 100 characters"'),
  bad('section_id without roster_url', 'reviewer', { ...REVIEWER, section_id: 's' }, 'section_id', 'section_id_requires_roster_url', 'section_id: "Depends on roster_url: cannot be used without it."'),
  bad('roster_url of 601 characters', 'live', { user_id: 'p', roster_url: `https://x.example/${'r'.repeat(583)}` }, 'roster_url', 'length', 'Limits: "roster_url, logo_url: at most 600 characters"'),
  bad('colour with #', 'reviewer', { ...REVIEWER, branding: { primary_color: '#1a73e' } }, 'branding.primary_color', 'pattern', 'Branding: "Six-character hexadecimal colour without \'#\'"'),
  bad('colour of 3 characters', 'candidate', { ...CANDIDATE, branding: { secondary_color: 'fff' } }, 'branding.secondary_color', 'length', 'Limits: "primary_color, secondary_color: exactly 6 characters"'),
  bad('frame weight of 6', 'reviewer', { ...REVIEWER, behavior_settings: { frame_metrics: { keystrokes: 6 } } }, 'behavior_settings.frame_metrics.keystrokes', 'range', 'frame_metrics: "a weight from 0 to 5"'),
  bad('old member name multiple_face', 'reviewer', { ...REVIEWER, behavior_settings: { exam_metrics: { multiple_face: true } } }, 'behavior_settings.exam_metrics.multiple_face', 'unknown_field', 'Versioning: "multiple_face to multiple_faces"; "Field names are exact."'),
  bad('exam metric not a boolean', 'reviewer', { ...REVIEWER, behavior_settings: { exam_metrics: { clicking: 1 } } }, 'behavior_settings.exam_metrics.clicking', 'type', 'exam_metrics: "14 boolean members"'),
  bad('old setting name clipboard', 'candidate', settings({ clipboard: true }), 'exam_settings.clipboard', 'unknown_field', 'Versioning: "clipboard to disable_clipboard"; "Field names are exact."'),
  bad('old field name name', 'candidate', { ...CANDIDATE, name: 'Ada' }, 'name', 'unknown_field', 'Versioning: "name to display_name"'),
  bad('record_desk of 3', 'candidate', settings({ record_desk: 3 }), 'exam_settings.record_desk', 'enum', 'exam_settings: record_desk "0, 1, 2"'),
  bad('calculator as a boolean', 'candidate', settings({ calculator: true }), 'exam_settings.calculator', 'integer', 'exam_settings: calculator "integer 0, 1, 2, 3"'),
  bad('whiteboard as an integer', 'reviewer', { ...REVIEWER, exam_settings: { ...SETTINGS_OFF, whiteboard: 1 } }, 'exam_settings.whiteboard', 'type', 'exam_settings: whiteboard "boolean"'),
  bad('eleven macOS apps', 'candidate', settings({ allowed_macos_apps: Array.from({ length: 11 }, (_, i) => `com.example.app${i}`) }), 'exam_settings.allowed_macos_apps', 'max_items', 'allowed_macos_apps: "max 10 items"'),
  bad('windows app name of 51 characters', 'candidate', settings({ allowed_windows_apps: [{ binary_name: 'b'.repeat(51), product_name: 'p', company_name: 'c' }] }), 'exam_settings.allowed_windows_apps.0.binary_name', 'length', 'Limits: "binary_name, product_name, company_name: 1 to 50 characters"'),
  bad('desk scan without video', 'candidate', settings({ record_desk: 2 }), 'exam_settings', 'record_desk_requires_video', 'record_desk: "Values 1 and 2 require record_video and verify_video true."'),
  bad('verify_audio without recording', 'candidate', settings({ verify_audio: true }), 'exam_settings', 'verify_audio_requires_record_audio', 'verify_audio: "Requires record_audio."'),
  bad('verify_desktop without recording', 'reviewer', { ...REVIEWER, exam_settings: { ...SETTINGS_OFF, verify_desktop: true } }, 'exam_settings', 'verify_desktop_requires_record_screen', 'verify_desktop: "Requires record_screen."'),
  bad('human ID check without video', 'candidate', settings({ verify_id: 2, record_video: true }), 'exam_settings', 'verify_id_2_requires_video', 'verify_id: "Value 2 requires record_video and verify_video true."'),
  bad('full screen without one_screen', 'candidate', settings({ full_screen: 1, close_tabs: true, tabs: 1 }), 'exam_settings', 'full_screen_requires_lockdown', 'full_screen: "Values 1 to 3 require close_tabs and one_screen true and tabs equal to 1."'),
  bad('full screen with tabs 2', 'candidate', settings({ full_screen: 2, close_tabs: true, one_screen: true, tabs: 2 }), 'exam_settings', 'full_screen_requires_lockdown', 'full_screen: "… and tabs equal to 1."'),
  bad('live proctor without video', 'candidate', settings({ live_proctor: true }), 'exam_settings', 'live_proctor_requires_video', 'live_proctor: "Requires record_video and verify_video true."'),
  bad('mobile without pre_auth', 'candidate', settings({ mobile: true }), 'exam_settings.mobile', 'mobile_requires_pre_auth', 'mobile: "Requires pre_auth in the candidate launch request."'),
  bad('mobile with a human ID check', 'candidate', { ...settings({ mobile: true, verify_id: 2, record_video: true, verify_video: true }), pre_auth: 'https://lms.example.edu/login' }, 'exam_settings', 'mobile_excludes_verify_id_2', 'mobile: "Incompatible with verify_id value 2."'),
  bad('post_auth without pre_auth', 'candidate', { ...CANDIDATE, post_auth: 'https://lms.example.edu/my' }, 'post_auth', 'post_auth_requires_pre_auth', 'post_auth: "Requires pre_auth."'),
  bad('launch_url relative', 'candidate', { ...CANDIDATE, launch_url: '/mod/quiz/view.php?id=7', exam_start: '.*' }, 'launch_url', 'absolute_url', 'launch_url: "Valid absolute URL"'),
  bad('exam_start not matching launch_url', 'candidate', { ...CANDIDATE, exam_start: '^https://other\\.example/.*' }, 'exam_start', 'exam_start_must_match_launch_url', 'launch_url: "It must be matched by the exam_start pattern"'),
  bad('exam_take not a regular expression', 'candidate', { ...CANDIDATE, exam_take: '^https://lms(' }, 'exam_take', 'regex', 'exam_take: "Regular expression matching the in-exam pages"'),
  bad('exam_take of 1001 characters', 'candidate', { ...CANDIDATE, exam_take: 'a'.repeat(1001) }, 'exam_take', 'length', 'Limits: "exam_take: 1 to 1000 characters"'),
  bad('attempt_id with a dot', 'candidate', { ...CANDIDATE, attempt_id: 'a.1' }, 'attempt_id', 'pattern', 'attempt_id: "pattern ^[a-zA-Z0-9-]*$"'),
  bad('display_name empty', 'candidate', { ...CANDIDATE, display_name: '' }, 'display_name', 'length', 'Limits: "domain, display_name, exam_tag …: 1 to 100 characters"'),
  bad('redirect_url empty', 'candidate', { ...CANDIDATE, redirect_url: '' }, 'redirect_url', 'length', 'Limits: "redirect_url: at least 1 character when present"'),
  bad('break_settings without duration', 'candidate', { ...CANDIDATE, break_settings: { number: 1 } }, 'break_settings.duration', 'required', 'break_settings: duration "Required: yes"'),
  bad('eleven breaks', 'candidate', { ...CANDIDATE, break_settings: { number: 11, duration: 5 } }, 'break_settings.number', 'range', 'Limits: "break_settings.number: 1 to 10"'),
  bad('break of 31', 'candidate', { ...CANDIDATE, break_settings: { number: 1, duration: 31 } }, 'break_settings.duration', 'range', 'Limits: "break_settings.duration: 1 to 30"'),
  bad('proctor setting not a boolean', 'live', { user_id: 'p', proctor_settings: { kickout_allowed: 'yes' } }, 'proctor_settings.kickout_allowed', 'type', 'proctor_settings: "4 boolean members"'),
  bad('proctor_settings on a reviewer launch', 'reviewer', { ...REVIEWER, proctor_settings: { break_allowed: true } }, 'proctor_settings', 'unknown_field', 'proctor_settings: "live launch and launchpad"'),
  bad('subscribe version 4', 'subscribe', { type: '1', version: '4', client: { url: 'https://x.example/h', key: 'k' } }, 'version', 'pattern', 'Subscribe request: version "Supported values \'2\' and \'3\'."'),
];
