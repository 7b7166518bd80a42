import { decodeInstanceSet, type InstanceSet } from '../protocol/instance-set.ts';

/**
 * Downloads a group's binary instance set and decodes it: in the loader worker
 * (container-worker.ts), or on the main thread where workers are unavailable. An answer that is not
 * OK names the URL and the status; a set that does not decode says why (InstanceSetError).
 */
export async function fetchInstanceSet(url: string, accept: string, signal?: AbortSignal, priority: RequestPriority = 'auto'): Promise<InstanceSet> {
  // 'low' for a set that comes after the models' first picture: they get the bandwidth first.
  const response = await fetch(url, { signal, headers: { Accept: accept }, priority });
  if (!response.ok) throw new Error(`${url} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`);
  return decodeInstanceSet(new Uint8Array(await response.arrayBuffer()));
}
