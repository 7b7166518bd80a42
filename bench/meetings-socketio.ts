import { createServer } from 'node:http';
import { Server } from 'socket.io';

/**
 * The baseline of bench/meetings.bench.ts: the relay a person would write with socket.io (the
 * usual choice for "broadcast to a room"), with the same fan-out as our meeting server: a client
 * joins a room, and each 'rfc' it emits is sent to the others in the room. No authentication,
 * no validation, no limits: the cheapest socket.io relay, so the ratio is a fair upper bound.
 * Run by the bench as its own process (`tsx bench/meetings-socketio.ts`), port from PORT.
 */
const server = createServer();
const io = new Server(server, { transports: ['websocket'], serveClient: false, perMessageDeflate: false });
io.on('connection', (socket) => {
  socket.on('join', (room: string, ack?: () => void) => {
    void socket.join(room);
    ack?.();
  });
  socket.on('rfc', (message: { room: string; object: string; function: string; args: unknown[] }) => {
    const args = message.args.slice();
    args[0] = socket.id;
    socket.to(message.room).emit('rfc', { object: message.object, function: message.function, args });
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`);
});
