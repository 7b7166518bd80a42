import type { AnnotationInfo } from '../protocol/host-api';

/**
 * Where the host API keeps annotations. The viewer draws their pins and answers the annotation
 * functions through this interface only, so that a store on the model service (issue 16, comments)
 * replaces the in-memory one without touching the API. The in-memory store keeps them for the
 * page's lifetime: they are NOT saved yet.
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
