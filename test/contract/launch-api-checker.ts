/**
 * A second reading of the Launch API document (docs/launch-api.md), written from its tables by hand and sharing
 * no code with src/proctoring: a request the tool's own contract accepts but this checker refuses means one of
 * the two readings is wrong. Each rule names the section of the document it comes from.
 */

export type Endpoint = 'candidate' | 'reviewer' | 'live' | 'launchpad' | 'subscribe';

export interface Breach {
  path: string;
  rule: string;
  /** Where the document states the rule. */
  source: string;
}

export const ENDPOINT_PATHS: Readonly<Record<Endpoint, string>> = {
  candidate: '/v2/candidate/launch',
  reviewer: '/v2/reviewer/launch',
  live: '/v2/live/launch',
  launchpad: '/v2/live/launchpad',
  subscribe: '/v2/whks/subscribe/1',
};

/** The endpoint a request path ends with, if it is one whose body the document describes. */
export function endpointOfPath(path: string): Endpoint | undefined {
  if (path.endsWith('/v2/candidate/launch')) return 'candidate';
  if (path.endsWith('/v2/reviewer/launch')) return 'reviewer';
  if (path.endsWith('/v2/live/launch')) return 'live';
  if (path.endsWith('/v2/live/launchpad')) return 'launchpad';
  if (/\/v2\/whks\/subscribe\/[^/]+$/.test(path)) return 'subscribe';
  return undefined;
}

const SHARED = 'Fields shared by several launch requests';
const LIMITS = 'Limits';
const EXAM_SETTINGS = 'exam_settings (30 members)';
const CANDIDATE = 'Candidate launch request';

type Value = unknown;
type Check = (value: Value, path: string, out: Breach[]) => void;

const isObject = (value: Value): value is Record<string, Value> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isInt32 = (value: Value): value is number => typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31;

function str(options: { min?: number; max?: number; pattern?: RegExp; source: string; also?: (value: string, path: string, out: Breach[]) => void }): Check {
  return (value, path, out) => {
    if (typeof value !== 'string') return void out.push({ path, rule: 'type', source: options.source });
    if (options.min !== undefined && value.length < options.min) out.push({ path, rule: 'length', source: LIMITS });
    if (options.max !== undefined && value.length > options.max) out.push({ path, rule: 'length', source: LIMITS });
    if (options.pattern && !options.pattern.test(value)) out.push({ path, rule: 'pattern', source: options.source });
    options.also?.(value, path, out);
  };
}

const bool = (source: string): Check => (value, path, out) => {
  if (typeof value !== 'boolean') out.push({ path, rule: 'type', source });
};

function int(options: { min?: number; max?: number; values?: readonly number[]; source: string }): Check {
  return (value, path, out) => {
    if (!isInt32(value)) return void out.push({ path, rule: 'integer', source: options.source });
    if (options.values && !options.values.includes(value)) out.push({ path, rule: 'enum', source: options.source });
    if ((options.min !== undefined && value < options.min) || (options.max !== undefined && value > options.max)) out.push({ path, rule: 'range', source: options.source });
  };
}

interface Field {
  check: Check;
  required?: boolean;
}

/** An object with exactly these members ("Field names are exact."): unknown members are refused. */
function object(fields: Readonly<Record<string, Field>>, source: string): Check {
  return (value, path, out) => {
    if (!isObject(value)) return void out.push({ path, rule: 'type', source });
    const at = (name: string) => (path ? `${path}.${name}` : name);
    for (const [name, field] of Object.entries(fields)) {
      if (value[name] === undefined) {
        if (field.required) out.push({ path: at(name), rule: 'required', source });
      } else field.check(value[name], at(name), out);
    }
    for (const name of Object.keys(value)) if (!(name in fields)) out.push({ path: at(name), rule: 'unknown_field', source: 'Resources and their fields: "Field names are exact."' });
  };
}

function array(item: Check, max: number, source: string): Check {
  return (value, path, out) => {
    if (!Array.isArray(value)) return void out.push({ path, rule: 'type', source });
    if (value.length > max) out.push({ path, rule: 'max_items', source: LIMITS });
    value.forEach((entry, index) => item(entry, `${path}.${index}`, out));
  };
}

const optional = (check: Check): Field => ({ check });
const required = (check: Check): Field => ({ check, required: true });

function absoluteUrl(value: string, path: string, out: Breach[]): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol)) out.push({ path, rule: 'absolute_url', source: `${CANDIDATE}: launch_url "Valid absolute URL"` });
}

