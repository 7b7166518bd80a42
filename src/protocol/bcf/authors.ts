/**
 * BCF's author strings (BCF recommends e-mail addresses) from and to a person's first and last
 * names.
 */

/** The domain of the e-mail-like author strings we write for people known only by name. */
export const BCF_AUTHOR_DOMAIN = 'users.parametricos.invalid';

/** Percent-encoding that leaves only characters an e-mail local part may hold unquoted, and no dot. */
function encodeNamePart(part: string): string {
  return encodeURIComponent(part).replace(/[.!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * A person's name as BCF's author string (BCF recommends e-mail addresses): `first.last@domain`,
 * each part percent-encoded (so a dot, space or non-ASCII letter in a name survives) and its case
 * kept: 'Ada' 'Lovelace' -> 'Ada.Lovelace@users.parametricos.invalid', 'Jean Luc' 'Picard' ->
 * 'Jean%20Luc.Picard@…'. `bcfAuthorToName` reads it back exactly. The `.invalid` domain says
 * plainly that it is no mailbox.
 */
export function nameToBcfAuthor(name: { firstName: string; lastName: string }, domain = BCF_AUTHOR_DOMAIN): string {
  return `${encodeNamePart(name.firstName)}.${encodeNamePart(name.lastName)}@${domain}`;
}

/**
 * A name from a BCF author string. Ours (above) come back exactly. Others: an e-mail's local part
 * split at its first dot ('jane.doe@x' -> 'jane' 'doe', as written); one without a dot is
 * the first name; a plain 'First Last' string splits at its first space.
 */
export function bcfAuthorToName(author: string): { firstName: string; lastName: string } {
  const value = author.trim();
  const at = value.lastIndexOf('@');
  if (at > 0) {
    const local = value.slice(0, at);
    const dot = local.indexOf('.');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    };
    return dot < 0 ? { firstName: decode(local), lastName: '' } : { firstName: decode(local.slice(0, dot)), lastName: decode(local.slice(dot + 1)) };
  }
  const space = value.indexOf(' ');
  return space < 0 ? { firstName: value, lastName: '' } : { firstName: value.slice(0, space), lastName: value.slice(space + 1).trim() };
}
