import { parentPort, workerData } from 'node:worker_threads';
import { io as ioClient, type Socket } from 'socket.io-client';
import WebSocket from 'ws';

/**
 * One load-generating thread of bench/meetings.bench.ts: its share of the people, connected to our
 * meeting server (raw ws, AUTH_REQUEST) or to the socket.io relay, each sending its pose at `rate`
 * Hz and timing every relayed pose it receives (the send time travels as args[4]). Several threads
 * keep the generator from being the bottleneck; the main thread reads the servers' CPU.
 */

export interface ClientsJob {
  kind: 'ours' | 'io';
  /** One URL per person of this thread (ws URL of the meeting, or the socket.io origin). */
  urls: string[];
  tokens: string[];
  /** The people's global indices (phases are spread over all of them). */
  indices: number[];
  total: number;
  rate: number;
  room: string;
  /** Latency slots to keep. */
  capacity: number;
}

const job = workerData as ClientsJob;
const now = () => performance.timeOrigin + performance.now();
const latencies = new Float64Array(job.capacity);
let count = 0;
let measuring = false;

/** The send time of a relayed pose, read without parsing the whole frame: `...,null,1234.5]}`. */
function sentAt(text: string): number {
  const end = text.lastIndexOf(']');
  const start = text.lastIndexOf(',', end);
  return Number(text.slice(start + 1, end));
}

function onPose(text: string): void {
  if (!measuring) return;
  const ms = now() - sentAt(text);
  if (count < latencies.length) latencies[count] = ms;
  count++;
}

function pose(id: string, i: number): unknown[] {
  const t = now();
  const a = (t / 1000 + i) % (2 * Math.PI);
  return [id, [Math.cos(a) * 5, 1.7, Math.sin(a) * 5], [0, 0.5, 0], null, t];
}

const senders: (() => void)[] = [];
const closers: (() => void)[] = [];

async function connectOurs(url: string, token: string, i: number): Promise<void> {
  const ws = new WebSocket(url, { skipUTF8Validation: true });
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
  });
  const id = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error('no AUTH_RESPONSE within 20 s')), 20_000);
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('{"type":"RFC"')) onPose(text);
      else if (text.startsWith('{"type":"AUTH_RESPONSE"')) {
        clearTimeout(timer);
        res(JSON.parse(text).client._id);
      }
    });
    ws.send(JSON.stringify({ type: 'AUTH_REQUEST', token }));
  });
  senders.push(() => ws.send(JSON.stringify({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: pose(id, i) })));
  closers.push(() => ws.close());
}

async function connectIo(url: string, i: number): Promise<void> {
  const socket: Socket = ioClient(url, { transports: ['websocket'], reconnection: false });
  await new Promise<void>((res, rej) => {
    socket.once('connect', () => res());
    socket.once('connect_error', rej);
  });
  await new Promise<void>((res) => socket.emit('join', job.room, () => res()));
  socket.on('rfc', (message: { args: unknown[] }) => {
    if (!measuring) return;
    const ms = now() - (message.args[4] as number);
    if (count < latencies.length) latencies[count] = ms;
    count++;
  });
  senders.push(() => socket.emit('rfc', { room: job.room, object: 'avatars', function: 'handleTransformUpdate', args: pose(socket.id ?? '', i) }));
  closers.push(() => socket.disconnect());
}

const timers: NodeJS.Timeout[] = [];

parentPort!.on('message', async (command: string) => {
  try {
    if (command === 'connect') {
      for (let k = 0; k < job.urls.length; k++) {
        if (job.kind === 'ours') await connectOurs(job.urls[k], job.tokens[k], job.indices[k]);
        else await connectIo(job.urls[k], job.indices[k]);
      }
      parentPort!.postMessage({ type: 'connected' });
    } else if (command === 'start') {
      const period = 1000 / job.rate;
      senders.forEach((send, k) => {
        // Phases spread over the period, as independent people would be.
        timers.push(setTimeout(() => timers.push(setInterval(send, period)), (job.indices[k] * period) / job.total));
      });
    } else if (command === 'measure') {
      count = 0;
      measuring = true;
    } else if (command === 'stop') {
      measuring = false;
      for (const t of timers) clearInterval(t);
      parentPort!.postMessage({ type: 'result', count, latencies: latencies.slice(0, Math.min(count, latencies.length)) });
    } else if (command === 'close') {
      for (const close of closers) close();
      parentPort!.postMessage({ type: 'closed' });
    }
  } catch (error) {
    parentPort!.postMessage({ type: 'error', message: (error as Error).message });
  }
});