function regex(value: string, path: string, out: Breach[]): void {
  try {
    new RegExp(value);
  } catch {
    out.push({ path, rule: 'regex', source: `${CANDIDATE}: "Regular expression matching …"` });
  }
}

/** exam_take / exam_end: a regular expression, or the single-page value spelled as the document spells it. */
const pagePattern = (max: number | undefined): Check =>
  str({ min: 1, max, source: CANDIDATE, also: (value, path, out) => (value === 'post_message_nofication' ? undefined : regex(value, path, out)) });

// ---- Shared fields.

const userId = str({ min: 1, max: 36, pattern: /^[a-zA-Z0-9-]*$/, source: `${SHARED}: user_id "matching ^[a-zA-Z0-9-]*$"` });
const candidateExpire = int({ min: 1, max: 18000, source: `${SHARED}: expire "Candidate: … range 1 to 18000"` });
const staffExpire = int({ min: 1, max: 3600, source: `${SHARED}: expire "Reviewer, live, launchpad: … range 1 to 3600"` });
const RESERVED_TAGS = ['goodbye', 'support', 'update', 'setup', 'invalid'];
const examTag = str({
  min: 1,
  max: 100,
  pattern: /^[\x21-\x7e]*$/,
  source: `${SHARED}: exam_tag "No spaces, ASCII only"`,
  also: (value, path, out) => (RESERVED_TAGS.includes(value) ? void out.push({ path, rule: 'reserved_word', source: `${SHARED}: exam_tag "must not be exactly one of: goodbye, support, update, setup, invalid"` }) : undefined),
});
const sectionId = str({ source: `${SHARED}: section_id` });
const rosterUrl = str({ max: 600, source: `${SHARED}: roster_url`, also: absoluteUrl });
const domain = str({ min: 1, max: 100, source: `${SHARED}: domain` });
const colour = str({ min: 6, max: 6, pattern: /^[0-9a-fA-F]*$/, source: 'Branding: "Six-character hexadecimal colour without \'#\'"' });
const branding = object({ primary_color: optional(colour), secondary_color: optional(colour), logo_url: optional(str({ max: 600, source: 'Branding: logo_url', also: absoluteUrl })) }, 'Branding');

const FRAME_METRICS = ['navigating_away', 'keystrokes', 'copy_paste', 'browser_resize', 'audio_levels', 'head_movement', 'multiple_faces', 'leaving_room'];
const EXAM_METRICS = [...FRAME_METRICS.slice(0, 7), 'mouse_movement', 'scrolling', 'clicking', 'exam_duration', 'start_time', 'end_time', 'exam_collusion'];
// "a weight from 0 to 5"; the inner shape of the weight object is not shown, so the weight is read as the number itself.
const weight = int({ min: 0, max: 5, source: 'behavior_settings.frame_metrics: "a weight from 0 to 5"' });
const behaviorSettings = object(
  {
    frame_metrics: optional(object(Object.fromEntries(FRAME_METRICS.map((name) => [name, optional(weight)])), 'behavior_settings.frame_metrics (8 members)')),
    exam_metrics: optional(object(Object.fromEntries(EXAM_METRICS.map((name) => [name, optional(bool('behavior_settings.exam_metrics (14 boolean members)'))])), 'behavior_settings.exam_metrics (14 boolean members)')),
  },
  `${SHARED}: behavior_settings "Two members: frame_metrics and exam_metrics"`,
);
const proctorSettings = object(
  Object.fromEntries(['break_allowed', 'desk_scan_allowed', 'interrupt_allowed', 'kickout_allowed'].map((name) => [name, optional(bool('proctor_settings (4 boolean members)'))])),
  'proctor_settings (4 boolean members; live launch and launchpad)',
);

// ---- exam_settings.

const flag = optional(bool(EXAM_SETTINGS));
const choice = (...values: number[]) => optional(int({ values, source: EXAM_SETTINGS }));
const appText = str({ min: 1, max: 50, source: EXAM_SETTINGS });
const examSettingsMembers: Record<string, Field> = {
  record_video: flag,
  record_audio: flag,
  record_screen: flag,
  record_web_traffic: flag,
  record_desk: choice(0, 1, 2),
  verify_video: flag,
  verify_audio: flag,
  verify_desktop: flag,
  verify_id: choice(0, 1, 2),
  verify_signature: flag,
  full_screen: choice(0, 1, 2, 3),
  disable_clipboard: flag,
  tabs: choice(0, 1, 2),
  close_tabs: flag,
  one_screen: flag,
  disable_printing: flag,
  block_downloads: flag,
  clear_cache: flag,
  disable_right_click: flag,
  calculator: choice(0, 1, 2, 3),
  whiteboard: flag,
  disable_extensions: flag,
  live_proctor: flag,
  mobile: flag,
  advanced_program_detection: flag,
  advanced_hardware_detection: flag,
  advanced_vm_detection: flag,
  allowed_macos_apps: optional(array(str({ source: EXAM_SETTINGS }), 10, `${EXAM_SETTINGS}: allowed_macos_apps "max 10 items"`)),
  allowed_windows_apps: optional(
    array(object({ binary_name: optional(appText), product_name: optional(appText), company_name: optional(appText) }, `${EXAM_SETTINGS}: allowed_windows_apps`), 10, `${EXAM_SETTINGS}: allowed_windows_apps "max 10 items"`),
  ),
  strict_apps_validation: choice(0, 1),
};

