/**
 * A small authoritative DNS server on a loopback UDP port for tests, speaking RFC 1035's
 * wire format: it answers TXT questions from its table (each string split into the 255-byte
 * character-strings the format allows), NOERROR with no answer (NODATA) for a name it knows
 * without TXT records or for another type, NXDOMAIN for a name it does not know, SERVFAIL for
 * a name told to fail, and nothing at all for a name told to stay silent (a lookup that times
 * out). Spendgate's real node:dns Resolver is pointed at it through DNS_SERVERS.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import type { AddressInfo } from 'node:net';

export type DnsBehaviour = { txt: readonly string[] } | 'servfail' | 'silent';

export interface FakeDns {
  /** e.g. 127.0.0.1:40123, as DNS_SERVERS takes it. */
  server: string;
  /** Sets what a name answers (case-insensitive); undefined forgets it (NXDOMAIN). */
  set(name: string, behaviour: DnsBehaviour | undefined): void;
  /** The names asked, in order. */
  questions: string[];
  close(): Promise<void>;
}

const TYPE_TXT = 16;
const RCODE = { noError: 0, servFail: 2, nxDomain: 3, formErr: 1 } as const;

/** The question's name, type and where the question section ends; undefined when malformed. */
function readQuestion(query: Buffer): { name: string; type: number; end: number } | undefined {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < query.length) {
    const length = query[at]!;
    if (length === 0) {
      if (at + 5 > query.length) return undefined;
      return { name: labels.join('.'), type: query.readUInt16BE(at + 1), end: at + 5 };
    }
    if (length > 63) return undefined;
    labels.push(query.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  return undefined;
}

function txtRecord(values: readonly string[]): Buffer {
  const strings = values.map((value) => {
    const bytes = Buffer.from(value, 'utf8');
    const chunks: Buffer[] = [];
    for (let at = 0; at === 0 || at < bytes.length; at += 255) {
      const chunk = bytes.subarray(at, at + 255);
      chunks.push(Buffer.from([chunk.length]), chunk);
    }
    return Buffer.concat(chunks);
  });
  const rdata = Buffer.concat(strings);
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0); // the question's name
  fixed.writeUInt16BE(TYPE_TXT, 2);
  fixed.writeUInt16BE(1, 4); // IN
  fixed.writeUInt32BE(60, 6);
  fixed.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([fixed, rdata]);
}

function reply(query: Buffer, questionEnd: number, rcode: number, answers: Buffer[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  const recursionDesired = query[2]! & 0x01;
  header[2] = 0x80 | (query[2]! & 0x78) | 0x04 | recursionDesired; // QR, the opcode, AA, RD
  header[3] = 0x80 | rcode; // RA
  header.writeUInt16BE(questionEnd > 12 ? 1 : 0, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}

export async function startFakeDns(): Promise<FakeDns> {
  const table = new Map<string, DnsBehaviour>();
  const questions: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (query: Buffer, from: RemoteInfo) => {
    const question = readQuestion(query);
    if (!question) {
      if (query.length >= 12) socket.send(reply(query, 12, RCODE.formErr, []), from.port, from.address);
      return;
    }
    const name = question.name.toLowerCase().replace(/\.$/, '');
    questions.push(name);
    const behaviour = table.get(name);
    if (behaviour === 'silent') return;
    const answer =
      behaviour === undefined
        ? reply(query, question.end, RCODE.nxDomain, [])
        : behaviour === 'servfail'
          ? reply(query, question.end, RCODE.servFail, [])
          : reply(query, question.end, RCODE.noError, question.type === TYPE_TXT ? behaviour.txt.map((value) => txtRecord([value])) : []);
    socket.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    set(name, behaviour) {
      const key = name.toLowerCase();
      if (behaviour === undefined) table.delete(key);
      else table.set(key, behaviour);
    },
    questions,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
