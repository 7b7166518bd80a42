import type { AnnotationInfo } from '../protocol/host-api';

/**
 * Where the host API keeps annotations: the annotation functions and pins go through this
 * interface only. The app's pages (the embed and the editor) give the scene's comments
 * (`commentAnnotationStore`, src/api/comments.ts): every annotation is a comment thread saved by
 * the model service as the signed-in person (the viewer's own sign-in, or the token a host page
 * handed over with setAuthToken). The in-memory store below is createViewerApi's default when it is
 * given none (a viewer without a model service, tests): it keeps annotations for the page's
 * lifetime only.
 */
export interface AnnotationStore {
  list(): Promise<AnnotationInfo[]>;
  create(fields: Omit<AnnotationInfo, 'id'>): Promise<AnnotationInfo>;
  /** Changes the fields given; rejects with "There is no annotation 'id'." */
  update(id: string, fields: Partial<Omit<AnnotationInfo, 'id'>>): Promise<AnnotationInfo>;
  remove(id: string): Promise<void>;
}

/** Most annotations one viewer keeps. */
export const MAX_ANNOTATIONS = 1000;

export function createMemoryAnnotationStore(): AnnotationStore {
  const items = new Map<string, AnnotationInfo>();
  let next = 0;
  const copy = (a: AnnotationInfo): AnnotationInfo => ({ ...a, position: [...a.position], eye: [...a.eye], target: [...a.target] });
  const find = (id: string) => {
    const found = items.get(id);
    if (!found) throw new Error(`There is no annotation '${id}'.`);
    return found;
  };
  return {
    async list() {
      return [...items.values()].map(copy);
    },
    async create(fields) {
      if (items.size >= MAX_ANNOTATIONS) throw new Error(`At most ${MAX_ANNOTATIONS} annotations may be made.`);
      const annotation = copy({ ...fields, id: `annotation-${++next}` });
      items.set(annotation.id, annotation);
      return copy(annotation);
    },
    async update(id, fields) {
      const current = find(id);
      const updated = copy({ ...current, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)), id });
      items.set(id, updated);
      return copy(updated);
    },
    async remove(id) {
      find(id);
      items.delete(id);
    },
  };
}

/**
 * A store usable at once whose functions wait for the real one (the comments are a chunk fetched
 * after the scene is shown, the host API answers before): a call made meanwhile is answered once
 * it is there, or fails with `failure` when it could not start (null).
 */
export function deferredAnnotationStore(ready: Promise<AnnotationStore | null>, failure: string): AnnotationStore {
  const store = async () => {
    const real = await ready;
    if (!real) throw new Error(failure);
    return real;
  };
  return {
    list: async () => (await store()).list(),
    create: async (fields) => (await store()).create(fields),
    update: async (id, fields) => (await store()).update(id, fields),
    remove: async (id) => (await store()).remove(id),
  };
}
