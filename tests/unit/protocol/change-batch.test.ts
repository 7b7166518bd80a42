import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { changeList, changesBody } from '../../../src/protocol/change-batch';
import { ApplyInstanceChangesRequest } from '../../../src/protocol/instance-changes';
import { MAX_INSTANCE_CHANGES_PER_BATCH } from '../../../src/protocol/instances';
import { ApplyObjectChangesRequest, MAX_OBJECT_CHANGES_PER_BATCH } from '../../../src/protocol/scene-objects';

const messages = (schema: z.ZodType, body: unknown) => {
  const result = schema.safeParse(body);
  return result.success ? [] : result.error.issues.map((i) => i.message);
};

describe('change batches', () => {
  const body = changesBody(changeList(z.number(), 2));

  it('take one to `max` changes and no other field', () => {
    expect(body.parse({ changes: [1, 2] })).toEqual({ changes: [1, 2] });
    expect(messages(body, { changes: [] })).toEqual(['changes must not be empty']);
    expect(messages(body, { changes: [1, 2, 3] })).toEqual(['changes: at most 2 per request']);
    expect(messages(body, { changes: 'x' })).toEqual(['changes must be a list']);
    expect(messages(body, { changes: [1], extra: 1, more: 2 })).toEqual(["unknown field 'extra', 'more'"]);
    expect(messages(body, [1])).toEqual(['the body must be { "changes": [...] }']);
  });

  it('are what the object and instance change requests check, with their own limits', () => {
    for (const [schema, max] of [
      [ApplyObjectChangesRequest, MAX_OBJECT_CHANGES_PER_BATCH],
      [ApplyInstanceChangesRequest, MAX_INSTANCE_CHANGES_PER_BATCH],
    ] as const) {
      expect(messages(schema, { changes: [] })).toEqual(['changes must not be empty']);
      expect(messages(schema, { changes: {} })).toEqual(['changes must be a list']);
      expect(messages(schema, { changes: Array.from({ length: max + 1 }, () => ({})) })).toContain(`changes: at most ${max} per request`);
      expect(messages(schema, null)).toEqual(['the body must be { "changes": [...] }']);
    }
  });
});
