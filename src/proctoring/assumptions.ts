/**
 * Every reading of the Launch API that the spec leaves open ("not shown"), in one place.
 * Each is the conservative choice: the tool sends less, never more, than the spec allows, and the
 * emulator refuses what the real service might refuse. Change a reading here, nowhere else.
 *
 * The limits the spec states are in `LIMITS` (contract.ts); these fill its gaps.
 */
export const ASSUMED_LIMITS = {
  /** Limits table: "pre_auth, launch_url, exam_start and further fields: 1 to 600; the further fields: not shown". */
  examEndLength: { min: 1, max: 600 },
  postAuthLength: { min: 1, max: 600 },
  redirectUrlLength: { min: 1, max: 600 },
  extensionAllowlistUrlLength: { min: 1, max: 600 },
  examRosterLength: { min: 1, max: 600 },
  /** Public integrations of this API: webhook client url ≤600, key ≤50. */
  webhookClientUrlLength: { min: 1, max: 600 },
  webhookClientKeyLength: { min: 1, max: 50 },
  /** Limits table: "domain, display_name, exam_tag and further fields: 1 to 100; the further fields: not shown". */
  examNameLength: { min: 1, max: 100 },
  sectionIdLength: { min: 1, max: 100 },
  macosBundleIdLength: { min: 1, max: 100 },
  /** Unsubscribe body: not shown. We send the id the subscribe answer carried. */
  webhookIdLength: { min: 1, max: 100 },
} as const;

/*
 * Readings of the field rules where the spec is silent or ambiguous (applied in contract.ts).
 * - `exam_settings`: the spec lists 30 members and states no defaults for booleans ("Booleans default
 *   to no stated value"), so all 30 are required: the tool never relies on an unstated default.
 *   `EXAM_SETTINGS_OFF` (contract.ts) is the all-off value to start from.
 * - `behavior_settings`, `proctor_settings`, `branding`, `redirect_settings`: every member optional
 *   (the spec marks none required); `break_settings`: number and duration required, as stated.
 * - Weights and break number/duration are typed `object` in the spec; they are plain integers
 *   (the official client of this API sends integers).
 * - Unknown fields are refused everywhere (rule `unknown_field`): the spec's tables govern, and this
 *   catches renamed fields (clipboard → disable_clipboard, name → display_name, …).
 * - The candidate launch accepts `roster_url` and `section_id` (shared fields): its table is cut off
 *   after exam_tag ("not shown"), and display_name's rule and the roster's "exam agreement page"
 *   both presuppose a roster on the candidate side. It does not accept behavior_settings.
 * - Every URL field (launch_url, pre_auth, post_auth, redirect_url, redirect_settings.*, roster_url,
 *   logo_url, extension_allowlist_url, exam_roster, client.url) must be an absolute http(s) URL; the
 *   spec says so only of launch_url, but a relative URL means nothing on the service's own domain.
 * - Colours: the spec says "hexadecimal" but gives the pattern `^[a-zA-Z0-9]*$`; we require hex digits.
 * - `domain`: a host name (letters, digits, hyphens, dots), no scheme, port or path.
 * - `exam_start`, `exam_take`, `exam_end` are JavaScript regular expressions without flags;
 *   "matched by exam_start" means `new RegExp(exam_start).test(launch_url)`. The tool evaluates that with
 *   a linear-time engine and accepts only patterns it reads the same way (patterns.ts).
 * - Subscribe: `type` is required in the body (field table) and must equal the path's type; only
 *   type '1' (suspicion calculation) exists. `behavior_settings` has the launch requests' structure.
 * - Unsubscribe: the body is `{ id }`, the id from the subscribe answer (string or integer).
 */
/** Regular expression flags used when compiling exam_start / exam_take / exam_end (see above). */
export const PATTERN_FLAGS = '';

/** The only webhook type the spec names: 1, suspicion calculation. */
export const WEBHOOK_TYPES = ['1'] as const;
export const WEBHOOK_VERSIONS = ['2', '3'] as const;
