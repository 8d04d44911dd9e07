// Copies and checksums batches of files inside the JVM: one py4j call per batch, a pool of threads,
// bytes never pass through Python. Built into the toolkit's jar by `make` (toolkit/core/storage/jvm_classes.py).
//
// Wire format (one string each way, fields separated by NUL, which cannot occur in a path):
//   copy:      source, target, listed length, listed mtime (ms)      -> bytes, crc32c hex, error ("" = ok)
//   checksums: path                                                  -> bytes, crc32c hex, error ("" = ok)
// An error is one line: a verification's own message, or the Java exception's class, ": ", its message.

package feedtoolkit;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

public class BulkCopy {
    private static final String SEP = "\u0000";
    private static final String LOCAL = "file:///";
    private static final PosixFilePermission[] BITS = {
        PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
        PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
        PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
    };

    private final Configuration conf;
    private final int threads;
    private final int bufferSize;
    private final boolean localByNio;
    private final ConcurrentHashMap<String, FileSystem> systems = new ConcurrentHashMap<>();  // "scheme://authority" -> FileSystem
    private final ConcurrentLinkedQueue<Buffers> buffers = new ConcurrentLinkedQueue<>();  // idle Buffers

    /** threads: files copied at once; bufferSize: bytes per read; localByNio: file:/// through java.nio
     *  (false: through Hadoop's RawLocalFileSystem, the path every other scheme takes). */
    public BulkCopy(Configuration conf, int threads, int bufferSize, boolean localByNio) {
        this.conf = conf;
        this.threads = Math.max(1, threads);
        this.bufferSize = Math.max(4096, bufferSize);
        this.localByNio = localByNio;
    }

    /** One worker's buffers: a direct one for channels, an array for Hadoop's streams. */
    private static final class Buffers {
        final ByteBuffer direct;
        final byte[] array;
        Buffers(int size) {
            direct = ByteBuffer.allocateDirect(size);
            array = new byte[size];
        }
    }

    /** A verification failed: the message says which and how. */
    private static final class CopyCheckException extends IOException {
        private static final long serialVersionUID = 1L;

        CopyCheckException(String message) {
            super(message);
        }
    }

    // ------------------------------------------------------------------------------------------ batches
    /** Copies every task; the answer has three fields per task, in the tasks' order. */
    public String copy(String tasks, final boolean preservePermission) throws Exception {
        return copy(tasks, preservePermission, commonFolder(tasks));
    }

    /** `copy`, with the local folder that holds every target of the whole copy (a distributed copy's slices
     *  share the job's: DistributedCopy), or "": below it no folder is a symbolic link nor made through one. */
    public String copy(String tasks, final boolean preservePermission, String base) throws Exception {
        final String[] fields = tasks.isEmpty() ? new String[0] : tasks.split(SEP, -1);
        if (fields.length % 4 != 0) {
            throw new IllegalArgumentException("copy takes 4 fields per task, got " + fields.length);
        }
        final java.nio.file.Path below = base.isEmpty() ? null : Paths.get(base);
        final String[] answers = new String[fields.length / 4];
        final ConcurrentHashMap<java.nio.file.Path, Boolean> madeFolders = new ConcurrentHashMap<>();  // local folders made by this call
        runAll(answers.length, new Job() {
            public String run(int index, Buffers buffers) throws Exception {
                int at = 4 * index;
                return copyOne(fields[at], fields[at + 1], Long.parseLong(fields[at + 2]),
                               Long.parseLong(fields[at + 3]), preservePermission, buffers, madeFolders, below);
            }
        }, answers);
        return join(answers);
    }

    /** The deepest local folder holding the parents of every file:/// target of `tasks` (4 fields per task), as a
     *  local path; "" when there is none (no local target, or targets on no common folder but the root). */
    public static String commonFolder(String tasks) {
        String[] fields = tasks.isEmpty() ? new String[0] : tasks.split(SEP, -1);
        java.nio.file.Path common = null;
        for (int at = 1; at < fields.length; at += 4) {
            if (!fields[at].startsWith(LOCAL)) {
                continue;
            }
            java.nio.file.Path parent = Paths.get(localPath(fields[at])).getParent();
            if (parent == null) {
                return "";
            }
            if (common == null) {
                common = parent;
            }
            while (common != null && !parent.startsWith(common)) {
                common = common.getParent();
            }
            if (common == null || common.getParent() == null) {
                return "";
            }
        }
        return common == null ? "" : common.toString();
    }

