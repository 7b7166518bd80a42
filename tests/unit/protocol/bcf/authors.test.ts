import { describe, expect, it } from 'vitest';
import { bcfAuthorToName, nameToBcfAuthor } from '../../../../src/protocol/bcf/authors';

describe('authors', () => {
  it('first and last names go out as e-mail-like strings and come back exactly', () => {
    for (const name of [
      { firstName: 'Ada', lastName: 'Lovelace' },
      { firstName: 'Jean Luc', lastName: 'Picard' },
      { firstName: 'J.R.R.', lastName: 'Tolkien' },
      { firstName: 'Zoë', lastName: "O'Neil-Łukasz (jr)" },
      { firstName: '', lastName: '' },
      { firstName: '100%', lastName: 'a@b.c' },
    ]) {
      const author = nameToBcfAuthor(name);
      expect(author).toMatch(/^[A-Za-z0-9%_-]*\.[A-Za-z0-9%_-]*@users\.parametricos\.invalid$/);
      expect(bcfAuthorToName(author)).toEqual(name);
    }
    expect(nameToBcfAuthor({ firstName: 'Ada', lastName: 'Lovelace' })).toBe('Ada.Lovelace@users.parametricos.invalid');
  });

  it('reads other programs’ authors as well as it can', () => {
    expect(bcfAuthorToName('jane.doe@example.com')).toEqual({ firstName: 'jane', lastName: 'doe' });
    expect(bcfAuthorToName('jdoe@example.com')).toEqual({ firstName: 'jdoe', lastName: '' });
    expect(bcfAuthorToName('Jane van Doe')).toEqual({ firstName: 'Jane', lastName: 'van Doe' });
    expect(bcfAuthorToName('bad%zz.x@y')).toEqual({ firstName: 'bad%zz', lastName: 'x' });
  });
});
