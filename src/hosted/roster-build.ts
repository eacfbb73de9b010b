/**
 * The roster body the Launch API expects (spec: roster_url): a JSON array of [id, name] pairs, each id a
 * user_id exactly as launches send it, no id twice. Pure: no HTTP, no LTI library.
 */

/** What a Names and Roles member carries that the roster needs. */
export interface RosterSourceMember {
  userId: string;
  status: string;
  name?: string;
  givenName?: string;
  familyName?: string;
  /** The member's roles in the course (Names and Roles). */
  roles?: readonly string[];
}

export type RosterPair = [id: string, name: string];

export interface Roster {
  /** The candidates: the roster the Launch API receives. */
  pairs: RosterPair[];
  /** Staff (by their Names and Roles roles, or known to the course as staff): names for pages, never in the roster. */
  staff: RosterPair[];
  /** Active members listed without any name (LMS privacy settings): their pair carries ''. */
  unnamed: number;
  /** Members left out because their enrolment is not active (Inactive, Deleted). */
  inactive: number;
  /** Repeated listings of one person (several sections or enrolments): kept once. */
  duplicates: number;
}

/**
 * The name as the LMS gives it, in whatever script: `name` untouched; only when it is absent or blank
 * the given and family names joined with a space (the LMS gives no order for those); '' when none.
 */
export function memberName(member: Pick<RosterSourceMember, 'name' | 'givenName' | 'familyName'>): string {
  if (member.name !== undefined && member.name.trim() !== '') return member.name;
  return [member.givenName, member.familyName]
    .filter((part): part is string => part !== undefined && part.trim() !== '')
    .map((part) => part.trim())
    .join(' ');
}

/** NRPS 2.0 §2.3: status is Active, Inactive or Deleted, Active when absent. */
export function isActive(member: Pick<RosterSourceMember, 'status'>): boolean {
  return member.status.trim().toLowerCase() === 'active';
}

/**
 * `idOf` turns the LMS user id into the user_id launches send (identifiers.ts deriveUserId); `isStaff` tells staff
 * from candidates by their roles and user_id (a person listed once as staff is staff).
 */
export function buildRoster(members: Iterable<RosterSourceMember>, idOf: (lmsUserId: string) => string, isStaff: (roles: readonly string[], id: string) => boolean = () => false): Roster {
  const names = new Map<string, string>();
  const staffIds = new Set<string>();
  let inactive = 0;
  let duplicates = 0;
  for (const member of members) {
    if (!isActive(member)) {
      inactive++;
      continue;
    }
    const id = idOf(member.userId);
    const name = memberName(member);
    if (isStaff(member.roles ?? [], id)) staffIds.add(id);
    const known = names.get(id);
    if (known !== undefined) {
      duplicates++;
      // A repeated listing may be the one that carries the name.
      if (known === '' && name !== '') names.set(id, name);
      continue;
    }
    names.set(id, name);
  }
  const all: RosterPair[] = [...names].map(([id, name]) => [id, name]);
  const pairs = all.filter(([id]) => !staffIds.has(id));
  return { pairs, staff: all.filter(([id]) => staffIds.has(id)), unnamed: pairs.filter(([, name]) => name === '').length, inactive, duplicates };
}
