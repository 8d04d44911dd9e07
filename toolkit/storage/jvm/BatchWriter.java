// Writes many small files atomically in one call: each is written under a temporary name beside it and renamed
// into place, as FileSystem.write_atomically does one file (toolkit/storage/hadoop.py). A retention run that
// evicts 35,000 instances records 35,000 events: one py4j round trip per file operation made that 150 s.
// Built into the toolkit's jar by `make` (toolkit/storage/jvm_classes.py).
//
// writeAll(batch): batch is NUL-separated pairs of URI and UTF-8 text (records are JSON: no NUL inside). Files
// are written by a few threads at once; a failure stops the batch and answers the index of the first file that
// failed (the files before it are in place, later ones may be, none is half-written). file:/// goes through java.nio (Files.move with ATOMIC_MOVE is
// rename(2)); every other scheme through FileSystem.create and FileContext.rename with OVERWRITE (one rename2 in
// HDFS's NameNode).

package feedtoolkit;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

public class BatchWriter {
    private final Configuration conf;
    private final boolean localByNio;
    private final String unique = Long.toHexString(new SecureRandom().nextLong());  // this writer's temporaries
    private static final int THREADS = 4;
    private final AtomicLong written = new AtomicLong();
    private FileSystem rawLocal;

    /** localByNio false: file:/// through Hadoop's RawLocalFileSystem too (the code path of other schemes). */
    public BatchWriter(Configuration conf, boolean localByNio) {
        this.conf = conf;
        this.localByNio = localByNio;
    }

    /** The number of files written from the first on: all of them, or the index of the first that failed
     *  (the caller writes that one alone, to report its error the way a single write does). Files are written
     *  by THREADS threads at once (the time goes to the file system's round trips, not the CPU), so files after
     *  a failed one may be written too: each file is whole or absent, never half-written. */
    public int writeAll(String batch) throws InterruptedException {
        String[] parts = batch.split("\u0000", -1);
        if (parts.length % 2 != 0) {
            throw new IllegalArgumentException("a batch is pairs of URI and text");
        }
        int files = parts.length / 2;
        AtomicInteger firstFailed = new AtomicInteger(files);
        AtomicInteger next = new AtomicInteger(0);
        Runnable worker = () -> {
            for (int i = next.getAndIncrement(); i < files && i < firstFailed.get(); i = next.getAndIncrement()) {
                try {
                    write(parts[2 * i], parts[2 * i + 1].getBytes(StandardCharsets.UTF_8));
                } catch (IOException | RuntimeException err) {
                    firstFailed.accumulateAndGet(i, Math::min);
                }
            }
        };
        Thread[] threads = new Thread[Math.min(THREADS, Math.max(files, 1))];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(worker, "feed-toolkit-batch-writer-" + t);
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return firstFailed.get();
    }

    private void write(String uri, byte[] data) throws IOException {
        URI target = URI.create(uri);
        String name = new Path(target).getName();
        String temporaryName = "." + name + "." + unique + "-" + written.getAndIncrement() + ".tmp";
        if (localByNio && "file".equals(target.getScheme())) {
            java.nio.file.Path file = Paths.get(target);
            java.nio.file.Path temporary = file.resolveSibling(temporaryName);
            Files.createDirectories(file.getParent());
            Files.write(temporary, data, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException err) {
                Files.deleteIfExists(temporary);
                throw err;
            }
            return;
        }
        Path file = new Path(target);
        Path temporary = new Path(file.getParent(), temporaryName);
        FileSystem fs = fileSystem(file);
        if (isDirectory(fs, file)) {
            throw new IOException("it is a directory");
        }
        fs.mkdirs(file.getParent());
        try {
            try (FSDataOutputStream stream = fs.create(temporary, false)) {
                stream.write(data);
            }
            FileContext.getFileContext(file.toUri(), conf).rename(temporary, file, Options.Rename.OVERWRITE);
        } catch (IOException err) {
            fs.delete(temporary, false);
            throw err;
        }
    }

    /** file:/// as RawLocalFileSystem (no .crc files beside the records), as HadoopFileSystem._new_fs. */
    private synchronized FileSystem fileSystem(Path path) throws IOException {
        if (!"file".equals(path.toUri().getScheme())) {
            return path.getFileSystem(conf);
        }
        if (rawLocal == null) {
            rawLocal = new RawLocalFileSystem();
            rawLocal.initialize(URI.create("file:///"), conf);
        }
        return rawLocal;
    }

    private static boolean isDirectory(FileSystem fs, Path path) throws IOException {
        try {
            return fs.getFileStatus(path).isDirectory();
        } catch (FileNotFoundException err) {
            return false;
        }
    }
}