    /** CRC32C and length of every path; the answer has three fields per path, in the paths' order. */
    public String checksums(String paths) throws Exception {
        final String[] fields = paths.isEmpty() ? new String[0] : paths.split(SEP, -1);
        final String[] answers = new String[fields.length];
        runAll(answers.length, new Job() {
            public String run(int index, Buffers buffers) throws Exception {
                return checksumOne(fields[index], buffers);
            }
        }, answers);
        return join(answers);
    }

    private interface Job {
        String run(int index, Buffers buffers) throws Exception;
    }

    /** Runs `count` jobs on min(threads, count) workers that take the next index until none is left. */
    private void runAll(final int count, final Job job, final String[] answers) throws Exception {
        int workers = Math.min(threads, count);
        if (workers == 0) {
            return;
        }
        final AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(workers, new ThreadFactory() {
            public Thread newThread(Runnable runnable) {
                Thread thread = new Thread(runnable, "feed-toolkit-bulk-copy");
                thread.setDaemon(true);
                return thread;
            }
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                futures.add(pool.submit(new Runnable() {
                    public void run() {
                        Buffers buffers = takeBuffers();
                        try {
                            for (int index = next.getAndIncrement(); index < count; index = next.getAndIncrement()) {
                                String answer;
                                try {
                                    answer = job.run(index, buffers);
                                } catch (Throwable failure) {
                                    answer = "0" + SEP + SEP + describe(failure);
                                }
                                answers[index] = answer;
                            }
                        } finally {
                            buffers.direct.clear();
                            BulkCopy.this.buffers.add(buffers);
                        }
                    }
                }));
            }
            for (int w = 0; w < futures.size(); w++) {
                futures.get(w).get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private Buffers takeBuffers() {
        Buffers idle = buffers.poll();
        return idle != null ? idle : new Buffers(bufferSize);
    }

    private static String join(String[] answers) {
        StringBuilder out = new StringBuilder(answers.length * 24);
        for (int i = 0; i < answers.length; i++) {
            if (i > 0) {
                out.append(SEP);
            }
            out.append(answers[i]);
        }
        return out.toString();
    }

    /** One line: a verification's own message, else the Java class and its message. */
    private static String describe(Throwable failure) {
        String message = failure.getMessage();
        String line = failure instanceof CopyCheckException ? message
            : failure.getClass().getName() + (message == null ? "" : ": " + message);
        return line.replace('\n', ' ').replace('\r', ' ').replace('\u0000', ' ').trim();
    }

    // ------------------------------------------------------------------------------------------ one file
    private String copyOne(String source, String target, long length, long mtime, boolean preservePermission,
                           Buffers buffers, ConcurrentHashMap<java.nio.file.Path, Boolean> madeFolders,
                           java.nio.file.Path base) throws Exception {
        Source in = null;
        Sink out = null;
        try {
            // The source, as listed?
            in = openSource(source);
            if (in.size() != length || in.modified() != mtime) {
                throw new CopyCheckException("the source changed since it was listed: its length is " + in.size()
                    + " and its modification time " + in.modified() + ", the listing said " + length + " and "
                    + mtime);
            }
            // The target: created anew (parents too), never appended to.
            out = localByNio && target.startsWith(LOCAL)
                ? LocalSink.create(Paths.get(localPath(target)), madeFolders, base, preservePermission, in.mode())
                : HadoopSink.create(fileSystem(target), new Path(target), bufferSize);
            // The bytes, and their CRC32C on the way.
            CRC32C crc = new CRC32C();
            long copied = 0;
            for (ByteBuffer chunk = in.read(buffers); chunk != null; chunk = in.read(buffers)) {
                int read = chunk.remaining();
                crc.update(chunk);
                chunk.rewind();
                out.write(chunk, buffers);
                copied += read;
            }
            out.close();
            // Verify: the bytes copied, the listed length and the target's length agree; and the file systems'
            // own checksums where both keep one of the same algorithm (HDFS).
            if (copied != length) {
                throw new CopyCheckException("the source changed while it was copied: " + copied
                    + " bytes were read, the listing said " + length);
            }
            long written = out.length();
            if (written != copied) {
                throw new CopyCheckException("the target holds " + written + " bytes after the copy of " + copied);
            }
            FileChecksum expected = in.keepsChecksums() && out.keepsChecksums() ? in.checksum() : null;
            FileChecksum found = expected == null ? null : out.checksum();
            if (found != null && expected.getAlgorithmName().equals(found.getAlgorithmName())
                    && !expected.equals(found)) {
                throw new CopyCheckException("the target's checksum " + found + " differs from the source's "
                    + expected);
            }
            // Last, the permission and the modification time: only a verified copy carries the source's mtime.
            out.finish(preservePermission, in.mode(), mtime);
            String hex = Long.toHexString(crc.getValue());
            return Long.toString(copied) + SEP + "00000000".substring(hex.length()) + hex + SEP;
        } catch (Throwable failure) {
            if (out != null) {
                out.discard();  // a failed copy leaves no target behind
            }
            if (failure instanceof Exception) {
                throw (Exception) failure;
            }
            throw (Error) failure;
        } finally {
            closeQuietly(in);
        }
    }

    /** The source opened for reading, after the checks every kind makes (no link, no directory). */
    private Source openSource(String uri) throws IOException {
        if (uri.startsWith(LOCAL) && Files.isSymbolicLink(Paths.get(localPath(uri)))) {
            throw new CopyCheckException("the source is a symbolic link: it is never copied as its target");
        }
        return localByNio && uri.startsWith(LOCAL)
            ? LocalSource.open(Paths.get(localPath(uri)))
            : HadoopSource.open(fileSystem(uri), new Path(uri), !uri.startsWith(LOCAL), bufferSize);
    }

    /** Where a copy's bytes come from: its facts (checked against the listing) and its bytes, a chunk at a time. */
    private interface Source extends Closeable {
        long size();

        long modified();

        /** The 9 rwx bits. */
        int mode();

        /** The next bytes, in one of the worker's buffers (position 0, limit the count); null at the end. */
        ByteBuffer read(Buffers buffers) throws IOException;

        boolean keepsChecksums();

        /** The file system's own checksum of the file (only asked when keepsChecksums()). */
        FileChecksum checksum() throws IOException;
    }

    /** Where a copy's bytes go: created anew, written, closed, verified, then finished or discarded. */
    private interface Sink extends Closeable {
        /** Writes the chunk whole (the worker's array buffer may serve as scratch space). */
        void write(ByteBuffer chunk, Buffers buffers) throws IOException;

        /** The target's length after close. */
        long length() throws IOException;

        boolean keepsChecksums();

        FileChecksum checksum() throws IOException;

        /** The source's permission (when preserved) and modification time, the last steps of a verified copy. */
        void finish(boolean preservePermission, int mode, long mtime) throws IOException;

        /** Closes and deletes the target, quietly: the failure being reported says what went wrong. */
        void discard();
    }

    /** A file:/// source through java.nio: a channel read into the direct buffer. */
    private static final class LocalSource implements Source {
        private final PosixFileAttributes attributes;
        private final FileChannel channel;

        private LocalSource(PosixFileAttributes attributes, FileChannel channel) {
            this.attributes = attributes;
            this.channel = channel;
        }

        static LocalSource open(java.nio.file.Path file) throws IOException {
            PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class);
            if (attributes.isDirectory()) {
                throw new CopyCheckException("the source is a directory");
            }
            if (!attributes.isRegularFile()) {  // a pipe or a device would never end
                throw new CopyCheckException("the source is not a regular file");
            }
            return new LocalSource(attributes, FileChannel.open(file, StandardOpenOption.READ));
        }

        public long size() {
            return attributes.size();
        }

        public long modified() {
            return attributes.lastModifiedTime().toMillis();
        }

        public int mode() {
            return toMode(attributes.permissions());
        }

        public ByteBuffer read(Buffers buffers) throws IOException {
            ByteBuffer direct = buffers.direct;
            direct.clear();
            if (channel.read(direct) < 0) {
                return null;
            }
            direct.flip();
            return direct;
        }

        public boolean keepsChecksums() {
            return false;
        }

        public FileChecksum checksum() {
            return null;
        }

        public void close() throws IOException {
            channel.close();
        }
    }

    /** A source through Hadoop's FileSystem: a stream read into the array buffer. */
    private static final class HadoopSource implements Source {
        private final FileSystem fs;
        private final Path path;
        private final FileStatus status;
        private final InputStream stream;

        private HadoopSource(FileSystem fs, Path path, FileStatus status, InputStream stream) {
            this.fs = fs;
            this.path = path;
            this.status = status;
            this.stream = stream;
        }

        /** byLinkStatus: ask for the link's own status where the file system has links (not file://). */
        static HadoopSource open(FileSystem fs, Path path, boolean byLinkStatus, int bufferSize) throws IOException {
            FileStatus status = byLinkStatus && fs.supportsSymlinks()
                ? fs.getFileLinkStatus(path) : fs.getFileStatus(path);
            if (status.isSymlink()) {
                throw new CopyCheckException("the source is a symbolic link: it is never copied as its target");
            }
            if (status.isDirectory()) {
                throw new CopyCheckException("the source is a directory");
            }
            return new HadoopSource(fs, path, status, fs.open(path, bufferSize));
        }

        public long size() {
            return status.getLen();
        }

        public long modified() {
            return status.getModificationTime();
        }

        public int mode() {
            return status.getPermission().toShort();
        }

        public ByteBuffer read(Buffers buffers) throws IOException {
            int read = stream.read(buffers.array, 0, buffers.array.length);
            return read < 0 ? null : ByteBuffer.wrap(buffers.array, 0, read);
        }

        public boolean keepsChecksums() {
            return true;
        }

        public FileChecksum checksum() throws IOException {
            return fs.getFileChecksum(path);
        }

        public void close() throws IOException {
            stream.close();
        }
    }

    /** A file:/// target through java.nio: created with the source's mode (less the umask), by a channel. */
    private static final class LocalSink implements Sink {
        private final java.nio.file.Path file;
        private final FileChannel channel;
        private PosixFileAttributes made;  // after close

        private LocalSink(java.nio.file.Path file, FileChannel channel) {
            this.file = file;
            this.channel = channel;
        }

        static LocalSink create(java.nio.file.Path file, ConcurrentHashMap<java.nio.file.Path, Boolean> madeFolders,
                                java.nio.file.Path base, boolean preservePermission, int mode) throws IOException {
            makeFolder(file.getParent(), madeFolders, base);
            // Created with the source's mode (less the umask): a chmod afterwards only where that differs.
            FileAttribute<?>[] attributes = preservePermission
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(toPermissions(mode))}
                : new FileAttribute<?>[0];
            Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            try {
                return new LocalSink(file, FileChannel.open(file, options, attributes));
            } catch (FileAlreadyExistsException exists) {  // replaced, not truncated: a new file, new mode
                if (Files.isDirectory(file)) {
                    throw new CopyCheckException("the target is a directory");
                }
                Files.delete(file);
                return new LocalSink(file, FileChannel.open(file, options, attributes));
            }
        }

        public void write(ByteBuffer chunk, Buffers buffers) throws IOException {
            while (chunk.hasRemaining()) {
                channel.write(chunk);
            }
        }

        public void close() throws IOException {
            channel.close();
        }

        public long length() throws IOException {
            made = Files.readAttributes(file, PosixFileAttributes.class);
            return made.size();
        }

        public boolean keepsChecksums() {
            return false;
        }

        public FileChecksum checksum() {
            return null;
        }

        public void finish(boolean preservePermission, int mode, long mtime) throws IOException {
            if (preservePermission && toMode(made.permissions()) != (mode & 0777)) {
                Files.setPosixFilePermissions(file, toPermissions(mode));
            }
            // java.io's stat + utimes: NIO's setTimes opens the file for futimens (two more system calls).
            if (!file.toFile().setLastModified(mtime)) {
                throw new IOException("cannot set the modification time of " + file);
            }
        }

        public void discard() {
            closeQuietly(channel);
            try {
                Files.deleteIfExists(file);
            } catch (Throwable ignored) {
                // the failure being reported says what went wrong
            }
        }
    }

    /** A target through Hadoop's FileSystem: created (replacing a file) with the file system's defaults. */
    private static final class HadoopSink implements Sink {
        private final FileSystem fs;
        private final Path path;
        private final OutputStream stream;

        private HadoopSink(FileSystem fs, Path path, OutputStream stream) {
            this.fs = fs;
            this.path = path;
            this.stream = stream;
        }

        static HadoopSink create(FileSystem fs, Path path, int bufferSize) throws IOException {
            return new HadoopSink(fs, path, fs.create(path, true, bufferSize));
        }

        public void write(ByteBuffer chunk, Buffers buffers) throws IOException {
            if (chunk.hasArray()) {
                stream.write(chunk.array(), chunk.arrayOffset() + chunk.position(), chunk.remaining());
            } else {  // the direct buffer of a local source: through the array
                int count = chunk.remaining();
                chunk.get(buffers.array, 0, count);
                stream.write(buffers.array, 0, count);
            }
        }

        public void close() throws IOException {
            stream.close();
        }

        public long length() throws IOException {
            return fs.getFileStatus(path).getLen();
        }

        public boolean keepsChecksums() {
            return true;
        }

        public FileChecksum checksum() throws IOException {
            return fs.getFileChecksum(path);
        }

        public void finish(boolean preservePermission, int mode, long mtime) throws IOException {
            if (preservePermission) {
                fs.setPermission(path, new FsPermission((short) mode));
            }
            fs.setTimes(path, mtime, -1);
        }

        public void discard() {
            closeQuietly(stream);
            try {
                fs.delete(path, false);
            } catch (Throwable ignored) {
                // the failure being reported says what went wrong
            }
        }
    }

    private String checksumOne(String uri, Buffers buffers) throws Exception {
        CRC32C crc = new CRC32C();
        long total = 0;
        if (localByNio && uri.startsWith(LOCAL)) {
            FileChannel channel = FileChannel.open(Paths.get(localPath(uri)), StandardOpenOption.READ);
            try {
                ByteBuffer direct = buffers.direct;
                while (true) {
                    direct.clear();
                    int read = channel.read(direct);
                    if (read < 0) {
                        break;
                    }
                    direct.flip();
                    crc.update(direct);
                    total += read;
                }
            } finally {
                channel.close();
            }
        } else {
            FileSystem fs = fileSystem(uri);
            Path path = new Path(uri);
            if (fs.getFileStatus(path).isDirectory()) {
                throw new CopyCheckException("it is a directory");
            }
            InputStream in = fs.open(path, bufferSize);
            try {
                byte[] array = buffers.array;
                for (int read = in.read(array, 0, array.length); read >= 0; read = in.read(array, 0, array.length)) {
                    crc.update(array, 0, read);
                    total += read;
                }
            } finally {
                in.close();
            }
        }
        String hex = Long.toHexString(crc.getValue());
        return Long.toString(total) + SEP + "00000000".substring(hex.length()) + hex + SEP;
    }

    // ------------------------------------------------------------------------------------------ helpers
    /** file:///a/b -> /a/b (the caller spells local URIs so). */
    private static String localPath(String uri) {
        return uri.substring(LOCAL.length() - 1);
    }

    /** The target's folder, made where missing. Below `base` (the folder of the whole copy, made by the caller,
     *  whose way there the caller checked) one folder at a time, never through a symbolic link: createDirectories
     *  would follow a link planted there and write outside the copy's folder. */
    private static void makeFolder(java.nio.file.Path folder, ConcurrentHashMap<java.nio.file.Path, Boolean> madeFolders,
                                   java.nio.file.Path base) throws IOException {
        if (folder == null || madeFolders.containsKey(folder)) {
            return;
        }
        try {
            if (base == null || !folder.startsWith(base)) {
                Files.createDirectories(folder);
            } else {
                Files.createDirectories(base);
                java.nio.file.Path current = base;
                for (java.nio.file.Path name : base.relativize(folder)) {
                    current = current.resolve(name);
                    if (Files.isSymbolicLink(current)) {
                        throw new CopyCheckException(current + ", a folder of the target, is a symbolic link, which "
                            + "is never followed");
                    }
                    try {
                        Files.createDirectory(current);
                    } catch (FileAlreadyExistsException exists) {
                        if (!Files.isDirectory(current, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                            throw new CopyCheckException(Files.isSymbolicLink(current)
                                ? current + ", a folder of the target, is a symbolic link, which is never followed"
                                : "a parent of the target is a file: " + current);
                        }
                    }
                }
            }
        } catch (FileAlreadyExistsException exists) {
            throw new CopyCheckException("a parent of the target is a file: " + exists.getFile());
        }
        madeFolders.put(folder, Boolean.TRUE);
    }

    /** Hadoop's FileSystem per scheme and authority; file:// is the raw local one (no .crc side files). */
    private FileSystem fileSystem(String uri) throws IOException {
        java.net.URI parsed = new Path(uri).toUri();
        String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase();
        String key = scheme + "://" + (parsed.getAuthority() == null ? "" : parsed.getAuthority());
        FileSystem known = systems.get(key);
        if (known != null) {
            return known;
        }
        FileSystem made;
        if (scheme.equals("file")) {
            RawLocalFileSystem raw = new RawLocalFileSystem();
            raw.initialize(java.net.URI.create(LOCAL), conf);
            made = raw;
        } else {
            made = FileSystem.get(parsed, conf);
        }
        FileSystem raced = systems.putIfAbsent(key, made);
        return raced != null ? raced : made;
    }

    private static int toMode(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (int bit = 0; bit < BITS.length; bit++) {
            if (permissions.contains(BITS[bit])) {
                mode |= 1 << bit;
            }
        }
        return mode;
    }

    private static Set<PosixFilePermission> toPermissions(int mode) {
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (int bit = 0; bit < BITS.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                permissions.add(BITS[bit]);
            }
        }
        return permissions;
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            if (closeable != null) {
                closeable.close();
            }
        } catch (Throwable ignored) {
            // closing after a failure: the failure is what gets reported
        }
    }
}
