import { wording, type Translator, type Wording } from '../i18n/index.js';
import type { RoleReason } from './roles.js';

/** A role decision's reason in the reader's language (the troubleshooting panel, a refusal's cause for staff). */
export function roleReasonWording(why: RoleReason): Wording {
  return (t: Translator) => {
    if (why.kind === 'testUser' || why.kind === 'noRoles') return t.t(`causes:roles.${why.kind}`);
    const roles = why.roles.join(', ');
    if (why.kind !== 'staff') return t.t(`causes:roles.${why.kind}`, { roles });
    const who = t.formatList(why.staff.map((role) => t.t(`causes:roles.staffNames.${role}`)));
    const sentence = t.t('causes:roles.staff', { who, roles, settingsReadOnly: String(why.settingsReadOnly), noReviewOrLive: String(why.noReviewOrLive) });
    // The role names are lower case inside sentences; this one starts with them.
    return sentence.charAt(0).toLocaleUpperCase(t.locale) + sentence.slice(1);
  };
}

/** What a refused role may not do, after its reason. */
export function roleRefusalWording(why: RoleReason, refused?: 'settings' | 'review' | 'live'): Wording {
  const reason = roleReasonWording(why);
  if (!refused) return reason;
  const may = wording(`causes:roles.mayNot.${refused}`);
  return (t) => `${reason(t)} ${may(t)}`;
}
