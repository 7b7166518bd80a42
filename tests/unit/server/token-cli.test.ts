import { describe, expect, it } from 'vitest';
import { splitName } from '../../../src/server/token-cli.ts';

describe('npm run token', () => {
  it('splits "First Last" at the last space', () => {
    expect(splitName('Ada Lovelace')).toEqual({ firstName: 'Ada', lastName: 'Lovelace' });
    expect(splitName('  Mary  Ann   Evans ')).toEqual({ firstName: 'Mary Ann', lastName: 'Evans' });
    expect(splitName('Ada')).toEqual({ firstName: 'Ada', lastName: '' });
  });
});
