/**
 * A counting reader for tests and benchmarks: while it is installed, every file opened,
 * closed, listed and every byte read (with its offset) is counted, by wrapping the Deno calls
 * that do them. It lets a test assert an I/O claim ("leaves the head unread", "opens no file")
 * instead of trusting the result alone.
 *
 * @module
 */

/** A byte range read from a file. */
export interface ReadRange {
  path: string;
  start: number;
  end: number;
}

/** What was counted since the counter was installed (or last taken). */
export interface IoCounts {
  filesOpened: number;
  filesClosed: number;
  bytesRead: number;
  dirsListed: number;
  /** Every read, with the file and its byte range. */
  reads: ReadRange[];
}

/** An installed counter; dispose it to put the Deno calls back. */
export interface IoCounter extends Disposable {
  /** The counts so far, and a fresh start. */
  take(): IoCounts;
  /** The lowest byte offset read from `path`, or undefined when nothing of it was read. */
  lowestRead(path: string): number | undefined;
}

function fresh(): IoCounts {
  return { filesOpened: 0, filesClosed: 0, bytesRead: 0, dirsListed: 0, reads: [] };
}

/**
 * Installs a counter. Only one at a time; tests run their files in separate workers, so a
 * counter sees only its own file's I/O.
 */
export function countIo(): IoCounter {
  let counts = fresh();
  const deno = Deno as unknown as Record<string, unknown>;
  const proto = Deno.FsFile.prototype as unknown as Record<string | symbol, unknown>;
  const saved = {
    open: Deno.open,
    readFile: Deno.readFile,
    readDir: Deno.readDir,
    read: Deno.FsFile.prototype.read,
    seek: Deno.FsFile.prototype.seek,
    close: Deno.FsFile.prototype.close,
    dispose: proto[Symbol.dispose] as () => void,
  };
  const files = new WeakMap<Deno.FsFile, { path: string; position: number; closed: boolean }>();
  const closed = (file: Deno.FsFile) => {
    const state = files.get(file);
    if (state && !state.closed) {
      state.closed = true;
      counts.filesClosed++;
    }
  };
  deno.open = async (path: string | URL, options?: Deno.OpenOptions) => {
    const file = await saved.open(path, options);
    counts.filesOpened++;
    files.set(file, { path: String(path), position: 0, closed: false });
    return file;
  };
  deno.readFile = async (path: string | URL, options?: Deno.ReadFileOptions) => {
    const bytes = await saved.readFile(path, options);
    counts.filesOpened++;
    counts.filesClosed++;
    counts.bytesRead += bytes.length;
    counts.reads.push({ path: String(path), start: 0, end: bytes.length });
    return bytes;
  };
  deno.readDir = (path: string | URL) => {
    counts.dirsListed++;
    return saved.readDir(path);
  };
  Deno.FsFile.prototype.read = async function (this: Deno.FsFile, buffer: Uint8Array) {
    const n = await saved.read.call(this, buffer);
    const state = files.get(this);
    if (n !== null && state) {
      counts.bytesRead += n;
      counts.reads.push({ path: state.path, start: state.position, end: state.position + n });
      state.position += n;
    }
    return n;
  };
  Deno.FsFile.prototype.seek = async function (
    this: Deno.FsFile,
    offset: number | bigint,
    whence: Deno.SeekMode,
  ) {
    const position = await saved.seek.call(this, offset, whence);
    const state = files.get(this);
    if (state) state.position = position;
    return position;
  };
  Deno.FsFile.prototype.close = function (this: Deno.FsFile) {
    closed(this);
    return saved.close.call(this);
  };
  proto[Symbol.dispose] = function (this: Deno.FsFile) {
    closed(this);
    return saved.dispose.call(this);
  };
  return {
    take() {
      const taken = counts;
      counts = fresh();
      return taken;
    },
    lowestRead(path) {
      const starts = counts.reads.filter((r) => r.path === path).map((r) => r.start);
      return starts.length === 0 ? undefined : Math.min(...starts);
    },
    [Symbol.dispose]() {
      deno.open = saved.open;
      deno.readFile = saved.readFile;
      deno.readDir = saved.readDir;
      Deno.FsFile.prototype.read = saved.read;
      Deno.FsFile.prototype.seek = saved.seek;
      Deno.FsFile.prototype.close = saved.close;
      proto[Symbol.dispose] = saved.dispose;
    },
  };
}
