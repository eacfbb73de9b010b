import type { DemoCourse, DemoPerson } from './directory.js';
import { membershipMember, type DemoFlavor } from './flavors.js';

export const NRPS_MEDIA_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';

export interface MembershipPage {
  body: { id: string; context: { id: string; label: string; title: string }; members: Record<string, unknown>[] };
  /** Absolute URL of the next page, when there is one. */
  next?: string;
}

export class MembershipQueryError extends Error {}

function positiveInteger(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min) throw new MembershipQueryError(`${name} must be an integer ≥ ${min}`);
  return Number(value);
}

/** `Learner` and `http://purl.imsglobal.org/vocab/lis/v2/membership#Learner` name the same role. */
function shortRole(role: string): string {
  return role.replace(/^http:\/\/purl\.imsglobal\.org\/vocab\/lis\/v2\/membership[#/]/, '');
}

/**
 * One page of a Names and Roles membership container. As Moodle does: everyone in one page unless
 * `limit` is given; then `from` is the offset and the next page is announced in a Link header.
 * https://www.imsglobal.org/spec/lti-nrps/v2p0#limit-query-parameter
 */
export function membershipPage(options: {
  flavor: DemoFlavor;
  issuer: string;
  course: DemoCourse;
  people: readonly DemoPerson[];
  pageUrl: (query: URLSearchParams) => string;
  query: { limit?: string; from?: string; role?: string; rlid?: string };
  defaultLimit?: number;
}): MembershipPage {
  const limit = positiveInteger(options.query.limit, 'limit', 1) ?? options.defaultLimit;
  const from = positiveInteger(options.query.from, 'from', 0) ?? 0;
  const role = options.query.role ? shortRole(options.query.role) : undefined;

  let members = options.people
    .map((person) => membershipMember(options.flavor, options.issuer, person))
    .filter((member) => member !== null);
  if (role) members = members.filter((member) => member.roles.some((candidate) => shortRole(candidate) === role));

  const page = limit === undefined ? members.slice(from) : members.slice(from, from + limit);
  const query = (offset: number): URLSearchParams => {
    const params = new URLSearchParams();
    if (limit !== undefined) params.set('limit', String(limit));
    if (offset > 0) params.set('from', String(offset));
    if (options.query.role) params.set('role', options.query.role);
    if (options.query.rlid) params.set('rlid', options.query.rlid);
    return params;
  };
  const nextOffset = from + page.length;
  const { id, label, title } = options.course;
  return {
    body: { id: options.pageUrl(query(from)), context: { id, label, title }, members: page },
    next: limit !== undefined && nextOffset < members.length ? options.pageUrl(query(nextOffset)) : undefined,
  };
}
