import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { decodeContainer, encodeContainer } from '../protocol/container-codec.ts';
import { readContainerHeader } from '../protocol/container-header.ts';

/**
 * The model container codec from the command line (DESIGN.md section 6):
 *   npm run container -- pack IN OUT [--legacy]   GLB/glTF -> container (legacy: plain zlib stream)
 *   npm run container -- unpack IN OUT            container -> GLB/glTF
 *   npm run container -- inspect IN               header and metadata as JSON on stdout
 * Exit codes: 0 done, 1 the operation failed (`error: <message>` on stderr), 2 bad arguments.
 */

const USAGE = `usage: npm run container -- <command>
  pack IN OUT [--legacy]   pack a GLB or glTF file into a model container (--legacy: plain zlib stream, no header)
  unpack IN OUT            unpack a model container into its GLB or glTF asset
  inspect IN               print the container header and metadata as JSON`;

class UsageError extends Error {}

type Command =
  | { name: 'pack'; input: string; output: string; legacy: boolean }
  | { name: 'unpack'; input: string; output: string }
  | { name: 'inspect'; input: string };

function parseArgs(args: string[]): Command {
  const flags = args.filter((arg) => arg.startsWith('--'));
  const positional = args.filter((arg) => !arg.startsWith('--'));
  const [name, ...paths] = positional;
  const unknownFlags = flags.filter((flag) => !(name === 'pack' && flag === '--legacy'));
  if (unknownFlags.length > 0) throw new UsageError(`unknown option ${unknownFlags[0]}`);
  const expect = (count: number): void => {
    if (paths.length !== count) {
      throw new UsageError(`${name} takes ${count === 1 ? 'one path' : `${count} paths`}, got ${paths.length}`);
    }
  };
  switch (name) {
    case 'pack':
      expect(2);
      return { name, input: paths[0], output: paths[1], legacy: flags.includes('--legacy') };
    case 'unpack':
      expect(2);
      return { name, input: paths[0], output: paths[1] };
    case 'inspect':
      expect(1);
      return { name, input: paths[0] };
    case undefined:
      throw new UsageError('no command given');
    default:
      throw new UsageError(`unknown command ${name}`);
  }
}

async function run(command: Command): Promise<void> {
  const file = new Uint8Array(await readFile(command.input));
  switch (command.name) {
    case 'pack': {
      const container = await encodeContainer(file, { sourceFileName: basename(command.input), legacy: command.legacy });
      await writeFile(command.output, container);
      return;
    }
    case 'unpack': {
      const { asset } = await decodeContainer(file);
      await writeFile(command.output, asset);
      return;
    }
    case 'inspect': {
      const header = readContainerHeader(file);
      const report = {
        ...header,
        timestampIso: header.timestamp ? new Date(header.timestamp).toISOString() : null,
        fileBytes: file.length,
        payloadBytes: file.length - header.payloadOffset,
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
  }
}

async function main(args: string[]): Promise<number> {
  if (args.length === 1 && ['help', '--help', '-h'].includes(args[0])) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let command: Command;
  try {
    command = parseArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  try {
    await run(command);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