/** The prerequisites the exam_settings table states, each with its words. */
const PREREQUISITES: { rule: string; source: string; broken: (s: Record<string, Value>) => boolean }[] = [
  { rule: 'record_desk_requires_video', source: 'record_desk: "Values 1 and 2 require record_video and verify_video true."', broken: (s) => (s.record_desk === 1 || s.record_desk === 2) && !(s.record_video === true && s.verify_video === true) },
  { rule: 'verify_video_requires_record_video', source: 'verify_video: "Requires record_video."', broken: (s) => s.verify_video === true && s.record_video !== true },
  { rule: 'verify_audio_requires_record_audio', source: 'verify_audio: "Requires record_audio."', broken: (s) => s.verify_audio === true && s.record_audio !== true },
  { rule: 'verify_desktop_requires_record_screen', source: 'verify_desktop: "Requires record_screen."', broken: (s) => s.verify_desktop === true && s.record_screen !== true },
  { rule: 'verify_id_2_requires_video', source: 'verify_id: "Value 2 requires record_video and verify_video true."', broken: (s) => s.verify_id === 2 && !(s.record_video === true && s.verify_video === true) },
  {
    rule: 'full_screen_requires_lockdown',
    source: 'full_screen: "Values 1 to 3 require close_tabs and one_screen true and tabs equal to 1."',
    broken: (s) => [1, 2, 3].includes(s.full_screen as number) && !(s.close_tabs === true && s.one_screen === true && s.tabs === 1),
  },
  { rule: 'live_proctor_requires_video', source: 'live_proctor: "Requires record_video and verify_video true."', broken: (s) => s.live_proctor === true && !(s.record_video === true && s.verify_video === true) },
  { rule: 'mobile_excludes_verify_id_2', source: 'mobile: "Incompatible with verify_id value 2."', broken: (s) => s.mobile === true && s.verify_id === 2 },
];

const examSettings: Check = (value, path, out) => {
  object(examSettingsMembers, EXAM_SETTINGS)(value, path, out);
  if (!isObject(value)) return;
  for (const prerequisite of PREREQUISITES) if (prerequisite.broken(value)) out.push({ path, rule: prerequisite.rule, source: `${EXAM_SETTINGS}: ${prerequisite.source}` });
};

// ---- Requests.

const breakSettings = object(
  {
    number: required(int({ min: 1, max: 10, source: 'break_settings: number "1 to 10"' })),
    duration: required(int({ min: 1, max: 30, source: 'break_settings: duration "1 to 30"' })),
    cumulative: optional(bool('break_settings')),
    on_time_exceeded: optional(int({ values: [0, 1], source: 'break_settings: on_time_exceeded "0 … 1 …"' })),
    desk_scan_after_break: optional(bool('break_settings')),
  },
  'break_settings (5 members)',
);

const candidateFields: Record<string, Field> = {
  launch_url: required(str({ min: 1, max: 600, source: CANDIDATE, also: absoluteUrl })),
  exam_start: required(str({ min: 1, max: 600, source: CANDIDATE, also: regex })),
  exam_take: required(pagePattern(1000)),
  // exam_end's length is among the "further fields: not shown"; only 1 character is certain.
  exam_end: required(pagePattern(undefined)),
  exam_settings: required(examSettings),
  user_id: required(userId),
  expire: optional(candidateExpire),
  pre_auth: optional(str({ min: 1, max: 600, source: CANDIDATE })),
  post_auth: optional(str({ source: CANDIDATE })),
  pre_auth_bypass: optional(bool(CANDIDATE)),
  redirect_url: optional(str({ min: 1, source: CANDIDATE })),
  redirect_settings: optional(object({ graceful_submission_url: optional(str({ source: CANDIDATE })), ungraceful_submission_url: optional(str({ source: CANDIDATE })) }, `${CANDIDATE}: redirect_settings`)),
  attempt_id: optional(str({ min: 1, max: 36, pattern: /^[a-zA-Z0-9-]*$/, source: `${CANDIDATE}: attempt_id "pattern ^[a-zA-Z0-9-]*$"` })),
  display_name: optional(str({ min: 1, max: 100, source: CANDIDATE })),
  extension_allowlist_url: optional(str({ source: CANDIDATE })),
  break_settings: optional(breakSettings),
  branding: optional(branding),
  domain: optional(domain),
  exam_tag: optional(examTag),
  // Shared fields: the roster is fetched on "the exam agreement page", a candidate page.
  section_id: optional(sectionId),
  roster_url: optional(rosterUrl),
};

