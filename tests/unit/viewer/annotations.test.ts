import { describe, expect, it } from 'vitest';
import { createMemoryAnnotationStore, MAX_ANNOTATIONS } from '../../../src/viewer/annotations';

const fields = { title: 'Valve', text: 'check', position: [1, 2, 3] as [number, number, number], eye: [5, 5, 5] as [number, number, number], target: [0, 0, 0] as [number, number, number] };

describe('memory annotation store', () => {
  it('creates, lists, updates and removes, handing out copies', async () => {
    const store = createMemoryAnnotationStore();
    const a = await store.create(fields);
    expect(a).toEqual({ id: 'annotation-1', ...fields });
    a.position[0] = 99;
    expect((await store.list())[0].position).toEqual([1, 2, 3]);
    const updated = await store.update(a.id, { title: 'Pump', text: undefined });
    expect(updated).toMatchObject({ title: 'Pump', text: 'check' });
    await store.remove(a.id);
    expect(await store.list()).toEqual([]);
  });

  it('names a missing annotation and caps the count', async () => {
    const store = createMemoryAnnotationStore();
    await expect(store.update('annotation-9', { title: 'x' })).rejects.toThrow("There is no annotation 'annotation-9'.");
    await expect(store.remove('nope')).rejects.toThrow("There is no annotation 'nope'.");
    for (let i = 0; i < MAX_ANNOTATIONS; i++) await store.create(fields);
    await expect(store.create(fields)).rejects.toThrow(`At most ${MAX_ANNOTATIONS} annotations may be made.`);
  });
});
