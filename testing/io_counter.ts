/**
 * A counting reader for tests and benchmarks: while it is installed, every file opened,
 * closed, listed and every byte read (with its offset, by an asynchronous or a synchronous
 * read) is counted, by wrapping the Deno calls
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

type Patchable = Record<string | symbol, unknown>;

/** Replaces `object[key]` with `wrap(original)`; returns how to put the original back. */
function patch<T>(object: object, key: string | symbol, wrap: (original: T) => T): () => void {
  const target = object as Patchable;
  const original = target[key] as T;
  target[key] = wrap(original);
  return () => (target[key] = original);
}

/** What the counter knows of an open file. */
interface FileState {
  path: string;
  position: number;
  closed: boolean;
}

class Counter {
  counts = fresh();
  readonly files = new WeakMap<Deno.FsFile, FileState>();

  opened(file: Deno.FsFile, path: string | URL): void {
    this.counts.filesOpened++;
    this.files.set(file, { path: String(path), position: 0, closed: false });
  }

  read(file: Deno.FsFile, n: number | null): void {
    const state = this.files.get(file);
    if (n === null || !state) return;
    this.counts.bytesRead += n;
    this.counts.reads.push({ path: state.path, start: state.position, end: state.position + n });
    state.position += n;
  }

  closed(file: Deno.FsFile): void {
    const state = this.files.get(file);
    if (state && !state.closed) {
      state.closed = true;
      this.counts.filesClosed++;
    }
  }
}

/** Wraps the Deno calls that open, list, read, seek and close files; returns the undoers. */
function install(counter: Counter): (() => void)[] {
  type Open = typeof Deno.open;
  type Read = typeof Deno.FsFile.prototype.read;
  type Seek = typeof Deno.FsFile.prototype.seek;
  type ReadSync = typeof Deno.FsFile.prototype.readSync;
  type SeekSync = typeof Deno.FsFile.prototype.seekSync;
  type Close = (this: Deno.FsFile) => void;
  const proto = Deno.FsFile.prototype;
  return [
    patch<Open>(Deno, "open", (open) => async (path, options) => {
      const file = await open(path, options);
      counter.opened(file, path);
      return file;
    }),
    patch<typeof Deno.openSync>(Deno, "openSync", (openSync) => (path, options) => {
      const file = openSync(path, options);
      counter.opened(file, path);
      return file;
    }),
    patch<typeof Deno.readFile>(Deno, "readFile", (readFile) => async (path, options) => {
      const bytes = await readFile(path, options);
      const { counts } = counter;
      counts.filesOpened++;
      counts.filesClosed++;
      counts.bytesRead += bytes.length;
      counts.reads.push({ path: String(path), start: 0, end: bytes.length });
      return bytes;
    }),
    patch<typeof Deno.readDir>(Deno, "readDir", (readDir) => (path) => {
      counter.counts.dirsListed++;
      return readDir(path);
    }),
    patch<typeof Deno.readDirSync>(Deno, "readDirSync", (readDirSync) => (path) => {
      counter.counts.dirsListed++;
      return readDirSync(path);
    }),
    patch<Read>(proto, "read", (read) =>
      async function (this: Deno.FsFile, buffer) {
        const n = await read.call(this, buffer);
        counter.read(this, n);
        return n;
      }),
    patch<ReadSync>(proto, "readSync", (readSync) =>
      function (this: Deno.FsFile, buffer) {
        const n = readSync.call(this, buffer);
        counter.read(this, n);
        return n;
      }),
    patch<SeekSync>(proto, "seekSync", (seekSync) =>
      function (this: Deno.FsFile, offset, whence) {
        const position = seekSync.call(this, offset, whence);
        const state = counter.files.get(this);
        if (state) state.position = position;
        return position;
      }),
    patch<Seek>(proto, "seek", (seek) =>
      async function (this: Deno.FsFile, offset, whence) {
        const position = await seek.call(this, offset, whence);
        const state = counter.files.get(this);
        if (state) state.position = position;
        return position;
      }),
    ...["close", Symbol.dispose].map((key) =>
      patch<Close>(proto, key, (close) =>
        function (this: Deno.FsFile) {
          counter.closed(this);
          return close.call(this);
        })
    ),
  ];
}

/**
 * Installs a counter. Only one at a time; tests run their files in separate workers, so a
 * counter sees only its own file's I/O.
 */
export function countIo(): IoCounter {
  const counter = new Counter();
  const undo = install(counter);
  return {
    take() {
      const taken = counter.counts;
      counter.counts = fresh();
      return taken;
    },
    lowestRead(path) {
      const starts = counter.counts.reads.filter((r) => r.path === path).map((r) => r.start);
      return starts.length === 0 ? undefined : Math.min(...starts);
    },
    [Symbol.dispose]() {
      for (const restore of undo.reverse()) restore();
    },
  };
}
