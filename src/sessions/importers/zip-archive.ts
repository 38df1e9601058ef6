// The files of a zip archive (an Inspect `.eval` log is one): the central directory read from its end, each
// entry stored or deflated (the two methods Python's zipfile writes by default), inflated with Node's zlib.
// No zip64 and no encryption: an archive that needs them is said to be unsupported, not misread.
import { inflateRawSync } from "node:zlib";
import { InputError } from "../../core/index.ts";

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_ENTRY = 0x04034b50;

/** Whether bytes start like a zip archive (a local file header). */
export const isZipArchive = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && Buffer.from(bytes.buffer, bytes.byteOffset, 4).readUInt32LE(0) === LOCAL_ENTRY;

/** Every file of the archive by its name, in the central directory's order. Throws an InputError naming `file`. */
export function readZipArchive(bytes: Buffer, file: string): Map<string, Buffer> {
  const bad = (what: string): never => {
    throw new InputError(`not a readable zip archive: ${what}`, { file });
  };
  // The end record is the last 22 bytes, unless a comment (up to 64 KiB) follows it.
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--)
    if (bytes.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i;
      break;
    }
  if (end < 0) bad("no end of central directory");
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff) bad("a zip64 archive (not supported)");
  const files = new Map<string, Buffer>();
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL_ENTRY)
      bad(`central directory entry ${n}`);
    const flags = bytes.readUInt16LE(at + 8);
    const method = bytes.readUInt16LE(at + 10);
    const compressed = bytes.readUInt32LE(at + 20);
    const size = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.toString("utf8", at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (flags & 1) bad(`${name} is encrypted`);
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL_ENTRY) bad(`${name}'s local header`);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const data = bytes.subarray(start, start + compressed);
    if (data.length !== compressed) bad(`${name} is cut short`);
    let content: Buffer;
    if (method === 0) content = data;
    else if (method === 8) {
      try {
        content = inflateRawSync(data);
      } catch {
        return bad(`${name} does not inflate`);
      }
    } else return bad(`${name} uses compression method ${method} (only stored and deflated are read)`);
    if (content.length !== size) bad(`${name} inflates to ${content.length} bytes, not ${size}`);
    files.set(name, content);
  }
  return files;
}