const REQUESTS: Readonly<Record<Endpoint, Record<string, Field>>> = {
  candidate: candidateFields,
  reviewer: {
    expire: optional(staffExpire),
    behavior_settings: optional(behaviorSettings),
    exam_settings: required(examSettings),
    domain: optional(domain),
    branding: optional(branding),
    user_id: required(userId),
    exam_tag: optional(examTag),
    section_id: optional(sectionId),
    roster_url: optional(rosterUrl),
  },
  live: {
    user_id: required(userId),
    expire: optional(staffExpire),
    exam_name: optional(str({ source: 'Live launch request: exam_name' })),
    behavior_settings: optional(behaviorSettings),
    proctor_settings: optional(proctorSettings),
    exam_tag: optional(examTag),
    section_id: optional(sectionId),
    roster_url: optional(rosterUrl),
  },
  launchpad: {
    user_id: required(userId),
    exam_roster: required(str({ source: 'Launchpad request: exam_roster' })),
    roster_url: optional(rosterUrl),
    expire: optional(staffExpire),
    behavior_settings: optional(behaviorSettings),
    proctor_settings: optional(proctorSettings),
  },
  subscribe: {
    type: required(str({ pattern: /^1$/, source: 'Subscribe request: type "Value 1 is the suspicion-calculation webhook type."' })),
    version: optional(str({ pattern: /^[23]$/, source: 'Subscribe request: version "Supported values \'2\' and \'3\'."' })),
    behavior_settings: optional((value, path, out) => (isObject(value) ? undefined : void out.push({ path, rule: 'type', source: 'Subscribe request: behavior_settings' }))),
    client: required(object({ url: required(str({ source: 'Subscribe request: client' })), key: required(str({ source: 'Subscribe request: client' })) }, 'Subscribe request: client')),
  },
};

/** Rules between fields of one request. */
function crossFieldBreaches(endpoint: Endpoint, body: Record<string, Value>): Breach[] {
  const out: Breach[] = [];
  if (body.section_id !== undefined && body.roster_url === undefined) out.push({ path: 'section_id', rule: 'section_id_requires_roster_url', source: `${SHARED}: section_id "Depends on roster_url: cannot be used without it."` });
  if (endpoint !== 'candidate') return out;
  if (body.post_auth !== undefined && body.pre_auth === undefined) out.push({ path: 'post_auth', rule: 'post_auth_requires_pre_auth', source: `${CANDIDATE}: post_auth "Requires pre_auth."` });
  if (isObject(body.exam_settings) && body.exam_settings.mobile === true && body.pre_auth === undefined) {
    out.push({ path: 'exam_settings.mobile', rule: 'mobile_requires_pre_auth', source: `${EXAM_SETTINGS}: mobile "Requires pre_auth in the candidate launch request."` });
  }
  if (typeof body.launch_url === 'string' && typeof body.exam_start === 'string') {
    let matches = true;
    try {
      matches = new RegExp(body.exam_start).test(body.launch_url);
    } catch {
      matches = true; // an invalid pattern is already its own breach
    }
    if (!matches) out.push({ path: 'exam_start', rule: 'exam_start_must_match_launch_url', source: `${CANDIDATE}: launch_url "It must be matched by the exam_start pattern"` });
  }
  return out;
}

/** Every rule of the document the body breaks (none: it conforms). */
export function checkRequest(endpoint: Endpoint, body: unknown): Breach[] {
  const out: Breach[] = [];
  object(REQUESTS[endpoint], `${endpoint} request`)(body, '', out);
  if (isObject(body)) out.push(...crossFieldBreaches(endpoint, body));
  return out;
}

export const describeBreaches = (breaches: readonly Breach[]) => breaches.map((b) => `${b.path || '(body)'}: ${b.rule} (${b.source})`).join('; ');
