// Copies and checksums batches of files inside the JVM: one py4j call per batch, a pool of threads,
// bytes never pass through Python. Compiled at run time by Janino (toolkit/storage/bulk_copy.py), so it is
// written in plain Java 7 style: no lambdas, no diamonds, no var.
//
// Wire format (one string each way, fields separated by NUL, which cannot occur in a path):
//   copy:      source, target, listed length, listed mtime (ms)      -> bytes, crc32c hex, error ("" = ok)
//   checksums: path                                                  -> bytes, crc32c hex, error ("" = ok)
// An error is one line: a verification's own message, or the Java exception's class, ": ", its message.

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
    private final ConcurrentHashMap systems = new ConcurrentHashMap();  // "scheme://authority" -> FileSystem
    private final ConcurrentLinkedQueue buffers = new ConcurrentLinkedQueue();  // idle Buffers

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
        CopyCheckException(String message) {
            super(message);
        }
    }

    // ------------------------------------------------------------------------------------------ batches
    /** Copies every task; the answer has three fields per task, in the tasks' order. */
    public String copy(String tasks, final boolean preservePermission) throws Exception {
        final String[] fields = tasks.isEmpty() ? new String[0] : tasks.split(SEP, -1);
        if (fields.length % 4 != 0) {
            throw new IllegalArgumentException("copy takes 4 fields per task, got " + fields.length);
        }
        final String[] answers = new String[fields.length / 4];
        final ConcurrentHashMap madeFolders = new ConcurrentHashMap();  // local folders made by this call
        runAll(answers.length, new Job() {
            public String run(int index, Buffers buffers) throws Exception {
                int at = 4 * index;
                return copyOne(fields[at], fields[at + 1], Long.parseLong(fields[at + 2]),
                               Long.parseLong(fields[at + 3]), preservePermission, buffers, madeFolders);
            }
        }, answers);
        return join(answers);
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
            List futures = new ArrayList();
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
                ((Future) futures.get(w)).get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private Buffers takeBuffers() {
        Buffers idle = (Buffers) buffers.poll();
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
                           Buffers buffers, ConcurrentHashMap madeFolders) throws Exception {
        boolean localSource = localByNio && source.startsWith(LOCAL);
        boolean localTarget = localByNio && target.startsWith(LOCAL);
        FileChannel inChannel = null;
        InputStream inStream = null;
        FileChannel outChannel = null;
        OutputStream outStream = null;
        FileSystem sourceFs = null;
        FileSystem targetFs = null;
        Path sourcePath = null;
        Path targetPath = null;
        java.nio.file.Path sourceLocal = null;
        java.nio.file.Path targetLocal = null;
        boolean created = false;
        int mode = 0;
        try {
            // The source, as listed?
            long size;
            long modified;
            if (source.startsWith(LOCAL) && Files.isSymbolicLink(Paths.get(localPath(source)))) {
                throw new CopyCheckException("the source is a symbolic link: it is never copied as its target");
            }
            if (localSource) {
                sourceLocal = Paths.get(localPath(source));
                PosixFileAttributes attributes =  // Janino erases the generic answer: cast
                    (PosixFileAttributes) Files.readAttributes(sourceLocal, PosixFileAttributes.class);
                if (attributes.isDirectory()) {
                    throw new CopyCheckException("the source is a directory");
                }
                if (!attributes.isRegularFile()) {  // a pipe or a device would never end
                    throw new CopyCheckException("the source is not a regular file");
                }
                size = attributes.size();
                modified = attributes.lastModifiedTime().toMillis();
                mode = toMode(attributes.permissions());
                inChannel = FileChannel.open(sourceLocal, StandardOpenOption.READ);
            } else {
                sourceFs = fileSystem(source);
                sourcePath = new Path(source);
                FileStatus status = !source.startsWith(LOCAL) && sourceFs.supportsSymlinks()
                    ? sourceFs.getFileLinkStatus(sourcePath)
                    : sourceFs.getFileStatus(sourcePath);
                if (status.isSymlink()) {
                    throw new CopyCheckException("the source is a symbolic link: it is never copied as its target");
                }
                if (status.isDirectory()) {
                    throw new CopyCheckException("the source is a directory");
                }
                size = status.getLen();
                modified = status.getModificationTime();
                mode = status.getPermission().toShort();
                inStream = sourceFs.open(sourcePath, bufferSize);
            }
            if (size != length || modified != mtime) {
                throw new CopyCheckException("the source changed since it was listed: its length is " + size
                    + " and its modification time " + modified + ", the listing said " + length + " and " + mtime);
            }
            // The target: created anew (parents too), never appended to.
            if (localTarget) {
                targetLocal = Paths.get(localPath(target));
                makeFolder(targetLocal.getParent(), madeFolders);
                // Created with the source's mode (less the umask): a chmod afterwards only where that differs.
                FileAttribute[] attributes = preservePermission
                    ? new FileAttribute[] {PosixFilePermissions.asFileAttribute(toPermissions(mode))}
                    : new FileAttribute[0];
                Set options = EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                try {
                    outChannel = FileChannel.open(targetLocal, options, attributes);
                } catch (FileAlreadyExistsException exists) {  // replaced, not truncated: a new file, new mode
                    if (Files.isDirectory(targetLocal)) {
                        throw new CopyCheckException("the target is a directory");
                    }
                    Files.delete(targetLocal);
                    outChannel = FileChannel.open(targetLocal, options, attributes);
                }
                created = true;
            } else {
                targetFs = fileSystem(target);
                targetPath = new Path(target);
                outStream = targetFs.create(targetPath, true, bufferSize);
                created = true;
            }
            // The bytes, and their CRC32C on the way.
            CRC32C crc = new CRC32C();
            long copied = 0;
            ByteBuffer direct = buffers.direct;
            byte[] array = buffers.array;
            while (true) {
                int read;
                if (inChannel != null) {
                    direct.clear();
                    read = inChannel.read(direct);
                    if (read < 0) {
                        break;
                    }
                    direct.flip();
                    crc.update(direct);
                    direct.rewind();
                    if (outChannel != null) {
                        while (direct.hasRemaining()) {
                            outChannel.write(direct);
                        }
                    } else {
                        direct.get(array, 0, read);
                        outStream.write(array, 0, read);
                    }
                } else {
                    read = inStream.read(array, 0, array.length);
                    if (read < 0) {
                        break;
                    }
                    crc.update(array, 0, read);
                    if (outChannel != null) {
                        ByteBuffer wrapped = ByteBuffer.wrap(array, 0, read);
                        while (wrapped.hasRemaining()) {
                            outChannel.write(wrapped);
                        }
                    } else {
                        outStream.write(array, 0, read);
                    }
                }
                copied += read;
            }
            if (outChannel != null) {
                outChannel.close();
                outChannel = null;
            } else {
                outStream.close();
                outStream = null;
            }
            // Verify: the bytes copied, the listed length and the target's length agree; and the file systems'
            // own checksums where both keep one of the same algorithm (HDFS).
            if (copied != length) {
                throw new CopyCheckException("the source changed while it was copied: " + copied
                    + " bytes were read, the listing said " + length);
            }
            PosixFileAttributes made = localTarget  // Janino erases the generic answer: cast
                ? (PosixFileAttributes) Files.readAttributes(targetLocal, PosixFileAttributes.class) : null;
            long written = localTarget ? made.size() : targetFs.getFileStatus(targetPath).getLen();
            if (written != copied) {
                throw new CopyCheckException("the target holds " + written + " bytes after the copy of " + copied);
            }
            if (sourceFs != null && targetFs != null) {
                FileChecksum expected = sourceFs.getFileChecksum(sourcePath);
                FileChecksum found = expected == null ? null : targetFs.getFileChecksum(targetPath);
                if (found != null && expected.getAlgorithmName().equals(found.getAlgorithmName())
                        && !expected.equals(found)) {
                    throw new CopyCheckException("the target's checksum " + found + " differs from the source's "
                        + expected);
                }
            }
            // Last, the permission and the modification time: only a verified copy carries the source's mtime.
            if (localTarget) {
                if (preservePermission && toMode(made.permissions()) != (mode & 0777)) {
                    Files.setPosixFilePermissions(targetLocal, toPermissions(mode));
                }
                // java.io's stat + utimes: NIO's setTimes opens the file for futimens (two more system calls).
                if (!targetLocal.toFile().setLastModified(mtime)) {
                    throw new IOException("cannot set the modification time of " + targetLocal);
                }
            } else {
                if (preservePermission) {
                    targetFs.setPermission(targetPath, new FsPermission((short) mode));
                }
                targetFs.setTimes(targetPath, mtime, -1);
            }
            String hex = Long.toHexString(crc.getValue());
            return Long.toString(copied) + SEP + "00000000".substring(hex.length()) + hex + SEP;
        } catch (Throwable failure) {
            closeQuietly(outChannel, outStream);
            if (created) {
                try {  // a failed copy leaves no target behind
                    if (localTarget) {
                        Files.deleteIfExists(targetLocal);
                    } else {
                        targetFs.delete(targetPath, false);
                    }
                } catch (Throwable ignored) {
                    // the failure being reported says what went wrong
                }
            }
            if (failure instanceof Exception) {
                throw (Exception) failure;
            }
            throw (Error) failure;
        } finally {
            closeQuietly(inChannel, inStream);
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

    private static void makeFolder(java.nio.file.Path folder, ConcurrentHashMap madeFolders) throws IOException {
        if (folder == null || madeFolders.containsKey(folder)) {
            return;
        }
        try {
            Files.createDirectories(folder);
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
        FileSystem known = (FileSystem) systems.get(key);
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
        FileSystem raced = (FileSystem) systems.putIfAbsent(key, made);
        return raced != null ? raced : made;
    }

    private static int toMode(Set permissions) {
        int mode = 0;
        for (int bit = 0; bit < BITS.length; bit++) {
            if (permissions.contains(BITS[bit])) {
                mode |= 1 << bit;
            }
        }
        return mode;
    }

    private static Set toPermissions(int mode) {
        Set permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (int bit = 0; bit < BITS.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                permissions.add(BITS[bit]);
            }
        }
        return permissions;
    }

    private static void closeQuietly(java.io.Closeable channel, java.io.Closeable stream) {
        try {
            if (channel != null) {
                channel.close();
            }
            if (stream != null) {
                stream.close();
            }
        } catch (Throwable ignored) {
            // closing after a failure: the failure is what gets reported
        }
    }
}
